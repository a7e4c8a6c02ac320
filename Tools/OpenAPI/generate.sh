#!/usr/bin/env bash
# Regenerates the httpbin client the OpenAPI tests use (Tests/HTTPBinAPI/Types*.swift and Client.swift) from
# Tests/HTTPBinAPI/openapi.yaml, with swift-openapi-generator's command-line tool built from
# Tools/OpenAPI/Package.swift into .build-openapi/ (kept out of git, like every .build folder).
#
# The generated files are committed, so building and testing Sluice never runs the generator: run this after
# changing openapi.yaml or openapi-generator-config.yaml, and commit what it writes.
#
#   Tools/OpenAPI/generate.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="$root/Tools/OpenAPI"
scratch="$root/.build-openapi"
api="$root/Tests/HTTPBinAPI"

swift build --package-path "$tools" --scratch-path "$scratch" --product swift-openapi-generator
bin="$(swift build --package-path "$tools" --scratch-path "$scratch" --show-bin-path)"

# The generator writes its files over the old ones; remove them first so that none it no longer writes stays.
rm -f "$api"/Types*.swift "$api/Client.swift"

"$bin/swift-openapi-generator" generate \
    --config "$api/openapi-generator-config.yaml" \
    --output-directory "$api" \
    "$api/openapi.yaml"

# The generator writes `public import` and silences its unused-import warning with `@diagnose`, which only
# Swift 6.4 and later know. A plain import is public in the Swift 6 language mode, so it says the same without
# a warning on older compilers.
perl -0pi -e 's/#if compiler\(>=6\.4\)\n\@diagnose\(UnusedImportAccess, as: ignored\)\n#endif\n//g; s/^(\@_spi\(Generated\) )?public import /$1import /mg' \
    "$api"/Types*.swift "$api/Client.swift"

echo "generated in $api:" $(cd "$api" && ls Types*.swift Client.swift)
