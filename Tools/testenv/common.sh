# Shared settings and helpers for the test environment scripts.
# Sourced by install.sh, start.sh, stop.sh and run.sh; not meant to be run.

TESTENV_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$TESTENV_SCRIPTS/../.." && pwd -P)"

# Everything the scripts create lives under one directory (git-ignored by the
# .gitignore that ensure_testenv_dir writes into it).
TESTENV_DIR="${SLUICE_TESTENV_DIR:-$ROOT/.testenv}"
VENV_DIR="$TESTENV_DIR/venv"
VENV_PY="$VENV_DIR/bin/python"
CERTS_DIR="$TESTENV_DIR/certs"
WWW_DIR="$TESTENV_DIR/www"

# One set of servers keeps all its state (pid files, nginx.conf, logs, temp
# files, servers.env / servers.json) in one run directory: $TESTENV_DIR/run,
# the one of `make servers` / `make stop`, unless SLUICE_TESTENV_RUN_DIR names
# another. run.sh gives each of its runs its own (run-PID-XXXXXX), so it never
# touches the servers of `make servers`. set_run_dir sets RUN_DIR and the paths
# below it.
set_run_dir() { # DIR
    local dir="$1"
    case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
    while [[ "$dir" == */ && "$dir" != / ]]; do dir="${dir%/}"; done
    RUN_DIR="$dir"
    NGINX_PIDFILE="$RUN_DIR/nginx.launch.pid"       # written by start.sh (process group leader)
    NGINX_MASTER_PIDFILE="$RUN_DIR/nginx.pid"       # written by nginx itself
    HTTPBIN_PIDFILE="$RUN_DIR/httpbin.launch.pid"   # written by start.sh (process group leader)
    HTTPBIN_MASTER_PIDFILE="$RUN_DIR/gunicorn.pid"  # written by gunicorn itself
    FAULTPROXY_PIDFILE="$RUN_DIR/faultproxy.launch.pid" # written by start.sh (process group leader)
    FAULTPROXY_READY="$RUN_DIR/faultproxy.ready"    # written by faultproxy.py once all its ports listen
    FAULTPROXY_LOG="$RUN_DIR/faultproxy.log"        # faultproxy.py's stdout: one line per connection
    TINYPROXY_PIDFILE="$RUN_DIR/tinyproxy.launch.pid"   # written by start.sh (process group leader)
    TINYPROXY_CONF="$RUN_DIR/tinyproxy.conf"
    TINYPROXY_LOG="$RUN_DIR/tinyproxy.log"          # one line per connection and request (LogLevel Info)
    SOCKS_PIDFILE="$RUN_DIR/microsocks.launch.pid"  # written by start.sh (process group leader)
    SOCKS_LOG="$RUN_DIR/microsocks.log"             # microsocks' stdout: one line per connection made
    SERVERS_ENV="$RUN_DIR/servers.env"
    SERVERS_JSON="$RUN_DIR/servers.json"
}
set_run_dir "${SLUICE_TESTENV_RUN_DIR:-$TESTENV_DIR/run}"

log() { printf 'testenv: %s\n' "$*" >&2; }
die() { printf 'testenv: error: %s\n' "$*" >&2; exit 1; }

ensure_testenv_dir() {
    mkdir -p "$TESTENV_DIR"
    if [[ ! -f "$TESTENV_DIR/.gitignore" ]]; then
        printf '# Created by Tools/testenv; nothing here is committed.\n*\n' >"$TESTENV_DIR/.gitignore"
    fi
}

# --- Process bookkeeping ----------------------------------------------------
# A launch pid file holds one line: "PID STARTTIME BOOT_ID", where PID is also
# the process group id (the launcher is `timeout`, which makes its own group),
# STARTTIME is field 22 of /proc/PID/stat and BOOT_ID the kernel boot id. A pid
# file is trusted only while all three still match, so a recycled PID is never
# signalled.

boot_id() { cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown; }

proc_starttime() {
    # Field 22 of /proc/PID/stat; field 2 (comm) may contain spaces, so cut
    # everything up to the last ')'.
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    stat="${stat##*) }"
    # After "comm) " the state is field 3; starttime is field 22 -> index 19.
    local -a f
    read -r -a f <<<"$stat"
    printf '%s\n' "${f[19]}"
}

# State letter of PID (R, S, D, Z, ...), field 3 of /proc/PID/stat.
proc_state() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    stat="${stat##*) }"
    printf '%s\n' "${stat%% *}"
}

write_launch_pidfile() { # FILE PID
    local st
    st="$(proc_starttime "$2")" || st=0
    printf '%s %s %s\n' "$2" "$st" "$(boot_id)" >"$1"
}

# Prints the PID from a launch pid file if that process is still the one that
# was recorded; returns 1 otherwise.
launch_pid_alive() { # FILE
    [[ -f "$1" ]] || return 1
    local pid st boot
    read -r pid st boot <"$1" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ "$boot" == "$(boot_id)" ]] || return 1
    [[ "$(proc_starttime "$pid" 2>/dev/null)" == "$st" ]] || return 1
    [[ "$(proc_state "$pid" 2>/dev/null)" != Z ]] || return 1
    printf '%s\n' "$pid"
}

# Prints the recorded process group id from a launch pid file, if that file
# belongs to the current boot; returns 1 otherwise.
launch_pgid() { # FILE
    [[ -f "$1" ]] || return 1
    local pid st boot
    read -r pid st boot <"$1" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ "$boot" == "$(boot_id)" ]] || return 1
    printf '%s\n' "$pid"
}

# PIDs of live processes in process group PGID (excluding zombies).
group_members() { # PGID
    ps -eo pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { print $1 }'
}

# PIDs of live processes that are descendants of PID (children, grandchildren...).
descendants() { # PID
    ps -eo pid=,ppid=,stat= | awk -v root="$1" '
        $3 !~ /^Z/ { parent[$1] = $2; pids[++n] = $1 }
        END {
            changed = 1; mark[root] = 1
            while (changed) {
                changed = 0
                for (i = 1; i <= n; i++) {
                    p = pids[i]
                    if (!(p in mark) && (parent[p] in mark)) { mark[p] = 1; changed = 1 }
                }
            }
            for (p in mark) if (p != root) print p
        }'
}

# Command line of PID with NULs turned into spaces.
proc_cmdline() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null; }
