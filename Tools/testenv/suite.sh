#!/usr/bin/env bash
# The Swift suite and the two memory probes against one set of servers: run through Tools/testenv/run.sh,
# which starts them and exports where they are. Every tier runs (SLUICE_TEST_TIER is cleared), and the run
# fails when any test was skipped: a test that needs a server never passes by not running.
#   Tools/testenv/run.sh Tools/testenv/suite.sh SWIFT [swift test flags...]
set -euo pipefail
swift="${1:?usage: suite.sh SWIFT [flags...]}"
shift
[[ -n "${SLUICE_HTTP_URL:-}" ]] || { echo "suite.sh: run me through Tools/testenv/run.sh" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
log="$root/.build/suite.log"
bin="$("$swift" build --show-bin-path)"
start=$(date +%s)
status=0
env -u SLUICE_TEST_TIER "$swift" test --skip-build --disable-xctest "$@" 2>&1 | tee "$log" || status=$?
echo "suite.sh: the suite took $(( $(date +%s) - start ))s"
((status == 0)) || exit "$status"
if grep -E "^.{0,4}(Test|Suite) .* skipped" "$log" >/dev/null; then
    grep -E "^.{0,4}(Test|Suite) .* skipped" "$log" | head -n 20 >&2
    echo "suite.sh: tests were skipped in the full run; every tier must run here" >&2
    exit 1
fi
"$root/Tools/testenv/check-multipart-memory.sh" "$bin/sluice-multipart-probe"
"$root/Tools/testenv/check-async-upload-memory.sh" "$bin/sluice-async-upload-probe"
echo "suite.sh: suite and memory probes took $(( $(date +%s) - start ))s"
