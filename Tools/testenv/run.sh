#!/usr/bin/env bash
# Runs a command against its own test servers:
#   install.sh (skipped when SLUICE_TESTENV_SKIP_INSTALL=1), start.sh in a run
#   directory of its own, .testenv/run-PID-XXXXXX (on fresh free ports), then
#   CMD [ARGS...] with the variables of that directory's servers.env exported
#   (and SLUICE_TESTENV_RUN_DIR naming the directory).
# The servers are stopped when this script exits, whether the command passed,
# failed or was interrupted; the directory is then removed, or, when the exit
# status is not 0, kept for its logs until the next run.sh removes it. Servers
# started by make servers (in .testenv/run) and those of other runs are never
# stopped nor restarted. Exits with the command's status.
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

# The run directory of this run, once made; owner.pid in it records this
# script (a launch pid file: PID STARTTIME BOOT_ID).
own_dir=""

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if [[ -n "$own_dir" ]]; then
        if ! SLUICE_TESTENV_RUN_DIR="$own_dir" "$TESTENV_SCRIPTS/stop.sh"; then
            log "stop.sh failed; the records of the servers are kept in $own_dir"
        elif [[ "$rc" == 0 ]]; then
            rm -rf -- "$own_dir"
        else
            log "the servers are stopped; their logs are kept in $own_dir until the next run"
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

ensure_testenv_dir

# Remove the run directories of earlier runs that have ended (kept for their
# logs, or left by a run that was killed), stopping whatever they still record.
for dir in "$TESTENV_DIR"/run-*; do
    [[ -d "$dir" && -f "$dir/owner.pid" ]] || continue
    launch_pid_alive "$dir/owner.pid" >/dev/null && continue
    if SLUICE_TESTENV_RUN_DIR="$dir" "$TESTENV_SCRIPTS/stop.sh" >/dev/null; then
        rm -rf -- "$dir"
    fi
done

new_dir="$(mktemp -d "$TESTENV_DIR/run-$$-XXXXXX")"
[[ -n "$new_dir" && -d "$new_dir" ]] || die "could not make a run directory under $TESTENV_DIR"
set_run_dir "$new_dir"
own_dir="$RUN_DIR"
export SLUICE_TESTENV_RUN_DIR="$RUN_DIR"
# Written whole (renamed into place): a half-written record would look like an
# ended run to another run.sh's sweep above.
write_launch_pidfile "$RUN_DIR/owner.pid.tmp" "$$"
mv "$RUN_DIR/owner.pid.tmp" "$RUN_DIR/owner.pid"

"$TESTENV_SCRIPTS/start.sh"

set -a
# shellcheck source=/dev/null
source "$SERVERS_ENV"
set +a

status=0
"$@" || status=$?
exit "$status"
