#!/usr/bin/env bash
# Builds and tests a user's package that is not Sluice's (Tests/StubbedUserPackage: an API client on the
# Sluice product, its tests on the SluiceTesting product), with no server. The package is copied into
# .build-stubbed-user/work/ beside a link to this checkout named "sluice" (its manifest's "../sluice"),
# at the same place every run, so a second run builds incrementally. Run by make test.
#   Tools/testenv/check-stubbed-user.sh [seconds]   (limit for the build and the tests, default 1200)
set -euo pipefail
swift="${SWIFT:-swift}"
limit="${1:-1200}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
work="$root/.build-stubbed-user/work"
mkdir -p "$work"
ln -sfn "$root" "$work/sluice"
# A fresh copy each run (times kept: only the user's own two small modules are built again).
rm -rf "$work/user"
cp -Rp "$root/Tests/StubbedUserPackage" "$work/user"
start=$(date +%s)
status=0
timeout "$limit" "$swift" test --disable-xctest --package-path "$work/user" --scratch-path "$root/.build-stubbed-user/build" \
    >"$root/.build-stubbed-user/test.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    grep -E "error:" "$root/.build-stubbed-user/test.log" | head -n 20 >&2 || true
    tail -n 40 "$root/.build-stubbed-user/test.log" >&2
    echo "check-stubbed-user: the user's package failed (exit $status)" >&2
    exit 1
fi
grep -E "Test run with" "$root/.build-stubbed-user/test.log" | tail -n 1
echo "check-stubbed-user: a package of its own, on the Sluice and SluiceTesting products, built and passed with no server in $(( $(date +%s) - start ))s"
