// Typed wrappers for zlib's macro APIs (deflateInit2 and inflateInit2 are macros that pass the
// library version and the stream size).
#ifndef SLUICE_CZLIB_SHIM_H
#define SLUICE_CZLIB_SHIM_H

#include <zlib.h>

static inline int sluice_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel,
                                      int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}
static inline int sluice_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
