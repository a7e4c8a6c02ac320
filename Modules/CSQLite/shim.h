// SQLite's C API (Debian: libsqlite3-dev), for SluiceCache's disk index.
#ifndef SLUICE_CSQLITE_SHIM_H
#define SLUICE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT, a macro Swift cannot import: SQLite copies a bound value before the call returns.
static inline sqlite3_destructor_type sluice_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
