#!/usr/bin/env bash
# Inflate throughput of Sluice's gzip decoder against gzip(1) on the same file, as a ratio.
# The input is 1 GiB of the test environment's random bytes mixed with text, compressed once.
#   Tools/Benchmarks/gzip.sh
# SWIFT names the swift command (default: swift), for a wrapper that serializes builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
swift=${SWIFT:-swift}
rm -f .build/release.yaml  # planned again: a stale plan missed files added to Sluice (see transport.sh)
$swift build -c release --product gzip-inflate 2>&1 | tail -n 1
bin=$($swift build -c release --show-bin-path)
mkdir -p results .build/gzip
input=.build/gzip/body.gz
if [[ ! -s $input ]]; then
    python3 - "$input" <<'PY'
import gzip, random, sys
words = [w.encode() for w in "sluice streams bytes through libcurl and zlib with bounded memory".split()]
rng = random.Random(7)
with gzip.open(sys.argv[1], "wb", compresslevel=6) as out:
    for _ in range(1024):
        block = b" ".join(rng.choice(words) for _ in range(120_000))[: 1 << 20]
        out.write(block.ljust(1 << 20, b"."))
PY
fi
python3 - "$input" "$bin/gzip-inflate" <<'PY' | tee results/gzip.md
import subprocess, sys, time
source, inflate = sys.argv[1], sys.argv[2]
size = 1 << 30

def best(command):
    fastest = None
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        elapsed = time.perf_counter() - started
        fastest = elapsed if fastest is None else min(fastest, elapsed)
    return fastest

g = best(["gzip", "-dc", source])
s = best([inflate, source])
print("| decoder | seconds (best of 3) | MB/s | ÷ gzip -dc |")
print("|---|---|---|---|")
print(f"| gzip -dc | {g:.2f} | {size / g / 1e6:,.0f} | 1.00× |")
print(f"| Sluice GzipContentCoding | {s:.2f} | {size / s / 1e6:,.0f} | {g / s:.2f}× |")
PY
