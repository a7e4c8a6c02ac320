#!/usr/bin/env bash
# Runs the whole test suite against the test servers under a sanitizer, with its own build folder:
#   Tools/testenv/sanitize.sh thread    (ThreadSanitizer, .build-tsan)
#   Tools/testenv/sanitize.sh address   (AddressSanitizer with LeakSanitizer, .build-asan)
# A sanitizer report fails the run (halt_on_error): a report in Sluice's code is a bug to fix, never to
# suppress. Suppressions, each for a documented false positive in a library, are in
# Tools/testenv/sanitizers/ (see docs/reliability.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
swift="${SWIFT:-swift}"
kind="${1:?usage: sanitize.sh thread|address}"
case "$kind" in
    thread) scratch="$root/.build-tsan" ;;
    address) scratch="$root/.build-asan" ;;
    *) echo "sanitize.sh: unknown sanitizer $kind (thread or address)" >&2; exit 2 ;;
esac
cd "$root"
# The sanitizer's runtime is linked into the test executable; exporting its symbols lets the plugin
# libraries the tests load (built with the same sanitizer) resolve them.
flags=(--sanitize="$kind" --scratch-path "$scratch" -Xlinker --export-dynamic)
# A clean build each time (checkouts kept): incremental sanitizer builds across a change of a type's stored
# properties have crashed at once on stale objects (docs/reliability.md). SANITIZE_INCREMENTAL=1 keeps the
# previous build.
if [ "${SANITIZE_INCREMENTAL:-0}" != 1 ]; then rm -rf "$scratch/$(uname -m)-unknown-linux-gnu/debug"; fi
"$swift" build --build-tests "${flags[@]}" 2>&1 | tail -n 3
suppressions="$here/sanitizers"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$suppressions/tsan.supp"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp print_suppressions=0"
SLUICE_TESTENV_SKIP_INSTALL=1 SLUICE_TESTENV_LARGE_FILES=1 "$here/run.sh" \
    "$swift" test --skip-build --disable-xctest "${flags[@]}"
