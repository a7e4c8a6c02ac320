#!/usr/bin/env python3
"""Reads package-benchmark's Markdown output and prints, per scenario, each peer's ratio to Sluice.

Benchmarks are named "<scenario>: <client>". For time and allocation metrics a ratio above 1 means
Sluice is better (the peer takes that many times more); the table says which way each column reads.
"""
import re
import sys

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6, "K": 1e3, "M": 1e6, "G": 1e9}


def parse(lines):
    results = {}
    name = None
    for line in lines:
        heading = re.match(r"^### (.+)$", line)
        if heading:
            name = heading.group(1).strip()
            continue
        row = re.match(r"^\| (.+?)\s+\|((?:\s*[-\d.]+\s*\|)+)$", line)
        if not (row and name):
            continue
        label, cells = row.group(1).strip(), [c.strip() for c in row.group(2).split("|") if c.strip()]
        unit = re.search(r"\((ns|μs|us|ms|s|K|M|G)\)", label)
        scale = UNITS[unit.group(1)] if unit else 1.0
        metric = re.sub(r"\s*\((ns|μs|us|ms|s|K|M|G)\)", "", label).rstrip(" *")
        p0, p50 = float(cells[0]) * scale, float(cells[2]) * scale
        results.setdefault(name, {})[metric] = {"p0": p0, "p50": p50}
    return results


def main():
    results = parse(sys.stdin.read().splitlines())
    scenarios = {}
    for name, metrics in results.items():
        if ": " not in name:
            continue
        scenario, client = name.rsplit(": ", 1)
        scenarios.setdefault(scenario, {})[client] = metrics
    print("| scenario | peer | wall clock p50: peer / Sluice | wall clock min: peer / Sluice | mallocs: peer / Sluice |")
    print("|---|---|---|---|---|")
    for scenario, clients in scenarios.items():
        sluice = clients.get("Sluice")
        if not sluice:
            continue
        for peer, metrics in clients.items():
            if peer == "Sluice":
                continue
            def ratio(metric, key):
                mine, theirs = sluice.get(metric, {}).get(key), metrics.get(metric, {}).get(key)
                return f"{theirs / mine:.2f}×" if mine and theirs else "n/a"
            print(f"| {scenario} | {peer} | {ratio('Time (wall clock)', 'p50')} | "
                  f"{ratio('Time (wall clock)', 'p0')} | {ratio('Malloc (total)', 'p50')} |")


if __name__ == "__main__":
    main()
