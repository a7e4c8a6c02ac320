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
# Tests that measure the whole process (its peak memory, what is in the temporary folder) run after the
# others, alone in a process of their own: run beside the other suites they would count those suites' memory
# and files as their own.
alone='TransportSuites/LargeTransferTests/|TransportSuites/SessionManagerTests/failedDownload\(\)'
start=$(date +%s)
status=0
env -u SLUICE_TEST_TIER "$swift" test --skip-build --disable-xctest --skip "$alone" "$@" 2>&1 | tee "$log" || status=$?
echo "suite.sh: the suite took $(( $(date +%s) - start ))s"
((status == 0)) || exit "$status"
env -u SLUICE_TEST_TIER "$swift" test --skip-build --disable-xctest --filter "$alone" "$@" 2>&1 | tee -a "$log" || status=$?
echo "suite.sh: the suite and the tests that run alone took $(( $(date +%s) - start ))s"
((status == 0)) || exit "$status"
if grep -E "^.{0,4}(Test|Suite) .* skipped" "$log" >/dev/null; then
    grep -E "^.{0,4}(Test|Suite) .* skipped" "$log" | head -n 20 >&2
    echo "suite.sh: tests were skipped in the full run; every tier must run here" >&2
    exit 1
fi
"$root/Tools/testenv/check-multipart-memory.sh" "$bin/sluice-multipart-probe"
"$root/Tools/testenv/check-async-upload-memory.sh" "$bin/sluice-async-upload-probe"
echo "suite.sh: suite and memory probes took $(( $(date +%s) - start ))s"
