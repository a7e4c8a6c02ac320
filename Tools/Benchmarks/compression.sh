#!/usr/bin/env bash
# Inflate throughput of Sluice's gzip, brotli and zstd decoders against gzip(1), brotli(1) and zstd(1) on
# the same files, as ratios. The input is 1 GiB of words mixed from a small vocabulary, compressed once
# with each tool at its default level.
#   Tools/Benchmarks/compression.sh [gzip|br|zstd ...]   (default all three)
# SWIFT names the swift command (default: swift), for a wrapper that serializes builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
swift=${SWIFT:-swift}
codings=("$@")
[[ ${#codings[@]} -gt 0 ]] || codings=(gzip br zstd)
rm -f .build/release.yaml  # planned again: a stale plan missed files added to Sluice (see transport.sh)
$swift build -c release --product content-inflate 2>&1 | tail -n 1
bin=$($swift build -c release --show-bin-path)
mkdir -p results .build/compression
plain=.build/compression/body
if [[ ! -s $plain ]]; then
    python3 - "$plain" <<'PY'
import random, sys
words = [w.encode() for w in "sluice streams bytes through libcurl zlib brotli and zstd with bounded memory".split()]
rng = random.Random(7)
with open(sys.argv[1], "wb") as out:
    for _ in range(1024):
        block = b" ".join(rng.choice(words) for _ in range(120_000))[: 1 << 20]
        out.write(block.ljust(1 << 20, b"."))
PY
fi
for coding in "${codings[@]}"; do
    case $coding in
        gzip) [[ -s $plain.gz ]] || gzip -6 -c "$plain" > "$plain.gz" ;;
        br) [[ -s $plain.br ]] || brotli -q 5 -c "$plain" > "$plain.br" ;;
        zstd) [[ -s $plain.zst ]] || zstd -3 -q -c "$plain" > "$plain.zst" ;;
        *) echo "unknown coding $coding" >&2; exit 2 ;;
    esac
done
python3 - "$plain" "$bin/content-inflate" "${codings[@]}" <<'PY' | tee results/compression.md
import os, subprocess, sys, time
plain, inflate, codings = sys.argv[1], sys.argv[2], sys.argv[3:]
size = os.path.getsize(plain)
tools = {"gzip": (["gzip", "-dc"], ".gz"), "br": (["brotli", "-dc"], ".br"), "zstd": (["zstd", "-dcq"], ".zst")}

def best(command):
    fastest = None
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        elapsed = time.perf_counter() - started
        fastest = elapsed if fastest is None else min(fastest, elapsed)
    return fastest

print("| coding | compressed | tool | tool MB/s | Sluice MB/s | Sluice ÷ tool |")
print("|---|---|---|---|---|---|")
for coding in codings:
    command, suffix = tools[coding]
    source = plain + suffix
    t = best(command + [source])
    s = best([inflate, coding, source])
    print(f"| {coding} | {os.path.getsize(source) / 1e6:,.1f} MB | `{' '.join(command)}` | {size / t / 1e6:,.0f} | {size / s / 1e6:,.0f} | {t / s:.2f}× |")
PY
