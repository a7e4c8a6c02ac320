/* An example plugin written in C against sluice_plugin.h (the CSluicePluginABI product): it decodes
   text/x-lines bodies (one value per line, UTF-8) into a JSON array of strings, and refuses a body with
   a line that is not UTF-8. Build it as a dynamic library
   and load it with SerializerRegistry.load(pluginAt:). */
#include <sluice_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *copy_message(const char *text) {
    size_t length = strlen(text);
    char *message = malloc(length + 1);
    if (message) memcpy(message, text, length + 1);
    return message;
}

/* The length of the UTF-8 sequence at text[0] (of at most `length` bytes), or 0 when it is not well-formed
   (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). JSON text is UTF-8, so a line that
   is not cannot be copied into a JSON string as it is. */
static size_t utf8_sequence(const uint8_t *text, size_t length) {
    uint8_t lead = text[0];
    if (lead < 0x80) return 1;
    size_t count;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) count = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        count = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        count = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else return 0;
    if (length < count) return 0;
    if (text[1] < low || text[1] > high) return 0;
    for (size_t index = 2; index < count; index++)
        if (text[index] < 0x80 || text[index] > 0xBF) return 0;
    return count;
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
    size_t line = 0;
    int first = 1;
    for (size_t index = 0; index <= input_length; index++) {
        if (index < input_length && input[index] != '\n') continue;
        size_t end = index;
        line++;
        if (end > start && input[end - 1] == '\r') end--;
        if (end > start || index < input_length) {
            if (!first) json[at++] = ',';
            first = 0;
            json[at++] = '"';
            for (size_t byte = start; byte < end; byte++) {
                uint8_t c = input[byte];
                if (c >= 0x80) {
                    size_t count = utf8_sequence(input + byte, end - byte);
                    if (count == 0) {
                        free(json);
                        char text[64];
                        snprintf(text, sizeof text, "line %zu is not UTF-8", line);
                        *error_message = copy_message(text);
                        return SLUICE_PLUGIN_ERROR;
                    }
                    memcpy(json + at, input + byte, count);
                    at += count;
                    byte += count - 1;
                } else if (c == '"' || c == '\\') {
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
