/*
 * The practical limit for Sluice's transport benchmarks: libcurl's multi interface driven directly
 * from C, with the same settings Sluice uses (keep-alive, HTTP/2 multiplexing over TLS, no content
 * decoding).
 *
 *   curl_multi_bench get URL REQUESTS CONCURRENCY [CA_FILE]   small GETs; prints requests/s
 *   curl_multi_bench download URL PATH [CA_FILE]              one GET written to PATH; prints MB/s
 *   curl_multi_bench upload URL PATH [CA_FILE]                one PUT of PATH's bytes; prints MB/s
 *
 * The last line printed is JSON: {"operations": N, "bytes": B, "seconds": S}.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct sink { size_t bytes; FILE *file; };

static size_t on_write(char *data, size_t size, size_t count, void *context) {
    struct sink *sink = context;
    size_t length = size * count;
    sink->bytes += length;
    if (sink->file && fwrite(data, 1, length, sink->file) != length) return 0;
    return length;
}

static CURL *make_easy(const char *url, const char *ca, struct sink *sink) {
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, sink);
    if (ca) curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
    return easy;
}

static int run_gets(const char *url, long total, long concurrency, const char *ca) {
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency);
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    struct sink sink = {0, NULL};
    long started = 0, finished = 0;
    double begin = now();
    for (; started < concurrency && started < total; started++)
        curl_multi_add_handle(multi, make_easy(url, ca, &sink));
    int running = 0;
    while (finished < total) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            if (message->data.result != CURLE_OK) {
                fprintf(stderr, "request failed: %s\n", curl_easy_strerror(message->data.result));
                return 1;
            }
            curl_multi_remove_handle(multi, easy);
            finished++;
            if (started < total) {
                /* Reuse the handle, as Sluice's pool does. */
                curl_easy_reset(easy);
                curl_easy_cleanup(easy);
                curl_multi_add_handle(multi, make_easy(url, ca, &sink));
                started++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double seconds = now() - begin;
    curl_multi_cleanup(multi);
    printf("{\"operations\": %ld, \"bytes\": %zu, \"seconds\": %f}\n", total, sink.bytes, seconds);
    return 0;
}

static int run_transfer(const char *mode, const char *url, const char *path, const char *ca) {
    struct sink sink = {0, NULL};
    FILE *file = NULL;
    CURL *easy;
    double begin = now();
    if (strcmp(mode, "download") == 0) {
        file = fopen(path, "wb");
        setvbuf(file, NULL, _IOFBF, 512 * 1024);
        sink.file = file;
        easy = make_easy(url, ca, &sink);
        /* The same receive buffer Sluice uses for downloads. */
        curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 512L * 1024L);
    } else {
        struct stat info;
        stat(path, &info);
        file = fopen(path, "rb");
        easy = make_easy(url, ca, &sink);
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_READDATA, file);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)info.st_size);
        sink.bytes = 0;
    }
    CURLcode code = curl_easy_perform(easy);
    double seconds = now() - begin;
    curl_off_t moved = 0;
    curl_easy_getinfo(easy, strcmp(mode, "download") == 0 ? CURLINFO_SIZE_DOWNLOAD_T : CURLINFO_SIZE_UPLOAD_T, &moved);
    curl_easy_cleanup(easy);
    if (file) fclose(file);
    if (code != CURLE_OK) {
        fprintf(stderr, "transfer failed: %s\n", curl_easy_strerror(code));
        return 1;
    }
    printf("{\"operations\": 1, \"bytes\": %lld, \"seconds\": %f}\n", (long long)moved, seconds);
    return 0;
}

int main(int argc, char **argv) {
    curl_global_init(CURL_GLOBAL_ALL);
    if (argc >= 5 && strcmp(argv[1], "get") == 0)
        return run_gets(argv[2], atol(argv[3]), atol(argv[4]), argc > 5 ? argv[5] : NULL);
    if (argc >= 4 && (strcmp(argv[1], "download") == 0 || strcmp(argv[1], "upload") == 0))
        return run_transfer(argv[1], argv[2], argv[3], argc > 4 ? argv[4] : NULL);
    fprintf(stderr, "usage: %s get URL REQUESTS CONCURRENCY [CA] | download URL PATH [CA] | upload URL PATH [CA]\n", argv[0]);
    return 2;
}
