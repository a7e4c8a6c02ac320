#!/usr/bin/env bash
# Builds a new user's first program again (Tests/FirstHourProgram: every getting-started call in one
# function) and fails when the compiler crashes or takes longer than the limit. Swift 6.3's compiler has
# crashed, or run for many minutes, on such programs (docs/errors.md); this keeps Sluice's API and its
# documented patterns clear of that.
#   Tools/testenv/check-compile-time.sh [seconds]   (default 120)
set -euo pipefail
swift="${SWIFT:-swift}"
limit="${1:-120}"
source="Tests/FirstHourProgram/FirstHourProgram.swift"
touch "$source"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
timeout "$limit" "$swift" build --product sluice-first-hour >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    tail -n 20 "$log" >&2
    if [ "$status" -eq 124 ]; then
        echo "check-compile-time: $source took more than ${limit}s to build" >&2
    else
        echo "check-compile-time: $source did not build (exit $status)" >&2
    fi
    exit 1
fi
echo "check-compile-time: the first-hour program built in $(( $(date +%s) - start ))s (limit ${limit}s)"
