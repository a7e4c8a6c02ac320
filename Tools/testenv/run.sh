#!/usr/bin/env bash
# Runs a command against the test servers:
#   install.sh (skipped when SLUICE_TESTENV_SKIP_INSTALL=1), start.sh, then
#   CMD [ARGS...] with the variables of servers.env exported.
# The servers are stopped when this script exits, whether the command passed,
# failed or was interrupted. Exits with the command's status.
#
# Usage: Tools/testenv/run.sh CMD [ARGS...]
#   e.g. Tools/testenv/run.sh swift test
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if (($# == 0)); then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

if [[ "${SLUICE_TESTENV_SKIP_INSTALL:-0}" != 1 ]]; then
    "$TESTENV_SCRIPTS/install.sh"
fi

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    "$TESTENV_SCRIPTS/stop.sh" || log "stop.sh failed"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

"$TESTENV_SCRIPTS/start.sh"

set -a
# shellcheck source=/dev/null
source "$SERVERS_ENV"
set +a

status=0
"$@" || status=$?
exit "$status"
