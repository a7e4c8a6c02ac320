#!/usr/bin/env bash
# Checks that an upload from an async sequence streams: sluice-async-upload-probe sends 1 GiB produced by
# an async sequence of 64 KiB chunks to httpbin's /sluice/sha256 (which hashes what it reads), once with its
# length and once chunked, each in a process of its own; the server's SHA-256 must be the producer's and the
# process's peak resident memory may grow by less than 8 MiB over what it held before the upload. Run by
# make test through run.sh, after the suite.
#   Tools/testenv/run.sh Tools/testenv/check-async-upload-memory.sh PROBE
set -euo pipefail
probe="${1:?usage: check-async-upload-memory.sh PATH/sluice-async-upload-probe}"
[[ -n "${SLUICE_HTTPBIN_URL:-}" ]] || { echo "check-async-upload-memory: run me through Tools/testenv/run.sh" >&2; exit 2; }
for mode in length chunked; do
    line="$(timeout 600 "$probe" "$SLUICE_HTTPBIN_URL/sluice/sha256" $((1 << 30)) "$mode" | tail -n 1)"
    python3 - "$line" "$mode" <<'PY'
import json, sys
result, mode = json.loads(sys.argv[1]), sys.argv[2]
size = 1 << 30
problems = []
if result["status"] != 200 or result["received"] != size:
    problems.append(f"the server did not receive {size} bytes")
if result["serverSHA256"] != result["localSHA256"]:
    problems.append("the server's SHA-256 is not the producer's")
if result["growthKiB"] >= 8192:
    problems.append(f"peak memory grew by {result['growthKiB']} KiB (limit 8192)")
print(f"check-async-upload-memory: 1 GiB from an async sequence ({mode}): SHA-256 matched by the server, "
      f"peak RSS {result['baselineKiB']} -> {result['peakKiB']} KiB (+{result['growthKiB']} KiB, limit 8192), "
      f"heap in use {result['heapInUseBeforeKiB']} -> at most {result['heapInUsePeakKiB']} KiB")
if problems:
    sys.exit("check-async-upload-memory: " + "; ".join(problems) + f": {result}")
PY
done
