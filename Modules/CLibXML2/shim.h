// Typed wrappers for libxml2 APIs that Swift cannot call directly (xmlFree is a global function pointer).
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

/// This thread's generic error handler and its context (libxml2 keeps them per thread).
typedef struct {
    xmlGenericErrorFunc handler;
    void *context;
} sluice_xml_generic_errors;

/// Stops libxml2 printing generic errors on this thread (XPath prints some there unconditionally);
/// returns what to restore.
static inline sluice_xml_generic_errors sluice_xml_silence_generic_errors(void) {
    sluice_xml_generic_errors previous = { *__xmlGenericError(), *__xmlGenericErrorContext() };
    xmlSetGenericErrorFunc(NULL, sluice_xml_discard);
    return previous;
}

static inline void sluice_xml_restore_generic_errors(sluice_xml_generic_errors previous) {
    xmlSetGenericErrorFunc(previous.context, previous.handler);
}

#endif
