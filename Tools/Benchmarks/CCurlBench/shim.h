// The few libcurl calls the benchmark's minimal Swift client makes that Swift cannot call directly
// (curl_easy_setopt is variadic).
#include <curl/curl.h>

typedef size_t (*bench_data_callback)(char *, size_t, size_t, void *);

static inline void bench_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    curl_easy_setopt(easy, option, value);
}
static inline void bench_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    curl_easy_setopt(easy, option, value);
}
static inline void bench_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    curl_easy_setopt(easy, option, value);
}
static inline void bench_easy_setopt_data_callback(CURL *easy, CURLoption option, bench_data_callback callback) {
    curl_easy_setopt(easy, option, callback);
}
static inline void bench_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    curl_multi_setopt(multi, option, value);
}
static inline void *bench_easy_private(CURL *easy) {
    void *value = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &value);
    return value;
}
static inline void bench_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    curl_share_setopt(share, option, value);
}
