#!/usr/bin/env python3
"""Runs the generated httpbin client over three OpenAPI transports in one run and prints ratios.

Transports: SluiceClientTransport (on a SessionManager), swift-openapi-async-http-client and
swift-openapi-urlsession. Scenarios: the getArgs operation (a small JSON answer, decoded) at concurrency
1 and 100, and getBytes of 1 MiB (the body read as it arrives) at concurrency 10. nginx answers both
(/openapi/get and /openapi/bytes/1048576 under SLUICE_HTTP_URL), so the server is not what is measured.

Each run is its own process under /usr/bin/time (CPU time, peak RSS). Every scenario runs in rounds, every
transport once per round in turn; a transport's ratio to Sluice is the median of its per-round ratios.
"""
import argparse
import os
import statistics
import sys

import timed_run

parser = argparse.ArgumentParser()
parser.add_argument("--client-bin", required=True)
parser.add_argument("--output", default="results/openapi.md")
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--quick", action="store_true", help="fewer requests, for a smoke run")
args = parser.parse_args()

server = os.environ["SLUICE_HTTP_URL"] + "/openapi"
scale = 10 if args.quick else 1
SCENARIOS = [
    ("getArgs (small JSON), concurrency 1", "get", 5000 // scale, 1, "req/s"),
    ("getArgs (small JSON), concurrency 100", "get", 20000 // scale, 100, "req/s"),
    ("getBytes 1 MiB streamed, concurrency 10", "bytes", 2000 // scale, 10, "MB/s"),
]
TRANSPORTS = [("SluiceClientTransport", "sluice"), ("swift-openapi-async-http-client", "ahc"),
              ("swift-openapi-urlsession", "urlsession")]


def run(name, scenario, requests, concurrency):
    return timed_run.run(name, [args.client_bin, name, scenario, server, str(requests), str(concurrency)])


rate = timed_run.rate


rows = []
for title, scenario, requests, concurrency, unit in SCENARIOS:
    measured = {label: [] for label, _ in TRANSPORTS}
    for round_number in range(args.rounds):
        for label, name in TRANSPORTS:
            print(f"  {title} (round {round_number + 1}/{args.rounds}): {label} ...", file=sys.stderr, flush=True)
            measured[label].append(run(name, scenario, requests, concurrency))
    sluice = [rate(r, unit) for r in measured["SluiceClientTransport"]]
    for label, _ in TRANSPORTS:
        results = measured[label]
        rates = [rate(r, unit) for r in results]
        valid = [r for r in rates if r]
        if not valid:
            rows.append(f"| {title} | {label} | n/a: {results[0].get('error', '')} | | | |")
            continue
        over = statistics.median([s / r for s, r in zip(sluice, rates) if s and r]) if label != "SluiceClientTransport" else None
        cpu = statistics.median([r["cpu"] / max(r["operations"], 1) * 1e6 for r in results if "error" not in r])
        rss = max(r["rss_mib"] for r in results if "error" not in r)
        spread = f" ({min(valid):,.0f}–{max(valid):,.0f})" if len(valid) > 1 else ""
        rows.append(f"| {title} | {label} | {statistics.median(valid):,.0f} {unit}{spread} | "
                    f"{'' if over is None else f'{over:.2f}×'} | {cpu:,.0f} µs | {rss:.1f} MiB |")

table = "\n".join(["| scenario | transport | rate (median; range) | Sluice ÷ transport | CPU per operation | peak RSS |",
                   "|---|---|---|---|---|---|"] + rows)
print(table)
os.makedirs(os.path.dirname(args.output), exist_ok=True)
with open(args.output, "w") as out:
    out.write(table + "\n")
