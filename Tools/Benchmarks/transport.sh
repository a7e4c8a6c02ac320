#!/usr/bin/env bash
# Transport benchmarks in one command: builds the clients (release), starts the test servers, runs
# every scenario for Sluice, async-http-client, URLSession and a C program on libcurl's multi API,
# and prints a table of ratios (also written to Tools/Benchmarks/results/transport.md).
#   Tools/Benchmarks/transport.sh [--quick] [--rounds N] [--only "1 GiB"]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# SwiftPM keeps the build plan of the path dependency (the Sluice package) in release.yaml and did not see a
# source file added to Sluice's modules until it was removed: planned again each time.
rm -f .build/release.yaml
swift build -c release --product transport-client 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)
mkdir -p .build
cc -O2 -o .build/curl_multi_bench CurlMulti/curl_multi_bench.c -lcurl
"$here/../testenv/run.sh" python3 "$here/transport_bench.py" \
    --client-bin "$bin/transport-client" --c-bin "$here/.build/curl_multi_bench" "$@"
