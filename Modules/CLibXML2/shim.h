// Typed wrappers for libxml2 APIs that Swift cannot call directly (xmlFree is a global function pointer;
// the generic error handler is variadic).
#ifndef SLUICE_CLIBXML2_SHIM_H
#define SLUICE_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// libxml2's encoding.h includes the system ICU's headers when libxml2 was built with ICU. Their
// UErrorCode clashes with the ICU that Foundation bundles (_FoundationICU) in any Swift module that
// imports both, and fails clean builds. Sluice uses no libxml2 ICU API; the only type that changes is
// xmlCharEncodingHandler (its trailing ICU converters), which Sluice never allocates or reads.
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlreader.h>
#include <libxml/SAX2.h>
#include <stdarg.h>
#include <stdio.h>

static inline void sluice_xmlFree(void *pointer) {
    xmlFree(pointer);
}

static inline const char *sluice_xml_version(void) {
    return xmlParserVersion;
}

static inline void sluice_xml_discard(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void sluice_xml_discard_structured(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}

/// Where libxml2's generic error messages go while a route is in place: `sink(owner, message)`, once
/// per message libxml2 formats (at most 1023 bytes of it, NUL-terminated). `sink` NULL discards them.
typedef struct {
    void (*sink)(void *owner, const char *message);
    void *owner;
} sluice_xml_message_route;

/// This thread's generic and structured error handlers and their contexts (a threaded libxml2 keeps
/// them per thread), as sluice_xml_route_errors found them.
typedef struct {
    xmlGenericErrorFunc generic;
    void *generic_context;
    xmlStructuredErrorFunc structured;
    void *structured_context;
} sluice_xml_error_handlers;

/// The generic handler of a route: formats the message (libxml2 passes printf-style arguments, which
/// Swift cannot receive) and hands it to the route's sink.
static inline void sluice_xml_route_message(void *context, const char *format, ...) {
    sluice_xml_message_route *route = (sluice_xml_message_route *)context;
    if (route == NULL || route->sink == NULL || format == NULL) {
        return;
    }
    char message[1024];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    if (length < 0) {
        return;
    }
    route->sink(route->owner, message);
}

/// Sends this thread's libxml2 errors that no parser context catches to `route` (generic messages:
/// the encoding layer's, xmlParseChunk's, XPath's) and to `structured(structured_context, error)`
/// (errors raised without a context, such as the encoding converter's), until
/// sluice_xml_restore_error_handlers; returns what to restore. A NULL `route` or `structured` discards
/// that channel. Call it on the thread that then calls into libxml2, around each call.
static inline sluice_xml_error_handlers sluice_xml_route_errors(
    sluice_xml_message_route *route, xmlStructuredErrorFunc structured, void *structured_context) {
    sluice_xml_error_handlers previous = {
        *__xmlGenericError(), *__xmlGenericErrorContext(), *__xmlStructuredError(), *__xmlStructuredErrorContext()
    };
    xmlSetGenericErrorFunc(route, route != NULL ? sluice_xml_route_message : sluice_xml_discard);
    xmlSetStructuredErrorFunc(structured_context, structured != NULL ? structured : sluice_xml_discard_structured);
    return previous;
}

/// Puts back this thread's handlers as sluice_xml_route_errors found them.
static inline void sluice_xml_restore_error_handlers(sluice_xml_error_handlers previous) {
    xmlSetGenericErrorFunc(previous.generic_context, previous.generic);
    xmlSetStructuredErrorFunc(previous.structured_context, previous.structured);
}

#endif
