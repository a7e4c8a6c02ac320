#!/usr/bin/env bash
# A 2 GiB file uploaded as multipart/form-data to nginx: Sluice (SluiceMultipart over SluiceTransport)
# against curl -F on the same file, in one run: MB/s, peak RSS and the ratio.
#   Tools/Benchmarks/multipart.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -f .build/release.yaml  # planned again: a stale plan missed files added to Sluice (see transport.sh)
swift build -c release --product multipart-upload 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)
mkdir -p results .build/multipart
"$here/../testenv/run.sh" python3 - "$bin/multipart-upload" "$here/.build/multipart/2g.bin" <<'PY' | tee results/multipart.md
import json, os, shutil, subprocess, sys, tempfile
client, big = sys.argv[1], sys.argv[2]
source = os.path.join(os.environ["SLUICE_WWW_DIR"], "files", "1g.bin")
if not os.path.exists(big) or os.path.getsize(big) != 2 << 30:
    with open(big, "wb") as out:
        for _ in range(2):
            with open(source, "rb") as part:
                shutil.copyfileobj(part, out, 1 << 20)
url = os.environ["SLUICE_HTTP_URL"] + "/upload"
commands = {
    "curl -F": ["curl", "-sS", "-o", "/dev/null", "-F", f"file=@{big}", url, "-w",
                '{"operations": 1, "bytes": %{size_upload}, "seconds": %{time_total}, "status": %{http_code}}\\n'],
    "Sluice": [client, url, big],
}

def run(command):
    with tempfile.TemporaryDirectory() as scratch:
        timing = os.path.join(scratch, "time")
        done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", timing] + command,
                              capture_output=True, text=True, timeout=900, check=True)
        user, system, rss = open(timing).read().split()[-3:]
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert result["status"] == 200, result
        result.update(cpu=float(user) + float(system), rss=int(rss) / 1024)
        return result

best = {}
for _ in range(2):
    for name, command in commands.items():
        result = run(command)
        if name not in best or result["seconds"] < best[name]["seconds"]:
            best[name] = result
base = best["curl -F"]
print("| client | bytes sent | seconds (best of 2) | MB/s | CPU s | peak RSS MiB | ÷ curl -F |")
print("|---|---|---|---|---|---|---|")
for name, result in best.items():
    rate = result["bytes"] / result["seconds"] / 1e6
    print(f"| {name} | {result['bytes']:,} | {result['seconds']:.2f} | {rate:,.0f} | {result['cpu']:.2f} "
          f"| {result['rss']:.1f} | {base['seconds'] / result['seconds']:.2f}× |")
PY
