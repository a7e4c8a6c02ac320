#!/usr/bin/env bash
# Stops the servers that start.sh started (nginx, httpbin, the fault proxy) in
# one run directory: .testenv/run (those of make servers), or the one that
# SLUICE_TESTENV_RUN_DIR names; servers of other run directories (run.sh's)
# are left alone. Removes their pid files and servers.env / servers.json. Only
# processes recorded by start.sh are signalled: the process group of each
# recorded launcher (while that launcher is still the recorded process), plus
# the nginx / gunicorn masters named in their own pid files and the children of
# those masters, each checked against its command line. TERM first; whatever is
# left after $SLUICE_TESTENV_STOP_GRACE seconds (default 10) gets KILL. Exits
# non-zero if a process survives.
#
# Usage: stop.sh [--only nginx|httpbin|faultproxy|tinyproxy|socks]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ONLY=""
while (($#)); do
    case "$1" in
        --only)
            [[ $# -ge 2 ]] || die "--only needs nginx, httpbin, faultproxy, tinyproxy or socks"
            ONLY="$2"
            shift 2
            ;;
        -h | --help)
            sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown argument: $1" ;;
    esac
done
case "$ONLY" in "" | nginx | httpbin | faultproxy | tinyproxy | socks) ;; *) die "--only takes nginx, httpbin, faultproxy, tinyproxy or socks" ;; esac

GRACE="${SLUICE_TESTENV_STOP_GRACE:-10}"
[[ "$GRACE" =~ ^[0-9]+$ ]] || die "SLUICE_TESTENV_STOP_GRACE must be a number of seconds"

[[ -d "$RUN_DIR" ]] || exit 0

NGINX_CONF="$RUN_DIR/nginx.conf"

# Whether PID looks like a process of SERVICE as start.sh launches it.
is_ours() { # SERVICE PID
    local cmd
    cmd="$(proc_cmdline "$2")" || return 1
    case "$1" in
        nginx)
            case "$cmd" in
                *"$NGINX_CONF"* | "nginx: worker process"* | "nginx: cache "*) return 0 ;;
            esac
            ;;
        httpbin)
            case "$cmd" in *"$HTTPBIN_MASTER_PIDFILE"*) return 0 ;; esac
            ;;
        faultproxy)
            # Its command line names the ready file in this run directory.
            case "$cmd" in *faultproxy.py*"$FAULTPROXY_READY"*) return 0 ;; esac
            ;;
        tinyproxy)
            # Its command line names its configuration in this run directory.
            case "$cmd" in *tinyproxy*"$TINYPROXY_CONF"*) return 0 ;; esac
            ;;
        socks)
            # microsocks' command line holds no path: its port, recorded in the run directory, tells.
            [[ -f "$RUN_DIR/microsocks.port" ]] && case "$cmd" in *microsocks*"-p $(cat "$RUN_DIR/microsocks.port")"*) return 0 ;; esac
            ;;
    esac
    return 1
}

PGIDS=()   # process groups known to be ours
PIDS=()    # "PID STARTTIME" entries known to be ours
NAMES=()

add_pid() { # PID
    local st
    st="$(proc_starttime "$1" 2>/dev/null)" || return 0
    PIDS+=("$1 $st")
}

collect() { # SERVICE LAUNCH_PIDFILE MASTER_PIDFILE
    local svc="$1" launch="$2" master="$3" pid pgid p found=0
    if pid="$(launch_pid_alive "$launch")"; then
        # The launcher (timeout) is alive and is the recorded process: its
        # process group holds the server's master and workers.
        PGIDS+=("$pid")
        add_pid "$pid"
        for p in $(group_members "$pid") $(descendants "$pid"); do add_pid "$p"; done
        found=1
    elif pgid="$(launch_pgid "$launch")"; then
        # The launcher is gone; take what is left in its group if it is a
        # process of this service.
        for p in $(group_members "$pgid"); do
            if is_ours "$svc" "$p"; then add_pid "$p"; found=1; fi
        done
    fi
    if [[ -f "$master" ]]; then
        read -r pid <"$master" || pid=""
        if [[ "$pid" =~ ^[0-9]+$ ]] && is_ours "$svc" "$pid"; then
            add_pid "$pid"
            for p in $(descendants "$pid"); do
                if is_ours "$svc" "$p"; then add_pid "$p"; fi
            done
            found=1
        fi
    fi
    if ((found)); then NAMES+=("$svc"); fi
}

SERVICES=()
[[ -z "$ONLY" || "$ONLY" == nginx ]] && SERVICES+=(nginx)
[[ -z "$ONLY" || "$ONLY" == httpbin ]] && SERVICES+=(httpbin)
[[ -z "$ONLY" || "$ONLY" == faultproxy ]] && SERVICES+=(faultproxy)
[[ -z "$ONLY" || "$ONLY" == tinyproxy ]] && SERVICES+=(tinyproxy)
[[ -z "$ONLY" || "$ONLY" == socks ]] && SERVICES+=(socks)

for svc in "${SERVICES[@]}"; do
    case "$svc" in
        nginx) collect nginx "$NGINX_PIDFILE" "$NGINX_MASTER_PIDFILE" ;;
        httpbin) collect httpbin "$HTTPBIN_PIDFILE" "$HTTPBIN_MASTER_PIDFILE" ;;
        # No master pid file: the proxy is one process, the launcher's child.
        faultproxy) collect faultproxy "$FAULTPROXY_PIDFILE" "" ;;
        tinyproxy) collect tinyproxy "$TINYPROXY_PIDFILE" "" ;;
        socks) collect socks "$SOCKS_PIDFILE" "" ;;
    esac
done

# Live processes among the targets, one PID per line.
alive() {
    local g entry pid st
    for g in "${PGIDS[@]}"; do group_members "$g"; done
    for entry in "${PIDS[@]}"; do
        read -r pid st <<<"$entry"
        if [[ "$(proc_starttime "$pid" 2>/dev/null)" == "$st" ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
            echo "$pid"
        fi
    done
}

signal_all() { # SIGNAL
    local g entry pid st
    for g in "${PGIDS[@]}"; do kill "-$1" -- "-$g" 2>/dev/null || true; done
    for entry in "${PIDS[@]}"; do
        read -r pid st <<<"$entry"
        if [[ "$(proc_starttime "$pid" 2>/dev/null)" == "$st" ]]; then
            kill "-$1" "$pid" 2>/dev/null || true
        fi
    done
}

wait_gone() { # SECONDS
    local deadline=$((SECONDS + $1))
    while [[ -n "$(alive)" ]]; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

if ((${#PIDS[@]} + ${#PGIDS[@]})); then
    signal_all TERM
    if ! wait_gone "$GRACE"; then
        log "still running after ${GRACE} s, sending KILL: $(alive | sort -un | tr '\n' ' ')"
        signal_all KILL
        if ! wait_gone 5; then
            log "processes survived KILL:"
            ps -o pid,pgid,stat,args -p "$(alive | sort -un | paste -sd, -)" >&2 || true
            exit 1
        fi
    fi
    log "stopped ${NAMES[*]}"
fi

# Remove the records of the services handled here.
for svc in "${SERVICES[@]}"; do
    case "$svc" in
        nginx) rm -f "$NGINX_PIDFILE" "$NGINX_MASTER_PIDFILE" ;;
        httpbin) rm -f "$HTTPBIN_PIDFILE" "$HTTPBIN_MASTER_PIDFILE" ;;
        faultproxy) rm -f "$FAULTPROXY_PIDFILE" "$FAULTPROXY_READY" ;;
        tinyproxy) rm -f "$TINYPROXY_PIDFILE" ;;
        socks) rm -f "$SOCKS_PIDFILE" "$RUN_DIR/microsocks.port" ;;
    esac
done
rm -f "$SERVERS_ENV" "$SERVERS_JSON"

# Report (never signal) any server process of the services handled here that
# still names this run directory, e.g. one whose pid files were deleted by hand.
patterns=()
for svc in "${SERVICES[@]}"; do
    case "$svc" in
        nginx) patterns+=("$NGINX_CONF") ;;
        httpbin) patterns+=("$HTTPBIN_MASTER_PIDFILE") ;;
        faultproxy) patterns+=("$FAULTPROXY_READY") ;;
        tinyproxy) patterns+=("$TINYPROXY_CONF") ;;
        socks) ;;
    esac
done
leftover=""
while read -r pid args; do
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
    for pat in "${patterns[@]}"; do
        case "$args" in
            *"$pat"*) leftover+="$pid $args"$'\n' ;;
        esac
    done
done < <(ps -eo pid=,args=)
if [[ -n "$leftover" ]]; then
    log "warning: server processes not started by the recorded launch are using $RUN_DIR:"
    printf '%s' "$leftover" >&2
fi
exit 0
