#!/usr/bin/env bash
# Builds the plugin walkthrough of docs/plugins.md as an author copies it, and runs its tests: the guide's
# manifest (name "CSVPlugin") and every Swift block whose first line names its path (// Sources/...,
# // Tests/...) become a package of their own, written anew each run into .build-walkthrough/work/, beside a
# link to this checkout whose name is not "sluice" (the manifest's path "../sluice" is pointed at it). The
# build folder .build-walkthrough/build stays between runs, so Sluice's modules and packages are built once
# and a later run builds only what changed. Run by make test.
#   Tools/testenv/check-walkthrough.sh [seconds]   (limit for the build and the tests, default 1200)
set -euo pipefail
swift="${SWIFT:-swift}"
limit="${1:-1200}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
work="$root/.build-walkthrough/work"
scratch="$root/.build-walkthrough/build"
checkout="checkout-not-named-sluice"
rm -rf "$work"
mkdir -p "$work" "$scratch"
ln -sfn "$root" "$work/$checkout"
python3 - "${SLUICE_WALKTHROUGH_GUIDE:-$root/docs/plugins.md}" "$work/CSVPlugin" "../$checkout" <<'PY'
import os, sys
guide, package, checkout = sys.argv[1:]
blocks, current = [], None
for line in open(guide, encoding="utf-8").read().split("\n"):
    if current is None and line.strip().startswith("```swift"):
        current = []
    elif current is not None and line.strip() == "```":
        blocks.append(current)
        current = None
    elif current is not None:
        current.append(line)
written = []
for block in blocks:
    if not block:
        continue
    first = block[0]
    if first.startswith("// swift-tools-version") and any('name: "CSVPlugin"' in line for line in block):
        path, text = "Package.swift", "\n".join(block).replace('path: "../sluice"', f'path: "{checkout}"')
    elif first.startswith("// Sources/") or first.startswith("// Tests/"):
        path, text = first[3:].strip(), "\n".join(block)
    else:
        continue
    target = os.path.join(package, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    written.append(path)
for needed in ["Package.swift"]:
    if needed not in written:
        sys.exit(f"check-walkthrough: docs/plugins.md has no {needed} for the CSV plugin")
if not any(p.startswith("Sources/") for p in written) or not any(p.startswith("Tests/") for p in written):
    sys.exit(f"check-walkthrough: docs/plugins.md lacks a Sources/ or Tests/ file: {written}")
print("check-walkthrough: " + ", ".join(written))
PY
cd "$work/CSVPlugin"
start=$(date +%s)
status=0
timeout "$limit" "$swift" test --disable-xctest --scratch-path "$scratch" >"$work/test.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    grep -E "error:" "$work/test.log" | head -n 20 >&2 || true
    tail -n 40 "$work/test.log" >&2
    echo "check-walkthrough: the walkthrough's package failed (exit $status)" >&2
    exit 1
fi
grep -E "Test run with" "$work/test.log" | tail -n 1
echo "check-walkthrough: the walkthrough built and passed in $(( $(date +%s) - start ))s, beside a checkout named $checkout"
