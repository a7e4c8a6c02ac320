// Typed wrappers for libxml2 APIs that Swift cannot call directly (xmlFree is a global function pointer).
#ifndef SLUICE_CLIBXML2_SHIM_H
#define SLUICE_CLIBXML2_SHIM_H

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

#endif
