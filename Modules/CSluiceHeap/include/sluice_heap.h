/*
 * The leak probe of SluiceConformanceKit: runs a loaded plugin's decode and free_buffer in a child
 * process, where no other thread allocates, and measures what the C heap keeps (glibc's mallinfo2,
 * which Swift cannot see through the Glibc module).
 */
#ifndef SLUICE_HEAP_H
#define SLUICE_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* One body to decode: its bytes and its NUL-terminated media type. */
typedef struct sluice_probe_input {
    const uint8_t *bytes;
    size_t length;
    const char *media_type;
} sluice_probe_input;

/* What sluice_leak_probe found. */
typedef enum sluice_probe_status {
    SLUICE_PROBE_MEASURED = 0,     /* *growth holds the median heap growth of five trials */
    SLUICE_PROBE_UNAVAILABLE = 1,  /* the C library does not report its heap, or fork/pipe failed */
    SLUICE_PROBE_CRASHED = 2,      /* the child died of signal *signal_number */
    SLUICE_PROBE_TIMED_OUT = 3     /* the child did not answer within the timeout and was killed */
} sluice_probe_status;

/* Bytes the C heap has handed out and not had back (all arenas, mmapped blocks included); 0 where the C
   library cannot tell. */
int64_t sluice_heap_bytes_in_use(void);

/* Bytes the C heap holds from the system (all arenas' sbrk and mmap'd heaps plus mmapped blocks); 0 where
   the C library cannot tell. */
int64_t sluice_heap_bytes_from_system(void);

/* Whether the process's malloc is the one mallinfo2 describes: 1 when a 1 MiB allocation shows in the
   count, 0 under another allocator (a sanitizer's runtime, jemalloc, tcmalloc), another C library, or
   when fork fails. Measured once, in a forked child where no other thread can hide the block; the
   answer is kept for the life of the process. */
int sluice_heap_tracks_malloc(void);

/* The measurement behind sluice_heap_tracks_malloc, made afresh in a forked child each call: 1 or 0 as
   there, -1 when fork or wait failed. */
int sluice_heap_measure_tracking(void);

/* Gives the free memory at the top of every arena, and whole free pages inside them, back to the system
   (glibc's malloc_trim(0)); returns whether any was given back. Does nothing elsewhere. */
int sluice_heap_trim(void);

/* Forks; the child calls table->decode on each input and gives every buffer back through
   table->free_buffer (output and message once each), `calls` times per trial after a warm-up, for five
   trials, and reports the median growth of the heap's in-use bytes. `table` is a sluice_plugin_table. */
sluice_probe_status sluice_leak_probe(const void *table, const sluice_probe_input *inputs, size_t count,
                                      size_t calls, int timeout_ms, int64_t *growth, int *signal_number);

#endif
