// libbrotli's decoder and encoder (Debian: libbrotli-dev).
#ifndef SLUICE_CBROTLI_SHIM_H
#define SLUICE_CBROTLI_SHIM_H

#include <brotli/decode.h>
#include <brotli/encode.h>

#endif
