#!/usr/bin/env bash
# Sluice's DocC reference (make docs) and its checks (make docs-check).
#   Tools/Docs/docs.sh build   the reference of every library product, the guides of docs/ as articles,
#                              in $DOCS_OUTPUT (default reports/docs)/Sluice.doccarchive
#   Tools/Docs/docs.sh check   the same, failing (exit 1) when a public symbol of a library product has no
#                              documentation comment or DocC reports a warning: a link to a symbol or
#                              article that does not exist, a parameter left undocumented
# Both build the library products first, in their own build folder ($DOCS_SCRATCH, default .build-docs),
# with the compiler writing each module's symbol graph (public symbols) beside it.
set -euo pipefail
mode="${1:-build}"
swift="${SWIFT:-swift}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
scratch="${DOCS_SCRATCH:-$root/.build-docs}"
output="${DOCS_OUTPUT:-$root/reports/docs}"
graphs="$scratch/symbolgraphs"
cd "$root"

modules=()
while IFS= read -r name; do modules+=("$name"); done < <(python3 - <<'PY'
import re
text = open("Package.swift", encoding="utf-8").read()
print("\n".join(re.findall(r'"([^"]+)"', re.search(r"let libraryModules = \[(.*?)\]", text, re.S).group(1))))
PY
)

start=$SECONDS
mkdir -p "$graphs"
log="$scratch/docs-build.log"
if ! "$swift" build --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "docs: the build failed (the whole log: $log)" >&2
    exit 1
fi
echo "docs: built the library products with their symbol graphs ($((SECONDS - start)) s)"

status=0
if [ "$mode" = check ]; then
    args=()
    for name in "${modules[@]}"; do args+=(--module "$name"); done
    python3 Tools/Docs/check_symbols.py --symbol-graph-dir "$graphs" --source-root "$root" "${args[@]}" || status=1
fi

start=$SECONDS
check=()
[ "$mode" = check ] && check=(--check)
python3 Tools/Docs/build_docs.py --symbol-graph-dir "$graphs" --output "$output" --work "$scratch/docs-work" \
    "${check[@]}" || status=1
echo "docs: DocC ($((SECONDS - start)) s)"
if [ "$mode" = check ]; then
    [ "$status" = 0 ] && echo "docs-check: every public symbol documented, every link resolved" \
        || echo "docs-check: failed (see the list above)" >&2
fi
exit "$status"
