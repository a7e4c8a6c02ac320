#!/usr/bin/env bash
# Checks that a multipart upload streams its file: sluice-multipart-probe uploads a 1 GiB and then a 4 GiB
# sparse file (reads of zeros, no disk) to nginx's /upload, each in a process of its own, and their peak
# RSS must differ by less than 4 MiB. Run by make test through run.sh, after the suite: measured while the
# suite's other tests run, the probe's peak rose with the machine's load (83 and 157 MiB one time, 48 alone).
#   Tools/testenv/run.sh Tools/testenv/check-multipart-memory.sh PROBE
set -euo pipefail
probe="${1:?usage: check-multipart-memory.sh PATH/sluice-multipart-probe}"
[[ -n "${SLUICE_HTTP_URL:-}" ]] || { echo "check-multipart-memory: run me through Tools/testenv/run.sh" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-multipart-memory.XXXXXX")"
trap 'rm -rf "$work"' EXIT
peak() {
    local size=$1 file="$work/sparse-$1"
    truncate -s "$size" "$file"
    local line
    line="$(timeout 600 "$probe" "$SLUICE_HTTP_URL/upload" "$file" | tail -n 1)"
    rm -f "$file"
    python3 - "$line" "$size" <<'PY'
import json, sys
result, size = json.loads(sys.argv[1]), int(sys.argv[2])
if result["status"] != 200 or result["bytes"] <= size:
    sys.exit(f"check-multipart-memory: the upload of {size} bytes did not go through: {result}")
print(result["peakKiB"])
PY
}
small=$(peak $((1 << 30)))
large=$(peak $((4 << 30)))
difference=$((large > small ? large - small : small - large))
echo "check-multipart-memory: peak RSS of a multipart upload: 1 GiB ${small} KiB, 4 GiB ${large} KiB (${difference} KiB apart, limit 4096)"
((difference < 4096)) || { echo "check-multipart-memory: the 4 GiB upload's peak is not that of the 1 GiB one" >&2; exit 1; }
