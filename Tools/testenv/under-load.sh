#!/usr/bin/env bash
# The whole suite (every tier, with the memory probes) ROUNDS times in a row while every core is kept busy by
# stress-ng: the condition CI really runs in, a machine that other work keeps busy. stress-ng runs one CPU
# worker per core at normal priority for at most the rounds' time limit, is started and stopped by this
# script (by its PID), and never outlives it. Fails on the first failed round; prints each round's result.
#   Tools/testenv/under-load.sh SWIFT [ROUNDS]   (default 3; make test-under-load)
set -euo pipefail
swift="${1:?usage: under-load.sh SWIFT [ROUNDS]}"
rounds="${2:-3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
command -v stress-ng >/dev/null || { echo "under-load: stress-ng is missing (make install installs it)" >&2; exit 2; }
cores="$(nproc)"
# Bounded in time whatever happens to this script: 45 minutes a round.
stress-ng --cpu "$cores" --cpu-method matrixprod --timeout "$((rounds * 2700))s" --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true' EXIT
results=()
for round in $(seq 1 "$rounds"); do
    start=$(date +%s)
    status=0
    SLUICE_TESTENV_SKIP_INSTALL=1 SLUICE_TESTENV_LARGE_FILES=1 "$root/Tools/testenv/run.sh" \
        "$root/Tools/testenv/suite.sh" "$swift" >"$root/.build/under-load-$round.log" 2>&1 || status=$?
    summary="$(grep -E "Test run with" "$root/.build/under-load-$round.log" | sed -E 's/^.*Test run with //' | paste -sd ';' - || true)"
    line="round $round/$rounds under $cores busy cores: exit $status in $(( $(date +%s) - start ))s: ${summary:-no summary}"
    results+=("$line")
    echo "under-load: $line"
    if ((status != 0)); then
        grep -E "✘|error:|failed" "$root/.build/under-load-$round.log" | head -n 40 >&2 || true
        echo "under-load: round $round failed; its log is .build/under-load-$round.log" >&2
        exit 1
    fi
done
printf 'under-load: %s\n' "${results[@]}"
