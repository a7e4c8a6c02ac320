#!/usr/bin/env bash
# The cache benchmark in one command: builds cache-client (release), starts the test servers, runs Sluice
# without a cache, with a memory and a disk cache, and URLSession with a URLCache, at concurrency 1 and 100,
# and prints a table of ratios (also written to Tools/Benchmarks/results/cache.md).
#   Tools/Benchmarks/cache.sh [--requests N] [--rounds N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -f .build/release.yaml
swift build -c release --product cache-client 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)
mkdir -p results
"$here/../testenv/run.sh" python3 "$here/cache_bench.py" --client-bin "$bin/cache-client" --output "$here/results/cache.md" "$@"
