#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer (swiftc -sanitize=fuzzer,address) and runs each for
# a while.
#
#   Tools/Fuzz/run.sh [seconds-per-target] [target...]
#
# Default: 60 seconds, every target (the executable targets of Package.swift). Each target starts from
# its seed corpus in Corpus/<name without "Fuzz"> (read only) and keeps what it finds in
# .build/corpus/<name>; crashes, leaks and timeouts are saved in .build/crashes/<name>/ (or
# $FUZZ_CRASH_DIR/<name>/), and the script exits non-zero when a target found one. Replay one with:
# .build/release/FuzzXML .build/crashes/XML/crash-<hash>. libFuzzer's final statistics of each run are
# kept in .build/logs/<name>.log.
# Do not run it while another SwiftPM build uses the machine's cores (the first build rebuilds every
# dependency with the sanitizers).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    # Every fuzzTarget("Name", ...) line of Package.swift, in order.
    mapfile -t targets < <(sed -n 's/^ *fuzzTarget("\([A-Za-z0-9]*\)".*/\1/p' "$here/Package.swift")
fi

# swiftc keeps only the last of several -sanitize flags, and SwiftPM's `--sanitize=fuzzer
# --sanitize=address` passes two in no fixed order: a build would lose either the coverage
# instrumentation or AddressSanitizer. So `--sanitize=fuzzer` (for SwiftPM to leave libFuzzer its
# `main`), then one `-sanitize=fuzzer,address` after it, which wins.
export SWIFT_BACKTRACE=enable=no  # libFuzzer and AddressSanitizer report crashes; the Swift backtracer would only slow them
flags=(-c release --package-path "$here" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)
# SwiftPM keeps the build plan of a path dependency (the Sluice package) in release.yaml and did not see a
# source file added to Sluice's modules until it was removed: planned again each time.
rm -f "$here/.build/release.yaml"
swift build "${flags[@]}"
bin="$(swift build "${flags[@]}" --show-bin-path)"
status=0
for target in "${targets[@]}"; do
    name="${target#Fuzz}"
    seeds="$here/Corpus/$name"
    work="$here/.build/corpus/$name"
    crashes="${FUZZ_CRASH_DIR:-$here/.build/crashes}/$name"
    log="$here/.build/logs/$name.log"
    mkdir -p "$work" "$crashes" "$here/.build/logs"
    echo "== $target: ${seconds}s, corpus $work (seeds $seeds), crashes $crashes"
    if ! "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$seeds" 2> >(tee "$log" >&2); then
        echo "== $target found a problem: see $crashes" >&2
        status=1
    fi
done
exit $status
