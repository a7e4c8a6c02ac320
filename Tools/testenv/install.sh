#!/usr/bin/env bash
# Installs what the test servers need, skipping whatever is already there:
#   - Debian packages (nginx, curl, the libcurl/libxml2/zlib headers, ...)
#   - a Python venv at .testenv/venv with the pinned packages of requirements.txt
# Safe to run repeatedly, without a tty, as root (CI) or as a user with sudo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DEB_PACKAGES=(
    libcurl4-openssl-dev
    libssl-dev
    libxml2-dev
    zlib1g-dev
    libbrotli-dev
    libzstd-dev
    # SluiceCache's disk index.
    libsqlite3-dev
    libpsl-dev
    # The command-line coders: fixtures for the served .br and .zst files, and the benchmark's peers.
    brotli
    zstd
    nginx-light
    # Forward proxies for the proxy tests: HTTP with CONNECT, and SOCKS5.
    tinyproxy
    microsocks
    # nghttpd, a second HTTP/2 server: the prior-knowledge tests run it.
    nghttp2-server
    pkg-config
    openssl
    ca-certificates
    curl
    iproute2
    # Keeps the cores busy for make test-under-load.
    stress-ng
    # Renders the HTML conformance report for its screenshot test.
    chromium-headless-shell
    fonts-dejavu-core
)

export DEBIAN_FRONTEND=noninteractive
export PIP_NO_INPUT=1
export PIP_DISABLE_PIP_VERSION_CHECK=1

SUDO=()
if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo -n)
    fi
fi

# apt-get waits up to this long for the dpkg lock (another apt may be running).
APT_LOCK_WAIT="${SLUICE_TESTENV_APT_LOCK_WAIT:-900}"
APT_OPTS=(-y -q -o "DPkg::Lock::Timeout=$APT_LOCK_WAIT" -o Dpkg::Use-Pty=0)

apt_updated=0
apt_get() {
    # Retries a few times: besides the dpkg lock, which DPkg::Lock::Timeout
    # covers, `apt-get update` can fail on the lists lock or a transient mirror
    # error.
    local attempt
    for attempt in 1 2 3 4 5; do
        if "${SUDO[@]}" apt-get "${APT_OPTS[@]}" "$@" </dev/null; then
            return 0
        fi
        log "apt-get $1 failed (attempt $attempt), retrying in 10 s"
        sleep 10
    done
    die "apt-get $* failed"
}

apt_install() {
    if [[ "$(id -u)" != 0 && ${#SUDO[@]} -eq 0 ]]; then
        die "missing Debian packages ($*) and not root (no sudo); install them first"
    fi
    if [[ "$apt_updated" == 0 ]]; then
        log "apt-get update"
        apt_get update >/dev/null
        apt_updated=1
    fi
    log "apt-get install $*"
    apt_get install --no-install-recommends "$@" >/dev/null
}

deb_missing() {
    local pkg status
    for pkg in "$@"; do
        status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
        [[ "$status" == installed ]] || printf '%s\n' "$pkg"
    done
}

# --- Debian packages ----------------------------------------------------------
mapfile -t missing < <(deb_missing "${DEB_PACKAGES[@]}")
if ((${#missing[@]})); then
    apt_install "${missing[@]}"
    mapfile -t missing < <(deb_missing "${DEB_PACKAGES[@]}")
    ((${#missing[@]} == 0)) || die "still missing after install: ${missing[*]}"
else
    log "Debian packages present"
fi
command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || die "nginx binary not found"

# --- Python venv --------------------------------------------------------------
ensure_testenv_dir
REQUIREMENTS="$TESTENV_SCRIPTS/requirements.txt"
STAMP="$VENV_DIR/.sluice-requirements.sha256"

venv_works() {
    [[ -x "$VENV_PY" ]] && "$VENV_PY" -c 'import sys, pip' >/dev/null 2>&1
}

create_venv() {
    local py
    py="$(command -v python3)" || die "python3 not found"
    rm -rf "$VENV_DIR"
    if ! "$py" -m venv "$VENV_DIR" >/dev/null 2>&1; then
        # Debian's own python3 needs python3-venv for ensurepip.
        log "python3 -m venv failed; installing python3-venv"
        rm -rf "$VENV_DIR"
        apt_install python3-venv
        "$py" -m venv "$VENV_DIR" || die "python3 -m venv $VENV_DIR failed"
    fi
    venv_works || die "venv at $VENV_DIR does not work"
}

if venv_works; then
    log "venv present: $VENV_DIR"
else
    log "creating venv: $VENV_DIR"
    create_venv
fi

# The stamp holds the sha256 of requirements.txt and the interpreter version
# the packages were installed for.
want_stamp="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1) $("$VENV_PY" -c 'import sys; print(sys.version.split()[0])')"
have_stamp="$(cat "$STAMP" 2>/dev/null || true)"
imports_ok() {
    "$VENV_PY" -c 'import httpbin, gunicorn, trustme, cryptography' >/dev/null 2>&1
}
if [[ "$have_stamp" == "$want_stamp" ]] && imports_ok; then
    log "Python packages up to date"
else
    log "pip install -r Tools/testenv/requirements.txt"
    rm -f "$STAMP"
    "$VENV_PY" -m pip install -q -r "$REQUIREMENTS" </dev/null
    imports_ok || die "Python packages installed but not importable"
    printf '%s\n' "$want_stamp" >"$STAMP"
fi
log "install done"
