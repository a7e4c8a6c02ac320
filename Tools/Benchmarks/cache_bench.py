"""Runs cache-client in each mode against one nginx location with Cache-Control: max-age=86400 and
prints requests per second, the ratio to the network GET, what came from the cache, and what reached
nginx (requests and bytes, from its access log). Run through Tools/testenv/run.sh (cache.sh does)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

parser = argparse.ArgumentParser()
parser.add_argument("--client-bin", required=True)
parser.add_argument("--requests", type=int, default=20000)
# Memory hits are fast enough that 20,000 of them take tens of milliseconds, a window thread start-up and
# scheduler noise dominate: they are timed over more requests.
parser.add_argument("--memory-requests", type=int, default=200000)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--output", default=None)
args = parser.parse_args()

env = os.environ
log_path = env["SLUICE_NGINX_ACCESS_LOG"]
base = env["SLUICE_HTTP_URL"]


def logged(uri):
    requests, sent = 0, 0
    with open(log_path) as log:
        for line in log:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("uri") == uri:
                requests += 1
                sent += int(entry.get("bytes_sent", 0))
    return requests, sent


def run(mode, concurrency):
    uri = f"/cached/max-age/sample.xml?run={uuid.uuid4()}"
    folder = tempfile.mkdtemp(prefix="sluice-cache-bench-")
    try:
        count = args.memory_requests if mode == "memory" else args.requests
        process = subprocess.run([args.client_bin, mode, base + uri, str(count), str(concurrency), folder],
                                 capture_output=True, text=True, timeout=900)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if process.returncode != 0:
        sys.exit(f"cache-client {mode} failed: {process.stderr.strip()[-300:]}")
    result = json.loads(process.stdout.strip().splitlines()[-1])
    requests, sent = logged(uri)
    return result["operations"] / result["seconds"], result["fromCache"], requests, sent, result["operations"]


lines = ["| concurrency | client | requests/s (median of rounds) | ÷ network GET | served from the cache | requests reaching nginx | bytes from nginx |",
         "|---|---|---|---|---|---|---|"]
for concurrency in (1, 100):
    results = {}
    for _ in range(args.rounds):
        for mode in ("network", "memory", "disk", "urlsession"):
            results.setdefault(mode, []).append(run(mode, concurrency))
    network = sorted(r[0] for r in results["network"])[len(results["network"]) // 2]
    for mode, runs in results.items():
        rate = sorted(r[0] for r in runs)[len(runs) // 2]
        last = runs[-1]
        hits = "n/a" if last[1] < 0 else f"{last[1]:,} of {last[4]:,}"
        lines.append(f"| {concurrency} | {mode} | {rate:,.0f} | {rate / network:.2f}× | {hits} | {last[2]:,} (of {last[4] + 1:,} sent) | {last[3]:,} |")
        print(lines[-1], flush=True)

table = "\n".join(lines)
print(table)
if args.output:
    with open(args.output, "w") as out:
        out.write("# Cache: fresh hits against the network (Tools/Benchmarks/cache.sh)\n\n"
                  "GETs of one 7.7 kB nginx file sent with `Cache-Control: max-age=86400`; each run first sends one GET "
                  f"(not counted), then the counted ones ({args.requests:,}; {args.memory_requests:,} for `memory`). `network` is Sluice without a cache; `memory` and `disk` Sluice "
                  "with `HTTPCache` on a `MemoryCacheStore` or a `DiskCacheStore`; `urlsession` URLSession with a URLCache "
                  "(20 MiB memory, 150 MiB disk). Requests and bytes reaching nginx are read from its access log.\n\n"
                  + table + "\n")
