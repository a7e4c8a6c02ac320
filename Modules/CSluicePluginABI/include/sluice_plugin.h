/*
 * Sluice's plugin boundary: a versioned table of C functions that a shared library returns from one
 * entry point, `sluice_plugin_entry`. Swift protocol conformances do not survive dlopen reliably, and
 * a C table lets plugins be written in any language.
 *
 * A plugin decodes response bodies of its media types into JSON text (Sluice turns that into
 * `Parameters`), and may encode JSON text into request bodies.
 *
 * What Sluice trusts and what it checks. A plugin is native code running in the host process, so
 * nothing can protect the process from a plugin that means harm; the checks below keep a plugin that
 * answers wrongly from crashing or corrupting its host.
 *
 * Trusted, not checkable:
 *   - The table returned by sluice_plugin_entry, and every string and array it points to, stay valid and
 *     unchanged for the life of the process (the library is never unloaded).
 *   - Every non-NULL function pointer is callable with the signature declared here.
 *   - name, version and each media type are NUL-terminated.
 *   - decode may be called from many threads at once, for different bodies, and must be thread-safe;
 *     free_buffer too. Neither may keep `input` or `media_type` after it returns: both are valid only
 *     during the call.
 *   - A non-NULL *output is readable for the *output_length bytes claimed (when that is within the
 *     limit below), and stays so until Sluice passes it to free_buffer.
 *   - A non-NULL *error_message is readable up to its NUL or 4096 bytes, whichever comes first (a
 *     message with no NUL in its first 4096 bytes is cut there).
 *   - free_buffer frees what decode returned, once each.
 *
 * Checked when the library is loaded (refused with registry.incompatibleABI or registry.invalidPlugin):
 *   abi_version, a NULL name, version, decode or free_buffer, a NULL media_types with a non-zero count,
 *   a NULL or malformed media type, a malformed name or version.
 *
 * Checked on every call of decode (a registry.pluginFailed error, never a crash):
 *   - A status other than SLUICE_PLUGIN_OK is a failure; its message (or "no message" when
 *     *error_message is NULL) and status are the error's `library` diagnostic.
 *   - On SLUICE_PLUGIN_OK, an *output_length over the plugin's output limit is refused before any byte
 *     is read. The limit is `maximumOutputBytes` of SerializerRegistry.load(pluginAt:replacing:
 *     maximumOutputBytes:), by default 256 MiB; a length of 2^63 or more counts as over it.
 *   - A NULL *output with a non-zero length, and success with no output at all, are refused.
 *   - The output must be JSON text; anything else is refused.
 * Whatever the outcome, every non-NULL buffer decode stored in *output or *error_message is passed to
 * free_buffer exactly once (once in all when both are the same pointer). Sluice sets both to NULL and
 * the length to 0 before each call, so a plugin need only set what it returns.
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
    /* Decodes `input` (a body of `media_type`, NUL-terminated; both valid only during the call) into
       JSON text. On success sets *output / *output_length (at most the plugin's output limit; freed with
       free_buffer) and returns SLUICE_PLUGIN_OK; on failure sets *error_message (NUL-terminated, freed
       with free_buffer) and returns SLUICE_PLUGIN_ERROR. Called from many threads at once. */
    int32_t (*decode)(const uint8_t *input, size_t input_length, const char *media_type,
                      uint8_t **output, size_t *output_length, char **error_message);
    /* Encodes JSON text into a request body; may be NULL when the plugin does not encode. Sluice does
       not call it yet. */
    int32_t (*encode)(const uint8_t *json, size_t json_length,
                      uint8_t **output, size_t *output_length, char **error_message);
    /* Frees what decode and encode returned (never called with NULL). Called from many threads at once. */
    void (*free_buffer)(void *buffer);
} sluice_plugin_table;

typedef const sluice_plugin_table *(*sluice_plugin_entry_function)(void);

#endif
