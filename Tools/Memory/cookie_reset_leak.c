/* libcurl 7.88's curl_easy_reset leaks the CURLOPT_COOKIEFILE list of a handle (one curl_slist node
   and its string per reset after the option was set). The modes show each arrangement on one handle that
   shares its cookie store, against httpbin, and whether the store still sends its cookies afterwards:
     file   COOKIEFILE "" before every transfer      (leaks one node per reset)
     once   COOKIEFILE "" before the first only       (leaks one node per handle; Sluice's old way)
     clear  as once, and COOKIEFILE NULL before each reset (no leak; the engine and store stay; Sluice's way)
     share  the share alone, no COOKIEFILE            (no leak, but no cookie engine either)
     jar    COOKIELIST "RELOAD" instead               (no cookie engine)
   cc -O1 -g -o cookie_reset_leak Tools/Memory/cookie_reset_leak.c -lcurl
   valgrind --leak-check=full ./cookie_reset_leak "$SLUICE_HTTPBIN_URL" clear 100 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static size_t sink(char *p, size_t s, size_t n, void *u) { fwrite(p, s, n, (FILE *)u); return s * n; }
int main(int argc, char **argv) {
    const char *base = argv[1]; int file = strcmp(argv[2], "file") == 0; int once = strcmp(argv[2], "once") == 0; int jar = strcmp(argv[2], "jar") == 0; int clear = strcmp(argv[2], "clear") == 0; int rounds = atoi(argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLSH *share = curl_share_init();
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    CURL *easy = curl_easy_init();
    char url[512];
    FILE *out = fopen("/dev/null", "w");
    for (int i = 0; i < rounds; i++) {
        if (clear && i > 0) curl_easy_setopt(easy, CURLOPT_COOKIEFILE, NULL);
        curl_easy_reset(easy);
        snprintf(url, sizeof url, "%s/cookies/set?round=%d", base, i);
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_SHARE, share);
        if (file || ((once || clear) && i == 0)) curl_easy_setopt(easy, CURLOPT_COOKIEFILE, "");
        if (jar) curl_easy_setopt(easy, CURLOPT_COOKIELIST, "RELOAD");
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, out);
        curl_easy_perform(easy);
    }
    /* Does the store send the cookie back? */
    if (clear) curl_easy_setopt(easy, CURLOPT_COOKIEFILE, NULL);
    curl_easy_reset(easy);
    snprintf(url, sizeof url, "%s/cookies", base);
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_SHARE, share);
    if (file) curl_easy_setopt(easy, CURLOPT_COOKIEFILE, "");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, stdout);
    curl_easy_perform(easy);
    curl_easy_cleanup(easy);
    curl_share_cleanup(share);
    curl_global_cleanup();
    fclose(out);
    return 0;
}
