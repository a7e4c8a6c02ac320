#!/usr/bin/env bash
# Checks that run.sh (make test, make run) leaves the servers of make servers alone:
#   1. start.sh starts servers in the default run directory, as make servers does;
#   2. run.sh runs a small command against servers of its own: the command prints the servers.env it
#      got, asks its nginx and the first servers for /status, and records its servers' pids;
#   3. afterwards the first servers still run with the same pids and ports and answer, the command's
#      ports were all different, and the command's servers and run directory are gone;
#   4. a failing command: run.sh exits with its status, stops its servers, keeps the logs;
#   5. stop.sh (make stop) stops the first servers; run.sh without them works, removes the directory
#      kept in 4, and leaves nothing behind.
# Everything happens in a private SLUICE_TESTENV_DIR (a temporary directory whose venv is a link to the
# real one), so servers of a real make servers are never touched. Exits non-zero if a check fails.
# Bounded: the checks run under `timeout` (SLUICE_ISOLATION_TIMEOUT seconds, default 600), after waiting
# up to 15 minutes for a venv that install.sh may still be creating; the servers it starts end by
# themselves after 10 minutes at the latest. Cleans up by recorded PID (stop.sh, then the processes
# whose command line names the private directory).
#
# Usage: Tools/testenv/test_isolation.sh
#   SLUICE_ISOLATION_SCRIPTS=DIR tests the start.sh, stop.sh and run.sh in DIR instead of this
#   directory's (e.g. copies of older versions); they still use this checkout's venv.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$HERE/../.." && pwd -P)"
SCRIPTS="$(cd "${SLUICE_ISOLATION_SCRIPTS:-$HERE}" && pwd -P)"
REAL_TESTENV="${SLUICE_TESTENV_DIR:-$ROOT/.testenv}"
REAL_VENV="$REAL_TESTENV/venv"
STAMP="$REAL_VENV/.sluice-requirements.sha256"

say() { printf 'isolation: %s\n' "$*"; }

# --- Outer part: wait for the venv, then run the checks under a time limit ------------------------
if [[ "${_SLUICE_ISOLATION_INNER:-}" != 1 ]]; then
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || { say "nginx missing: run Tools/testenv/install.sh"; exit 2; }
    command -v curl >/dev/null 2>&1 || { say "curl missing: run Tools/testenv/install.sh"; exit 2; }
    waited=0
    until [[ -f "$STAMP" && -x "$REAL_VENV/bin/gunicorn" && -x "$REAL_VENV/bin/python" ]]; do
        if ((waited >= 900)); then
            say "no complete venv at $REAL_VENV after 15 minutes: run Tools/testenv/install.sh"
            exit 2
        fi
        ((waited % 60 == 0)) && say "waiting for install.sh to finish the venv at $REAL_VENV"
        sleep 5
        waited=$((waited + 5))
    done
    export _SLUICE_ISOLATION_INNER=1
    exec timeout --kill-after=60 "${SLUICE_ISOLATION_TIMEOUT:-600}" "$0" "$@"
fi

# --- Inner part ------------------------------------------------------------------------------------
T="$(mktemp -d /tmp/sluice-isolation.XXXXXX)"
ln -s "$REAL_VENV" "$T/venv"
R="$T/results"
mkdir -p "$R"
export SLUICE_TESTENV_DIR="$T"
export SLUICE_TESTENV_SKIP_INSTALL=1
export SLUICE_TESTENV_LIFETIME=600
export SLUICE_TESTENV_STOP_GRACE=5
unset SLUICE_TESTENV_RUN_DIR SLUICE_TESTENV_LARGE_FILES
# Variables of an outer run.sh would make the probe's environment ambiguous.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^SLUICE_(HTTP|HTTPS|MTLS|HTTPBIN|PROXY|H2C|FAULT|CHAIN|SELFSIGNED|WRONGHOST|EXPIRED|NOTYETVALID|CA|CLIENT|SERVER|WWW|NGINX)_' || true)

failures=0
check() { # DESCRIPTION COMMAND...
    local what="$1"
    shift
    if "$@"; then
        say "ok   - $what"
    else
        say "FAIL - $what"
        failures=$((failures + 1))
    fi
}

# Fields 3.. of /proc/PID/stat (after "PID (comm) "): f[0] is the state, f[19] the start time.
stat_fields() { # PID
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    printf '%s\n' "${stat##*) }"
}
# "PID STARTTIME" of PID, for telling the same process from a new one with a recycled PID.
identity() {
    local -a f
    read -r -a f <<<"$(stat_fields "$1" || echo gone)"
    printf '%s %s\n' "$1" "${f[19]:-gone}"
}
# Whether the process recorded as "PID STARTTIME" still runs (not a zombie).
same_process() {
    local -a f
    read -r -a f <<<"$(stat_fields "${1%% *}" || echo gone)"
    [[ "${1#* }" == "${f[19]:-gone}" && "${f[0]}" != Z ]]
}
gone() { ! same_process "$1"; }

# Live processes (not zombies) in process group PGID.
group_alive() { ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; }

# Processes whose command line names the private directory: ours and nobody else's.
# (awk gets the path from its environment, so that its own command line does not name it.)
ours() { ps -eo pid=,args= | T="$T" awk 'index($0, ENVIRON["T"]) { print $1 }'; }

cleanup() {
    local rc=$? dir pid
    trap - EXIT INT TERM HUP
    for dir in "$T"/run "$T"/run-*; do
        [[ -d "$dir" ]] || continue
        SLUICE_TESTENV_RUN_DIR="$dir" timeout 60 "$SCRIPTS/stop.sh" >/dev/null 2>&1 || true
    done
    # Whatever stop.sh missed (e.g. a run directory an older run.sh did not know): by PID, only
    # processes that name the private directory, and the process groups recorded by the probe.
    for pid in $(ours); do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $(cat "$R"/*.pgids 2>/dev/null | sort -u); do
        if group_alive "$pid"; then kill -TERM -- "-$pid" 2>/dev/null || true; fi
    done
    sleep 1
    for pid in $(ours); do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf -- "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

json() { # FILE KEY
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
ports_of() { # servers.json or an env dump: every port of a 127.0.0.1 URL, one a line, sorted
    grep -oE '127\.0\.0\.1:[0-9]+' "$1" | cut -d: -f2 | sort -u
}

# The command run.sh runs: prints the servers.env it got, asks its nginx (and the persistent one,
# when given) for /status, and records its run directory, variables and server processes.
cat >"$R/probe.sh" <<'PROBE'
#!/usr/bin/env bash
set -euo pipefail
out="$1" name="$2" persistent="${3:-}"
run_dir="$(dirname "$SLUICE_NGINX_ACCESS_LOG")"
echo "$run_dir" >"$out/$name.run_dir"
env | grep '^SLUICE_' | sort >"$out/$name.env"
echo "---- servers.env the command got ($run_dir/servers.env) ----"
cat "$run_dir/servers.env"
echo "----"
curl -fsS --max-time 5 "$SLUICE_HTTP_URL/status" >"$out/$name.curl"
printf 'curl %s/status -> %s\n' "$SLUICE_HTTP_URL" "$(cat "$out/$name.curl")"
if [[ -n "$persistent" ]]; then
    if curl -fsS --max-time 5 "$persistent/status" >"$out/$name.persistent_during" 2>&1; then
        printf 'curl %s/status (the make servers nginx, during the run) -> %s\n' "$persistent" "$(cat "$out/$name.persistent_during")"
    else
        echo "curl $persistent/status (the make servers nginx, during the run) FAILED"
        echo FAILED >"$out/$name.persistent_during"
    fi
fi
: >"$out/$name.pgids"
for f in "$run_dir"/*.launch.pid; do read -r pid _ <"$f"; echo "$pid" >>"$out/$name.pgids"; done
: >"$out/$name.pids"
for f in "$run_dir/nginx.pid" "$run_dir/gunicorn.pid"; do
    read -r pid <"$f"
    printf '%s %s\n' "$pid" "$(awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); print f[20] }' "/proc/$pid/stat")" >>"$out/$name.pids"
done
exit "${PROBE_EXIT:-0}"
PROBE
chmod +x "$R/probe.sh"

say "scripts under test: $SCRIPTS"
say "private SLUICE_TESTENV_DIR: $T"

# --- 1. make servers -------------------------------------------------------------------------------
say "1. start.sh in the default run directory (make servers)"
timeout 300 "$SCRIPTS/start.sh" 2>"$R/start.log" || { cat "$R/start.log"; say "start.sh failed"; exit 1; }
P="$T/run"
cp "$P/servers.json" "$R/persistent.servers.json"
cp "$P/nginx.conf" "$R/persistent.nginx.conf"
P_URL="$(json "$P/servers.json" SLUICE_HTTP_URL)"
P_HTTPBIN="$(json "$P/servers.json" SLUICE_HTTPBIN_URL)"
P_HTTPS="$(json "$P/servers.json" SLUICE_HTTPS_URL)"
P_FAULT="$(json "$P/servers.json" SLUICE_FAULT_PASS_URL)"
P_NGINX="$(identity "$(cat "$P/nginx.pid")")"
P_GUNICORN="$(identity "$(cat "$P/gunicorn.pid")")"
read -r fp _ <"$P/faultproxy.launch.pid"
P_FAULTPROXY="$(identity "$fp")"
say "   persistent nginx master (pid starttime): $P_NGINX, gunicorn master: $P_GUNICORN, faultproxy launcher: $P_FAULTPROXY"
say "   persistent ports: $(ports_of "$P/servers.json" | paste -sd' ')"
check "persistent nginx answers before run.sh" curl -fsS -o /dev/null --max-time 5 "$P_URL/status"

# --- 2. run.sh with the persistent servers up ------------------------------------------------------
say "2. run.sh probe.sh (make test / make run) while they run"
rc=0
timeout 300 "$SCRIPTS/run.sh" "$R/probe.sh" "$R" ok "$P_URL" >"$R/run-ok.out" 2>"$R/run-ok.err" || rc=$?
sed 's/^/   | /' "$R/run-ok.out"
if ((rc != 0)); then sed 's/^/   ! /' "$R/run-ok.err"; fi
check "run.sh exited 0 (got $rc)" test "$rc" = 0
RUN_DIR_OK="$(cat "$R/ok.run_dir" 2>/dev/null || echo missing)"
say "   run.sh's run directory: $RUN_DIR_OK"
say "   run.sh's ports: $(ports_of "$R/ok.env" 2>/dev/null | paste -sd' ')"
check "the command's nginx answered" grep -qx ok "$R/ok.curl"
check "the persistent nginx answered during the run" grep -qx ok "$R/ok.persistent_during"

# (a) the persistent servers: same processes, same ports, still answering
say "3. checks after run.sh"
check "(a) persistent nginx master still alive, same pid ($P_NGINX)" same_process "$P_NGINX"
check "(a) persistent gunicorn master still alive, same pid ($P_GUNICORN)" same_process "$P_GUNICORN"
check "(a) persistent faultproxy still alive, same pid ($P_FAULTPROXY)" same_process "$P_FAULTPROXY"
check "(a) persistent servers.json unchanged (same ports)" cmp -s "$R/persistent.servers.json" "$P/servers.json"
check "(a) persistent nginx.conf unchanged" cmp -s "$R/persistent.nginx.conf" "$P/nginx.conf"
check "(a) persistent nginx answers HTTP at $P_URL" curl -fsS -o /dev/null --max-time 5 "$P_URL/status"
check "(a) persistent nginx answers HTTPS at $P_HTTPS" curl -fsS -o /dev/null --max-time 5 --cacert "$T/certs/ca.pem" "$P_HTTPS/status"
check "(a) persistent httpbin answers at $P_HTTPBIN" curl -fsS -o /dev/null --max-time 5 "$P_HTTPBIN/get"
check "(a) persistent fault proxy answers at $P_FAULT" curl -fsS -o /dev/null --max-time 5 "$P_FAULT/status"

# (b) different ports
common_ports() { comm -12 <(ports_of "$R/persistent.servers.json") <(ports_of "$R/ok.env"); }
check "(b) the command got servers (SLUICE_HTTP_URL set)" grep -q '^SLUICE_HTTP_URL=http://127.0.0.1:' "$R/ok.env"
check "(b) the command's ports are all different from the persistent ones (common: $(common_ports | paste -sd' '))" \
    test -z "$(common_ports)"
check "(b) the command's run directory is not the default one" test "$RUN_DIR_OK" != "$P"

# (c) the command's servers are gone
no_group_alive() { local g; for g in $(cat "$1"); do group_alive "$g" && return 1; done; return 0; }
all_gone() { local line; while read -r line; do same_process "$line" && return 1; done <"$1"; return 0; }
check "(c) the command's server process groups are gone ($(paste -sd' ' "$R/ok.pgids"))" no_group_alive "$R/ok.pgids"
check "(c) the command's nginx and gunicorn masters are gone ($(cut -d' ' -f1 "$R/ok.pids" | paste -sd' '))" all_gone "$R/ok.pids"
check "(c) the command's run directory is removed" test ! -e "$RUN_DIR_OK"
check "(c) no run directory other than the default one is left" test -z "$(find "$T" -maxdepth 1 -name 'run-*' -print -quit)"

# --- 4. a failing command --------------------------------------------------------------------------
say "4. run.sh with a command that exits 3"
rc=0
PROBE_EXIT=3 timeout 300 "$SCRIPTS/run.sh" "$R/probe.sh" "$R" fail >/dev/null 2>"$R/run-fail.err" || rc=$?
check "run.sh exited with the command's status 3 (got $rc)" test "$rc" = 3
RUN_DIR_FAIL="$(cat "$R/fail.run_dir" 2>/dev/null || echo missing)"
check "the failed run's servers are gone" no_group_alive "$R/fail.pgids"
check "the failed run's directory is kept for its logs" test -d "$RUN_DIR_FAIL"
check "the failed run's servers.env and pid files are removed" \
    test -z "$(find "$RUN_DIR_FAIL" -maxdepth 1 \( -name 'servers.*' -o -name '*.launch.pid' \) -print 2>/dev/null)"
say "   kept for its logs: $RUN_DIR_FAIL ($(ls "$RUN_DIR_FAIL" 2>/dev/null | grep -c log || true) log files)"
check "the persistent servers survived that too ($P_NGINX)" same_process "$P_NGINX"

# --- 5. make stop, then run.sh alone ---------------------------------------------------------------
say "5. stop.sh (make stop), then run.sh without persistent servers"
timeout 120 "$SCRIPTS/stop.sh" 2>"$R/stop.log" || { cat "$R/stop.log"; say "stop.sh failed"; failures=$((failures + 1)); }
check "stop.sh stopped the persistent nginx" gone "$P_NGINX"
check "stop.sh stopped the persistent gunicorn" gone "$P_GUNICORN"
check "stop.sh stopped the persistent faultproxy" gone "$P_FAULTPROXY"
check "stop.sh removed the persistent servers.json" test ! -e "$P/servers.json"
touch "$R/before-alone"
sleep 1
rc=0
timeout 300 "$SCRIPTS/run.sh" "$R/probe.sh" "$R" alone >"$R/run-alone.out" 2>"$R/run-alone.err" || rc=$?
check "run.sh alone exited 0 (got $rc)" test "$rc" = 0
check "its nginx answered" grep -qx ok "$R/alone.curl"
check "its servers are gone" no_group_alive "$R/alone.pgids"
check "its masters are gone" all_gone "$R/alone.pids"
check "its run directory is removed" test ! -e "$(cat "$R/alone.run_dir" 2>/dev/null || echo /nonexistent)"
check "the failed run's kept directory was removed by this run" test ! -e "$RUN_DIR_FAIL"
check "no run directory other than the default one is left" test -z "$(find "$T" -maxdepth 1 -name 'run-*' -print -quit)"
check "the default run directory was not touched (nothing in it changed: $(find "$P" -newer "$R/before-alone" | sed "s|^$T/||" | head -3 | paste -sd' '))" \
    test -z "$(find "$P" -newer "$R/before-alone" -print -quit)"
check "no process names the private directory" test -z "$(ours)"

if ((failures)); then
    say "$failures check(s) failed"
    exit 1
fi
say "all checks passed"
