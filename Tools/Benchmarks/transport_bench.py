#!/usr/bin/env python3
"""Runs every transport scenario for every client in one run and prints a table of ratios.

Clients: a C program on libcurl's multi API (the practical limit), Sluice (also with the requests'
code on the session's engine thread, `SessionManager.taskExecutor`), async-http-client and URLSession
(FoundationNetworking). The small-request scenarios have two more: Sluice with the tracing and metrics
layers and no backend bootstrapped (what instrumentation costs when unused), and `minimal`: Sluice's
engine design (a thread on a curl multi handle with Sluice's curl options, tasks resumed with the
body) doing nothing else (MinimalCurlEngine), which tells the cost of the design from the cost of
Sluice's own work per request.

Each run is its own process under /usr/bin/time, which gives its CPU time and peak RSS. Every scenario
runs in rounds (the small-request ones five by default, the whole-file ones three), every client once
per round; a client's ratio to the C program is the median of its per-round ratios, its rate and CPU
the medians of its runs.
Server addresses come from the SLUICE_* variables Tools/testenv exports.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import timed_run

parser = argparse.ArgumentParser()
parser.add_argument("--client-bin", required=True)
parser.add_argument("--c-bin", required=True)
parser.add_argument("--quick", action="store_true", help="fewer requests, for a smoke run")
parser.add_argument("--output", default="results/transport.md")
parser.add_argument("--rounds", type=int, default=5, help="rounds of the small-request scenarios")
parser.add_argument("--only", default="", help="run only the scenarios whose title contains this text")
args = parser.parse_args()

env = os.environ
http, https, ca = env["SLUICE_HTTP_URL"], env["SLUICE_HTTPS_URL"], env["SLUICE_CA_FILE"]
big = os.path.join(env["SLUICE_WWW_DIR"], "files", "1g.bin")
scale = 10 if args.quick else 1

SCENARIOS = [
    ("small GET keep-alive, concurrency 1", "get", [f"{http}/status", str(10000 // scale), "1"], "req/s"),
    ("small GET keep-alive, concurrency 100", "get", [f"{http}/status", str(50000 // scale), "100"], "req/s"),
    ("HTTPS HTTP/2 multiplexed, concurrency 100", "get", [f"{https}/status", str(50000 // scale), "100", ca], "req/s"),
    ("1 GiB download to file", "download", [f"{http}/files/1g.bin", "{tmp}"], "MB/s"),
    ("1 GiB upload from file", "upload", [f"{http}/upload", big], "MB/s"),
]
CLIENTS = ["libcurl C (multi)", "Sluice", "Sluice, engine executor", "async-http-client", "URLSession", "curl(1)"]
MINIMAL = "Swift minimum (Sluice's engine design, no features)"
# Sluice with SluiceTracing's and SluiceMetrics' layers and nothing bootstrapped: their cost when unused.
INSTRUMENTED = "Sluice, tracing and metrics layers, no backend"


def command(client, scenario, arguments):
    if client == "curl(1)":
        # The command-line tool, for the whole-file scenarios (`curl -o` and `curl -T`).
        if scenario == "download":
            return ["curl", "-sS", "-o", arguments[1], arguments[0], "-w",
                    '{"operations": 1, "bytes": %{size_download}, "seconds": %{time_total}}\\n']
        if scenario == "upload":
            return ["curl", "-sS", "-o", "/dev/null", "-T", arguments[1], arguments[0], "-w",
                    '{"operations": 1, "bytes": %{size_upload}, "seconds": %{time_total}}\\n']
        return ["sh", "-c", 'echo \'{"unsupported": "curl(1) runs one transfer at a time"}\'']
    if client == "libcurl C (multi)":
        return [args.c_bin, scenario] + arguments
    name = {"Sluice": "sluice", "Sluice, engine executor": "sluice-executor", "async-http-client": "ahc",
            "URLSession": "urlsession", MINIMAL: "minimal", INSTRUMENTED: "sluice-instrumented"}[client]
    return [args.client_bin, name, scenario] + arguments


def run(client, scenario, arguments):
    if scenario in ("download", "upload"):
        # A whole-file run leaves up to a GiB of dirty pages (the download, or nginx's temporary file for
        # the upload's body); written back during the next run they slowed whichever client came next.
        os.sync()
        time.sleep(1)
    with tempfile.TemporaryDirectory() as scratch:
        arguments = [a.replace("{tmp}", os.path.join(scratch, "download.bin")) for a in arguments]
        return timed_run.run(client, command(client, scenario, arguments))


rate = timed_run.rate


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


rows = []
for title, scenario, arguments, unit in SCENARIOS:
    if args.only not in title:
        continue
    # Whole-file transfers are long but depend on the VM's disk, which has bad moments: three rounds.
    rounds = args.rounds if unit == "req/s" else min(args.rounds, 3)
    clients = CLIENTS + [MINIMAL, INSTRUMENTED] if unit == "req/s" else CLIENTS
    measured = {client: [] for client in clients}
    for round_number in range(rounds):
        for client in clients:
            if measured[client] and "error" in measured[client][0]:
                continue  # unsupported or failing: once is enough
            print(f"  {title} (round {round_number + 1}/{rounds}): {client} ...", file=sys.stderr, flush=True)
            measured[client].append(run(client, scenario, arguments))
    baselines = [rate(result, unit) for result in measured["libcurl C (multi)"]]
    sluices = [rate(result, unit) for result in measured["Sluice"]]

    for client in clients:
        results = measured[client]
        rates = [rate(result, unit) for result in results]
        value = median(rates)
        if value is None:
            rows.append(f"| {title} | {client} | n/a: {results[0]['error']} | | | | |")
            continue
        # Ratios are taken within a round (the same machine state), then the median over rounds.
        to_c = median([r / c for r, c in zip(rates, baselines) if r and c])
        sluice_over = (
            median([s / r for s, r in zip(sluices, rates) if s and r]) if client != "Sluice" else None)
        cpu_per_op = median([r["cpu"] / max(r["operations"], 1) * 1e6 for r in results if "error" not in r])
        rss = max(r["rss_mib"] for r in results if "error" not in r)
        measured_rates = [r for r in rates if r]
        failed = len(rates) - len(measured_rates)
        spread = f" ({min(measured_rates):,.0f}–{max(measured_rates):,.0f})" if len(measured_rates) > 1 else ""
        if failed:
            spread += f", {failed} of {len(rates)} runs failed"
        rows.append(
            f"| {title} | {client} | {value:,.0f} {unit}{spread} | {to_c:.2f}× | "
            f"{'' if sluice_over is None else f'{sluice_over:.2f}×'} | "
            f"{cpu_per_op:,.0f} µs | {rss:.1f} MiB |")

table = "\n".join([
    "| scenario | client | rate (median; range) | ÷ libcurl C | Sluice ÷ client | CPU per operation | peak RSS |",
    "|---|---|---|---|---|---|---|",
] + rows)
print(table)
os.makedirs(os.path.dirname(args.output), exist_ok=True)
with open(args.output, "w") as f:
    f.write(table + "\n")
