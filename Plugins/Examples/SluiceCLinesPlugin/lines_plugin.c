/* An example plugin written in C against sluice_plugin.h (the CSluicePluginABI product): it decodes
   text/x-lines bodies (one value per line) into a JSON array of strings. Build it as a dynamic library
   and load it with SerializerRegistry.load(pluginAt:). */
#include <sluice_plugin.h>
#include <stdlib.h>
#include <string.h>

static char *copy_message(const char *text) {
    size_t length = strlen(text);
    char *message = malloc(length + 1);
    if (message) memcpy(message, text, length + 1);
    return message;
}

static int32_t decode(const uint8_t *input, size_t input_length, const char *media_type, uint8_t **output,
                      size_t *output_length, char **error_message) {
    (void)media_type;
    /* Worst case: every byte escaped as \u00XX (6 bytes), plus quotes and commas per line, plus brackets. */
    if (input_length > (SIZE_MAX - 2) / 9) {
        *error_message = copy_message("the body is too large");
        return SLUICE_PLUGIN_ERROR;
    }
    uint8_t *json = malloc(input_length * 9 + 2);
    if (!json) {
        *error_message = copy_message("out of memory");
        return SLUICE_PLUGIN_ERROR;
    }
    size_t at = 0;
    json[at++] = '[';
    size_t start = 0;
    int first = 1;
    for (size_t index = 0; index <= input_length; index++) {
        if (index < input_length && input[index] != '\n') continue;
        size_t end = index;
        if (end > start && input[end - 1] == '\r') end--;
        if (end > start || index < input_length) {
            if (!first) json[at++] = ',';
            first = 0;
            json[at++] = '"';
            for (size_t byte = start; byte < end; byte++) {
                uint8_t c = input[byte];
                if (c == '"' || c == '\\') {
                    json[at++] = '\\';
                    json[at++] = c;
                } else if (c < 0x20) {
                    static const char hex[] = "0123456789abcdef";
                    memcpy(json + at, "\\u00", 4);
                    at += 4;
                    json[at++] = (uint8_t)hex[c >> 4];
                    json[at++] = (uint8_t)hex[c & 15];
                } else {
                    json[at++] = c;
                }
            }
            json[at++] = '"';
        }
        start = index + 1;
    }
    json[at++] = ']';
    *output = json;
    *output_length = at;
    return SLUICE_PLUGIN_OK;
}

static void free_buffer(void *buffer) { free(buffer); }

static const char *const media_types[] = {"text/x-lines"};

static const sluice_plugin_table table = {
    .abi_version = SLUICE_PLUGIN_ABI_VERSION,
    .name = "c-lines",
    .version = "1.0.0",
    .media_types = media_types,
    .media_type_count = 1,
    .decode = decode,
    .encode = NULL,
    .free_buffer = free_buffer,
};

const sluice_plugin_table *sluice_plugin_entry(void) { return &table; }
