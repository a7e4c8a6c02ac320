#!/usr/bin/env bash
# XML parsing throughput of SluiceXML (events and tree) against FoundationXML's XMLParser on the same
# generated document (default 40 MB), as ratios. Results go to Tools/Benchmarks/results/xml.md.
#   Tools/Benchmarks/xml.sh [MEGABYTES]
# SWIFT names the swift command (default: swift), for a wrapper that serializes builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
swift=${SWIFT:-swift}
rm -f .build/release.yaml  # planned again: a stale plan missed files added to Sluice (see transport.sh)
$swift build -c release --product xml-parse 2>&1 | tail -n 1
bin=$($swift build -c release --show-bin-path)
mkdir -p results
"$bin/xml-parse" "${1:-40}" | tee results/xml.md
