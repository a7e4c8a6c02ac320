#!/usr/bin/env bash
# The OpenAPI benchmark in one command: builds openapi-client (release), starts the test servers, runs the
# client generated from Tests/HTTPBinAPI/openapi.yaml over SluiceClientTransport,
# swift-openapi-async-http-client and swift-openapi-urlsession against nginx, and prints a table of ratios
# (also written to Tools/Benchmarks/results/openapi.md).
#   Tools/Benchmarks/openapi.sh [--quick] [--rounds N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rm -f .build/release.yaml
swift build -c release --product openapi-client 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)
mkdir -p results
"$here/../testenv/run.sh" python3 "$here/openapi_bench.py" --client-bin "$bin/openapi-client" --output "$here/results/openapi.md" "$@"
