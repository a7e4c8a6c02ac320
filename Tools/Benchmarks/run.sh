#!/usr/bin/env bash
# Runs every benchmark in one run and prints the ratio of each peer to Sluice.
# Raw results go to Tools/Benchmarks/results/latest.md.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
rm -f .build/release.yaml  # planned again: a stale plan missed files added to Sluice (see transport.sh)
swift package --disable-sandbox benchmark --no-progress --format markdown --path stdout "$@" \
    | grep -v -e '^Warning' -e '^Note: skipping' > results/latest.md
python3 ratios.py < results/latest.md
