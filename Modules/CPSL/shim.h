// libpsl's C API (Debian: libpsl-dev), the public-suffix list libcurl also uses, for SluiceCookies'
// Domain attribute checks.
#ifndef SLUICE_CPSL_SHIM_H
#define SLUICE_CPSL_SHIM_H

#include <libpsl.h>

/// PSL_TYPE_ANY, a macro Swift cannot import: both the ICANN and the private sections of the list.
static inline int sluice_psl_type_any(void) { return PSL_TYPE_ANY; }

#endif
