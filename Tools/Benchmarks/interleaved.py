"""Interleaved rounds of small GETs: the C program on libcurl's multi API, then each given build of
transport-client, in turn, round after round, so every build meets the same machine states. For A/B
comparisons of library changes: build transport-client, copy it aside, change, build again.

    Tools/testenv/run.sh python3 Tools/Benchmarks/interleaved.py [--rounds N] [--requests N]
        [--concurrency N] [--https] NAME=BINARY [NAME=BINARY ...]

A NAME starting with "min" runs the binary's Swift minimum (client `minimal`), one starting with
"exec" Sluice on its engine executor (`sluice-executor`), one starting with "inst" Sluice with the tracing
and metrics layers and no backend (`sluice-instrumented`), one starting with "pass" Sluice with three
layers that only pass requests on (`sluice-passthrough`), any other Sluice (`sluice`). Prints each
round, then per build: the median rate, the median of the per-round ratios to the C program, CPU per
request (user + system, /usr/bin/time) and the engine thread's own CPU per request (from the
client's per-thread times; 0 for the C program, which has one thread).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=8)
parser.add_argument("--requests", type=int, default=50000)
parser.add_argument("--concurrency", type=int, default=100)
parser.add_argument("--https", action="store_true", help="HTTPS (HTTP/2 where the server offers it)")
parser.add_argument("--c-bin", default=os.path.join(here, ".build", "curl_multi_bench"))
parser.add_argument("builds", nargs="+", metavar="NAME=BINARY")
args = parser.parse_args()

env = os.environ
url = (env["SLUICE_HTTPS_URL"] if args.https else env["SLUICE_HTTP_URL"]) + "/status"
extra = [env["SLUICE_CA_FILE"]] if args.https else []
counts = [url, str(args.requests), str(args.concurrency)] + extra


def run(command):
    with tempfile.NamedTemporaryFile() as timing:
        process = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", timing.name] + command,
                                 capture_output=True, text=True, timeout=900)
        if process.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {process.stderr.strip()[-300:]}")
        result = json.loads(process.stdout.strip().splitlines()[-1])
        user, system = open(timing.name).read().split()[-2:]
    engine = 0.0
    for line in process.stderr.splitlines():
        if line.startswith("threads:"):
            for part in line.split()[1:]:
                name, _, seconds = part.rpartition("=")
                if "eng" in name:
                    engine += float(seconds)
    operations = result["operations"]
    return (operations / result["seconds"], (float(user) + float(system)) / operations * 1e6,
            engine / operations * 1e6)


builds = [item.split("=", 1) for item in args.builds]
results = {"C": []}
for name, _ in builds:
    results[name] = []
for round_number in range(args.rounds):
    results["C"].append(run([args.c_bin, "get"] + counts))
    for name, binary in builds:
        prefixes = {"min": "minimal", "exec": "sluice-executor", "inst": "sluice-instrumented", "pass": "sluice-passthrough"}
        client = next((c for p, c in prefixes.items() if name.startswith(p)), "sluice")
        results[name].append(run([binary, client, "get"] + counts))
    print(f"round {round_number + 1}: " + "  ".join(
        f"{name} {values[-1][0]:,.0f}/s {values[-1][1]:.1f} µs" for name, values in results.items()), flush=True)

for name, values in results.items():
    ratios = [value[0] / c[0] for value, c in zip(values, results["C"])]
    print(f"{name:12s} {statistics.median(v[0] for v in values):>9,.0f} req/s  ÷ C {statistics.median(ratios):.3f}  "
          f"CPU {statistics.median(v[1] for v in values):5.1f} µs  engine thread {statistics.median(v[2] for v in values):5.1f} µs")
