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
# Two kinds of test run after the others, each group in a process of its own:
# - those whose behaviour is sub-second time (an idle timeout watched on its own 50 ms schedule, timeouts
#   while suspended): beside the other suites' hundreds of busy threads, a sleeping engine thread was seen to
#   wake a second late, so they run where only the machine's own load can delay them;
# - those that measure the whole process (a 1 GiB transfer's peak memory, what is in the temporary folder):
#   beside other tests they would count those tests' memory and files as their own, so each runs alone.
timing='TransportSuites/(FaultInjectionTests|TimeoutAndFailureTests)/'
memory='TransportSuites/LargeTransferTests/'
files='TransportSuites/SessionManagerTests/failedDownload\(\)'
start=$(date +%s)
status=0
run() { env -u SLUICE_TEST_TIER "$swift" test --skip-build --disable-xctest "$@" 2>&1 | tee -a "$log"; }
: >"$log"
run --skip "$timing|$memory|$files" "$@" || status=$?
echo "suite.sh: the suites side by side took $(( $(date +%s) - start ))s"
for group in "$timing" "$memory" "$files"; do
    ((status == 0)) || exit "$status"
    run --filter "$group" "$@" || status=$?
done
echo "suite.sh: the suite, with the tests that run after it, took $(( $(date +%s) - start ))s"
((status == 0)) || exit "$status"
if grep -E "^➜ (Test|Suite) .* skipped" "$log" >/dev/null; then
    grep -E "^➜ (Test|Suite) .* skipped" "$log" | head -n 20 >&2
    echo "suite.sh: tests were skipped in the full run; every tier must run here" >&2
    exit 1
fi
"$root/Tools/testenv/check-multipart-memory.sh" "$bin/sluice-multipart-probe"
"$root/Tools/testenv/check-async-upload-memory.sh" "$bin/sluice-async-upload-probe"
echo "suite.sh: suite and memory probes took $(( $(date +%s) - start ))s"
