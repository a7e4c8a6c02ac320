/* libxml2 2.9.14 push parser: a comment opened as <!--> before the root element is refused when pushed in small
   chunks and accepted whole. cc push_comment_repro.c $(pkg-config --cflags --libs libxml-2.0) -o repro
   ./repro "<!-->x--><a/>" 1    -> whole: accepted; pushed (1): refused (rc 45) */
#include <libxml/parser.h>
#include <stdio.h>
#include <string.h>
static int errors = 0;
static void on_error(void *ctx, const char *msg, ...) { errors++; }
int main(int argc, char **argv) {
    const char *doc = argv[1];
    int n = strlen(doc);
    xmlDocPtr whole = xmlReadMemory(doc, n, NULL, NULL, XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    printf("whole: %s\n", whole ? "accepted" : "refused");
    int sizes[] = {3, 7};
    xmlSetGenericErrorFunc(NULL, on_error);
    xmlParserCtxtPtr ctx = xmlCreatePushParserCtxt(NULL, NULL, NULL, 0, NULL);
    int at = 0, i = 0, rc = 0;
    while (at < n) {
        int size = atoi(argc > 2 ? argv[2] : "0") ? atoi(argv[2]) : sizes[i++ % 2];
        if (at + size > n) size = n - at;
        rc = xmlParseChunk(ctx, doc + at, size, 0);
        at += size;
        if (rc) break;
    }
    if (!rc) rc = xmlParseChunk(ctx, NULL, 0, 1);
    printf("pushed (%s): %s (rc %d, wellFormed %d)\n", argc > 2 ? argv[2] : "3,7", rc == 0 && ctx->wellFormed ? "accepted" : "refused", rc, ctx->wellFormed);
    return 0;
}
