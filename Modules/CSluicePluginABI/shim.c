/* The plugin ABI is header-only; this file gives the target a translation unit. */
#include "sluice_plugin.h"
