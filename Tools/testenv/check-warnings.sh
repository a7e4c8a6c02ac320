#!/usr/bin/env bash
# Fails when a build log holds a compiler warning from Sluice's own sources (Modules, Plugins, Tools,
# Tests); warnings from dependencies are not ours to fix.
set -euo pipefail
log=${1:?usage: check-warnings.sh BUILD_LOG}
root=$(cd "$(dirname "$0")/../.." && pwd)
warnings=$(grep -E "^${root}/(Modules|Plugins|Tools|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$warnings" ]; then
    echo "Sluice's sources must build without warnings:" >&2
    echo "$warnings" >&2
    exit 1
fi
