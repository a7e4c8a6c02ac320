/*
 * Sluice's plugin boundary: a versioned table of C functions that a shared library returns from one
 * entry point, `sluice_plugin_entry`. Swift protocol conformances do not survive dlopen reliably, and
 * a C table lets plugins be written in any language.
 *
 * A plugin decodes response bodies of its media types into JSON text (Sluice turns that into
 * `Parameters`), and may encode JSON text into request bodies.
 */
#ifndef SLUICE_PLUGIN_H
#define SLUICE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define SLUICE_PLUGIN_ABI_VERSION 1u
#define SLUICE_PLUGIN_ENTRY_SYMBOL "sluice_plugin_entry"

/* Status codes of the functions below. */
#define SLUICE_PLUGIN_OK 0
#define SLUICE_PLUGIN_ERROR 1

typedef struct sluice_plugin_table {
    /* SLUICE_PLUGIN_ABI_VERSION of the header the plugin was built with. */
    uint32_t abi_version;
    /* NUL-terminated; owned by the plugin for the life of the process. */
    const char *name;
    const char *version;
    /* The response media types it decodes; patterns with a wildcard subtype are allowed. */
    const char *const *media_types;
    size_t media_type_count;
    /* Decodes `input` (a body of `media_type`) into JSON text. On success sets *output / *output_length
       (freed with free_buffer); on failure sets *error_message (freed with free_buffer) and returns
       SLUICE_PLUGIN_ERROR. */
    int32_t (*decode)(const uint8_t *input, size_t input_length, const char *media_type,
                      uint8_t **output, size_t *output_length, char **error_message);
    /* Encodes JSON text into a request body; may be NULL when the plugin does not encode. */
    int32_t (*encode)(const uint8_t *json, size_t json_length,
                      uint8_t **output, size_t *output_length, char **error_message);
    /* Frees what decode and encode returned. */
    void (*free_buffer)(void *buffer);
} sluice_plugin_table;

typedef const sluice_plugin_table *(*sluice_plugin_entry_function)(void);

#endif
