#!/usr/bin/env bash
# The interoperability matrix: Sluice against servers nobody on the team wrote, over HTTP/1.1, HTTP/2 over
# TLS and clear-text HTTP/2 with prior knowledge: nginx (the test environment's), Apache with mod_http2 and
# nghttpd, from Debian's packages (installed here when missing). Writes reports/interop/matrix.md.
# Run through make interop (not part of make test):
#   Tools/testenv/run.sh Tools/testenv/interop.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
swift="${SWIFT:-swift}"
[[ -n "${SLUICE_HTTP_URL:-}" && -n "${SLUICE_WWW_DIR:-}" ]] || die "run me through Tools/testenv/run.sh (make interop)"

missing=()
command -v apache2 >/dev/null 2>&1 || [[ -x /usr/sbin/apache2 ]] || missing+=(apache2)
[[ -x /usr/sbin/nghttpd ]] || missing+=(nghttp2-server)
if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    SUDO=()
    [[ "$(id -u)" == 0 ]] || SUDO=(sudo -n)
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-interop.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    [[ -f "$work/apache.pid" ]] && kill -TERM "$(cat "$work/apache.pid")" 2>/dev/null || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

read -r apache_plain apache_tls nghttpd_tls nghttpd_plain <<<"$("$VENV_PY" - <<'PY'
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)"
certs="$(dirname "$SLUICE_SERVER_CERT")"
www="$SLUICE_WWW_DIR"

# Apache with mod_http2: HTTP/1.1 and clear-text HTTP/2 (prior knowledge, H2Direct) on one port, HTTP/2
# over TLS on another. Its own configuration file, so nothing under /etc/apache2 is used or changed.
cat >"$work/apache.conf" <<CONF
ServerRoot "/usr/lib/apache2"
ServerName 127.0.0.1
PidFile "$work/apache.pid"
Mutex file:$work default
DefaultRuntimeDir "$work"
ErrorLog "$work/apache-error.log"
LogLevel warn
User www-data
Group www-data
LoadModule mpm_event_module modules/mod_mpm_event.so
LoadModule authz_core_module modules/mod_authz_core.so
LoadModule mime_module modules/mod_mime.so
LoadModule filter_module modules/mod_filter.so
LoadModule deflate_module modules/mod_deflate.so
LoadModule socache_shmcb_module modules/mod_socache_shmcb.so
LoadModule ssl_module modules/mod_ssl.so
LoadModule http2_module modules/mod_http2.so
TypesConfig /etc/mime.types
Listen 127.0.0.1:$apache_plain
Listen 127.0.0.1:$apache_tls
DocumentRoot "$www"
<Directory "$www">
    Require all granted
</Directory>
AddOutputFilterByType DEFLATE text/plain
Protocols h2c http/1.1
H2Direct on
<VirtualHost 127.0.0.1:$apache_tls>
    Protocols h2 http/1.1
    SSLEngine on
    SSLCertificateFile "$certs/server.pem"
    SSLCertificateKeyFile "$certs/server.key"
</VirtualHost>
CONF
chmod 755 "$work"
timeout --signal=TERM 900 /usr/sbin/apache2 -f "$work/apache.conf" -DFOREGROUND >"$work/apache.out" 2>&1 &
pids+=($!)
timeout --signal=TERM 900 /usr/sbin/nghttpd -d "$www" --address=127.0.0.1 "$nghttpd_tls" "$certs/server.key" "$certs/server.pem" >"$work/nghttpd-tls.log" 2>&1 &
pids+=($!)
timeout --signal=TERM 900 /usr/sbin/nghttpd --no-tls -d "$www" --address=127.0.0.1 "$nghttpd_plain" >"$work/nghttpd-plain.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    if curl -sf -o /dev/null "http://127.0.0.1:$apache_plain/files/small.txt" &&
        curl -sf -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$nghttpd_plain/files/small.txt"; then
        break
    fi
    sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$apache_plain/files/small.txt" || { cat "$work/apache-error.log" "$work/apache.out" >&2; die "Apache did not start"; }

"$swift" build --product sluice-interop 2>&1 | tail -n 1
bin="$("$swift" build --show-bin-path)"
mkdir -p "$ROOT/reports/interop"
nginx_https="${SLUICE_HTTPS_URL}"
"$bin/sluice-interop" "$www" "$SLUICE_CA_FILE" "$ROOT/reports/interop/matrix.md" \
    "nginx-h1=$SLUICE_HTTP_URL" "nginx-h2=$nginx_https" "nginx-h2c=$SLUICE_H2C_URL" \
    "apache-h1=http://127.0.0.1:$apache_plain" "apache-h2=https://127.0.0.1:$apache_tls" "apache-h2c=http://127.0.0.1:$apache_plain" \
    "nghttpd-h2=https://127.0.0.1:$nghttpd_tls" "nghttpd-h2c=http://127.0.0.1:$nghttpd_plain"
echo "interop: versions: $(/usr/sbin/apache2 -v | head -n 1); $(/usr/sbin/nghttpd --version 2>&1 | head -n 1); $(nginx -v 2>&1)"
