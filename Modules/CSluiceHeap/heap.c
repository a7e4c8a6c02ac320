#include "sluice_heap.h"
#include "sluice_plugin.h"

#include <limits.h> /* defines __GLIBC__ on glibc */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define SLUICE_HAVE_MALLINFO2 1
static int64_t heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.uordblks + info.hblkhd);
}
int64_t sluice_heap_bytes_from_system(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.arena + info.hblkhd);
}
int sluice_heap_trim(void) { return malloc_trim(0); }
#else
int64_t sluice_heap_bytes_from_system(void) { return 0; }
int sluice_heap_trim(void) { return 0; }
#define SLUICE_HAVE_MALLINFO2 0
static int64_t heap_in_use(void) { return 0; }
#endif

int64_t sluice_heap_bytes_in_use(void) { return heap_in_use(); }

/* Whether a 1 MiB block shows in the count. Only exact where no other thread allocates or frees between
   the two readings: it runs in a forked child. */
static int block_shows_in_count(void) {
    int64_t before = heap_in_use();
    volatile char *block = malloc(1 << 20);
    if (!block) return 0;
    block[0] = 1;
    block[(1 << 20) - 1] = 1;
    int64_t after = heap_in_use();
    free((void *)block);
    return after - before >= (1 << 20);
}

/* 0 unknown, 1 tracks, 2 does not. The allocator cannot change while the process runs, so the first
   answer is kept; two threads that ask at once may both measure, and agree. */
static int tracks_answer;

int sluice_heap_measure_tracking(void) {
    if (!SLUICE_HAVE_MALLINFO2) return 0;
    /* Measured in a child: in this process other threads free memory between the readings and can hide
       the block (a busy test run did, three tries in a row). */
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) _exit(block_shows_in_count() ? 0 : 1);
    int wait_status = 0;
    while (waitpid(pid, &wait_status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

int sluice_heap_tracks_malloc(void) {
    int known = __atomic_load_n(&tracks_answer, __ATOMIC_ACQUIRE);
    if (known) return known == 1;
    int tracks = sluice_heap_measure_tracking();
    if (tracks < 0) return 0; /* not kept: a later call may fork */
    __atomic_store_n(&tracks_answer, tracks ? 1 : 2, __ATOMIC_RELEASE);
    return tracks;
}

static void run_once(const sluice_plugin_table *table, const sluice_probe_input *inputs, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint8_t *output = NULL;
        size_t length = 0;
        char *message = NULL;
        table->decode(inputs[i].bytes, inputs[i].length, inputs[i].media_type, &output, &length, &message);
        if (output) table->free_buffer(output);
        if (message && (void *)message != (void *)output) table->free_buffer(message);
    }
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void child(const sluice_plugin_table *table, const sluice_probe_input *inputs, size_t count, size_t calls, int fd) {
    size_t warm = calls / 10 ? calls / 10 : 1;
    for (size_t i = 0; i < warm; i++) run_once(table, inputs, count);
    int64_t growths[5];
    for (int trial = 0; trial < 5; trial++) {
        int64_t before = heap_in_use();
        for (size_t i = 0; i < calls; i++) run_once(table, inputs, count);
        growths[trial] = heap_in_use() - before;
    }
    qsort(growths, 5, sizeof growths[0], compare);
    ssize_t written = write(fd, &growths[2], sizeof growths[2]);
    _exit(written == (ssize_t)sizeof growths[2] ? 0 : 1);
}

sluice_probe_status sluice_leak_probe(const void *table, const sluice_probe_input *inputs, size_t count,
                                      size_t calls, int timeout_ms, int64_t *growth, int *signal_number) {
    if (!sluice_heap_tracks_malloc()) return SLUICE_PROBE_UNAVAILABLE;
    int fds[2];
    if (pipe(fds) != 0) return SLUICE_PROBE_UNAVAILABLE;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return SLUICE_PROBE_UNAVAILABLE;
    }
    if (pid == 0) {
        close(fds[0]);
        child((const sluice_plugin_table *)table, inputs, count, calls, fds[1]);
    }
    close(fds[1]);
    struct pollfd ready = {fds[0], POLLIN, 0};
    int polled;
    do { polled = poll(&ready, 1, timeout_ms); } while (polled < 0 && errno == EINTR);
    sluice_probe_status status;
    if (polled <= 0) {
        kill(pid, SIGKILL);
        status = SLUICE_PROBE_TIMED_OUT;
    } else {
        ssize_t got = read(fds[0], growth, sizeof *growth);
        status = got == (ssize_t)sizeof *growth ? SLUICE_PROBE_MEASURED : SLUICE_PROBE_CRASHED;
    }
    close(fds[0]);
    int wait_status = 0;
    while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {}
    if (status == SLUICE_PROBE_CRASHED) *signal_number = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    return status;
}
