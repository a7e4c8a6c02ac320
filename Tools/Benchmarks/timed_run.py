"""One benchmark client run as its own process under /usr/bin/time, shared by the benchmark drivers.

`run(label, command)` returns the client's JSON line (`{"operations", "bytes", "seconds"}`) with `cpu`
(user + system seconds) and `rss_mib` (peak resident set) added, or `{"error": ...}` for a failed run or a
client that says the scenario is `unsupported`. `rate(result, unit)`: operations per second (`req/s`) or
MB per second, `None` for an error.
"""
import json
import os
import subprocess
import sys
import tempfile


def run(label, command, timeout=900):
    with tempfile.TemporaryDirectory() as scratch:
        timing = os.path.join(scratch, "time")
        process = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", "-o", timing] + command,
            capture_output=True, text=True, timeout=timeout)
        if process.returncode != 0:
            error = (process.stderr.strip().splitlines() or ["failed"])[-1][:160]
            print(f"    {label} failed: {error}", file=sys.stderr, flush=True)
            return {"error": error}
        result = json.loads(process.stdout.strip().splitlines()[-1])
        if "unsupported" in result:
            return {"error": result["unsupported"]}
        user, system, rss_kb = open(timing).read().split()[-3:]
        result["cpu"] = float(user) + float(system)
        result["rss_mib"] = int(rss_kb) / 1024
        return result


def rate(result, unit):
    if "error" in result:
        return None
    if unit == "req/s":
        return result["operations"] / result["seconds"]
    return result["bytes"] / result["seconds"] / 1e6
