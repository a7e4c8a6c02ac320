#!/usr/bin/env bash
# Starts the test servers on 127.0.0.1 and writes their addresses to
# servers.env and servers.json in the run directory: .testenv/run, or the one
# that SLUICE_TESTENV_RUN_DIR names (run.sh gives each run its own):
#   - nginx: plain HTTP, HTTPS (HTTP/2 + HTTP/1.1), mutual-TLS HTTPS (lenient:
#     400 without a client certificate; strict: the handshake fails), and HTTPS
#     servers for the trust tests (root -> intermediate -> leaf chain,
#     self-signed, wrong host name, expired, not yet valid)
#   - httpbin under gunicorn (plain HTTP)
#   - faultproxy.py: one port per network fault (reset, truncation, latency,
#     bandwidth, corrupt head or body, cut TLS handshake, silence, a random mix)
#     in front of nginx's plain HTTP port (tls-cut: nginx's HTTPS port)
# Servers from an earlier start in the same run directory are stopped first;
# servers of other run directories are left alone. Each server runs under
# `timeout`, so it ends by itself after $SLUICE_TESTENV_LIFETIME seconds
# (default 5400) even if stop.sh is never called.
# Needs install.sh to have run once.
# The 1 GiB fixture (files/1g.bin) is written only with SLUICE_TESTENV_LARGE_FILES=1, which the
# targets that run the test suite set (make test, make servers); make run does not need it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LIFETIME="${SLUICE_TESTENV_LIFETIME:-5400}"
START_TIMEOUT="${SLUICE_TESTENV_START_TIMEOUT:-30}"
[[ "$LIFETIME" =~ ^[0-9]+$ ]] || die "SLUICE_TESTENV_LIFETIME must be a number of seconds"
[[ "$START_TIMEOUT" =~ ^[0-9]+$ ]] || die "SLUICE_TESTENV_START_TIMEOUT must be a number of seconds"

NGINX_BIN="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"
[[ -x "$NGINX_BIN" ]] || die "nginx not found: run Tools/testenv/install.sh"
command -v curl >/dev/null 2>&1 || die "curl not found: run Tools/testenv/install.sh"
[[ -x "$VENV_PY" && -x "$VENV_DIR/bin/gunicorn" ]] || die "no venv at $VENV_DIR: run Tools/testenv/install.sh"

# Paths go into nginx.conf inside double quotes; refuse characters that would
# need escaping there.
for dir in "$TESTENV_DIR" "$RUN_DIR"; do
    case "$dir" in
        *[\"\$\\\;\{\}\']* | *$'\n'*) die "unsupported characters in path: $dir" ;;
    esac
done

# --- Stop what an earlier start in this run directory left running -------------
"$TESTENV_SCRIPTS/stop.sh"

# If this script fails half-way, stop whatever it had started.
started_ok=0
on_exit() {
    local rc=$?
    if [[ "$started_ok" != 1 ]]; then
        "$TESTENV_SCRIPTS/stop.sh" >/dev/null 2>&1 || true
    fi
    exit "$rc"
}
trap on_exit EXIT

ensure_testenv_dir
mkdir -p "$RUN_DIR/tmp"/{client_body,proxy,fastcgi,uwsgi,scgi,gunicorn} "$WWW_DIR/files"
CA_FILE="$CERTS_DIR/ca.pem"
SERVER_CERT="$CERTS_DIR/server.pem"
SERVER_KEY="$CERTS_DIR/server.key"
CLIENT_CERT="$CERTS_DIR/client.pem"
CLIENT_KEY="$CERTS_DIR/client.key"
# The trust-test servers, by name: their certificate files are certs/NAME.pem and NAME.key.
TRUST_SERVERS=(chain selfsigned wronghost expired notyetvalid)
NGINX_CONF="$RUN_DIR/nginx.conf"
NGINX_ERROR_LOG="$RUN_DIR/nginx-error.log"
NGINX_ACCESS_LOG="$RUN_DIR/nginx-access.log"
HTTPBIN_ERROR_LOG="$RUN_DIR/httpbin-error.log"
HTTPBIN_ACCESS_LOG="$RUN_DIR/httpbin-access.log"
NGINX_STDOUT_LOG="$RUN_DIR/nginx-stdout.log"
HTTPBIN_STDOUT_LOG="$RUN_DIR/httpbin-stdout.log"
# The fault proxy's ports, by fault (faultproxy.py's names; the first is the one
# start.sh probes). tls-cut forwards to nginx's HTTPS port, the others to its
# plain HTTP port.
FAULTS=(pass reset-before-response reset-mid-body truncate latency bandwidth bytewise
    corrupt-head corrupt-body tls-cut half-open blackhole mixed cut-random)

# Logs cover one start: begin them empty.
for f in "$NGINX_ERROR_LOG" "$NGINX_ACCESS_LOG" "$NGINX_STDOUT_LOG" \
    "$HTTPBIN_ERROR_LOG" "$HTTPBIN_ACCESS_LOG" "$HTTPBIN_STDOUT_LOG" "$FAULTPROXY_LOG"; do
    : >"$f"
done

# --- Shared files ---------------------------------------------------------------
# The certificates and the served files are shared by every run directory, and
# a run.sh may start while make servers (or another run.sh) starts: one start
# at a time checks and writes them.
exec {shared_lock}>"$TESTENV_DIR/.shared.lock"
flock -w 900 "$shared_lock" || die "another start.sh held $TESTENV_DIR/.shared.lock for 900 s"

# --- Certificates -------------------------------------------------------------
"$VENV_PY" "$TESTENV_SCRIPTS/certs.py"

# --- Static files -------------------------------------------------------------
# small.txt is fixed text; each N.bin is random.Random(size).randbytes(size), written in 64 MiB
# blocks for the large ones (block i from random.Random(size + i)). 1g.bin is written only when asked
# for, but one already there at its full size stays listed in SHA256SUMS: the files are shared by every
# run directory, and a start without it (make run) must not drop it from under servers that serve it
# (make servers).
"$VENV_PY" - "$WWW_DIR/files" "${SLUICE_TESTENV_LARGE_FILES:-0}" <<'PY'
import hashlib, os, random, sys

out = sys.argv[1]
FILES = [
    ("small.txt", b"Hello from Sluice\n"),
    ("1k.bin", 1024),
    ("64k.bin", 64 * 1024),
    ("1m.bin", 1024 * 1024),
    ("16m.bin", 16 * 1024 * 1024),
    ("200m.bin", 200 * 1024 * 1024),
]
GIB = 1024 * 1024 * 1024
if sys.argv[2] == "1" or (
        os.path.isfile(os.path.join(out, "1g.bin")) and os.path.getsize(os.path.join(out, "1g.bin")) == GIB):
    FILES.append(("1g.bin", GIB))

BLOCK = 64 * 1024 * 1024

def blocks(spec):
    if isinstance(spec, bytes):
        yield spec
    elif spec <= BLOCK:
        yield random.Random(spec).randbytes(spec)
    else:
        for index in range(spec // BLOCK):
            yield random.Random(spec + index).randbytes(BLOCK)
        if spec % BLOCK:
            yield random.Random(spec + spec // BLOCK).randbytes(spec % BLOCK)

def size_of(spec):
    return len(spec) if isinstance(spec, bytes) else spec

written = []
for name, spec in FILES:
    path = os.path.join(out, name)
    try:
        ok = os.path.getsize(path) == size_of(spec)
        if ok and isinstance(spec, bytes):
            with open(path, "rb") as f:
                ok = f.read() == spec
    except OSError:
        ok = False
    if not ok:
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            for block in blocks(spec):
                f.write(block)
        os.replace(tmp, path)
        written.append(name)

sums_path = os.path.join(out, "SHA256SUMS")
try:
    with open(sums_path) as f:
        listed = {line.split()[1] for line in f if line.strip()}
except (OSError, IndexError):
    listed = set()
if not written and listed == {name for name, _ in FILES}:
    print(f"www: files up to date in {out}", file=sys.stderr)
    sys.exit(0)

lines = []
for name, _ in FILES:
    h = hashlib.sha256()
    with open(os.path.join(out, name), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    lines.append(f"{h.hexdigest()}  {name}\n")
sums = "".join(lines)
sums_path = os.path.join(out, "SHA256SUMS")
try:
    with open(sums_path) as f:
        current = f.read()
except OSError:
    current = None
if current != sums:
    with open(sums_path + ".tmp", "w") as f:
        f.write(sums)
    os.replace(sums_path + ".tmp", sums_path)
print(f"www: {'wrote ' + ', '.join(written) if written else 'files up to date'} in {out}", file=sys.stderr)
PY

# --- Event streams --------------------------------------------------------------
# The event-stream vectors (Tests/Vectors/events), served by nginx at /events/ as text/event-stream.
mkdir -p "$WWW_DIR/events"
for f in "$TESTENV_SCRIPTS/../../Tests/Vectors/events/"*.txt; do
    cp "$f" "$WWW_DIR/events/.$(basename "$f").tmp" && mv "$WWW_DIR/events/.$(basename "$f").tmp" "$WWW_DIR/events/$(basename "$f")"
done

# --- Bodies for the bundled plugins ---------------------------------------------
# plugins/ holds documents as stored (text, XML, XML and binary property lists); encoded/gzip/ and
# encoded/deflate/ hold bodies stored compressed, which nginx sends with that Content-Encoding:
# well-formed, concatenated members, truncated, corrupt, raw deflate, and a bomb (100 gzip members of
# 100 MiB of zeros each: about 10 MB that inflates to 10 GiB), and zeros.bin (200 MiB of zeros in about
# 200 KB: a legitimate body past the in-memory limits). Rewritten when the stamp is missing.
"$VENV_PY" - "$WWW_DIR" <<'PY'
import gzip, os, plistlib, sys, zlib
import brotlicffi, zstandard

root = sys.argv[1]
STAMP = os.path.join(root, "encoded", ".generated-3")
if os.path.exists(STAMP):
    print("www: plugin bodies up to date", file=sys.stderr)
    sys.exit(0)
for sub in ("plugins", "encoded/gzip", "encoded/deflate", "encoded/br", "encoded/zstd"):
    os.makedirs(os.path.join(root, sub), exist_ok=True)

def write(name, data):
    path = os.path.join(root, name)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)

def gz(data, level=6):
    return gzip.compress(data, compresslevel=level, mtime=0)

text = "".join(f"line {i:05d}: sluice streams bytes through zlib, libxml2 and plists\n" for i in range(6000)).encode()
items = "".join(
    f'  <entry id="{i}"><title>Entry {i}</title><media:thumbnail url="https://example.com/{i}.png"/>'
    f"<summary><![CDATA[<p>{i} &amp; more</p>]]></summary></entry>\n" for i in range(50))
xml = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">\n'
       f"  <title>Sluice &amp; friends</title>\n{items}</feed>\n").encode()
plist = {"name": "sluice", "count": 3, "ratio": 0.5, "enabled": True,
         "items": ["one", "two", {"nested": True}], "blob": bytes([0, 1, 2, 255])}
write("plugins/text.txt", text)
write("plugins/sample.xml", xml)
write("plugins/sample.plist", plistlib.dumps(plist, fmt=plistlib.FMT_XML))
write("plugins/binary.plist", plistlib.dumps(plist, fmt=plistlib.FMT_BINARY))

whole = gz(text)
write("encoded/gzip/text.txt", whole)
write("encoded/gzip/members.txt", gz(text[:100_000]) + gz(text[100_000:]))
write("encoded/gzip/truncated.txt", whole[: len(whole) // 2])
corrupt = bytearray(whole)
for i in range(len(corrupt) // 2, len(corrupt) // 2 + 16):
    corrupt[i] ^= 0x5A
write("encoded/gzip/corrupt.txt", bytes(corrupt))
write("encoded/gzip/sample.xml", gz(xml))
member = gz(bytes(100 << 20), level=9)
write("encoded/gzip/bomb.bin", member * 100)
write("encoded/gzip/zeros.bin", gz(bytes(200 << 20), level=9))
write("encoded/deflate/zlib.txt", zlib.compress(text, 6))
raw = zlib.compressobj(6, zlib.DEFLATED, -15)
write("encoded/deflate/raw.txt", raw.compress(text) + raw.flush())
# brotli and Zstandard: the same text whole, truncated and corrupt, the XML, a bomb (512 MiB of zeros
# in one brotli stream; ten zstd frames of 100 MiB of zeros each) and, for zstd, two frames concatenated.
def damaged(data):
    out = bytearray(data)
    for i in range(len(out) // 2, len(out) // 2 + 16):
        out[i] ^= 0x5A
    return bytes(out)
for coding, encode in (("br", lambda d, q=5: brotlicffi.compress(d, quality=q)),
                       ("zstd", lambda d, q=3: zstandard.ZstdCompressor(level=q, write_checksum=True).compress(d))):
    encoded = encode(text)
    write(f"encoded/{coding}/text.txt", encoded)
    write(f"encoded/{coding}/truncated.txt", encoded[: len(encoded) // 2])
    write(f"encoded/{coding}/corrupt.txt", damaged(encoded))
    write(f"encoded/{coding}/sample.xml", encode(xml))
write("encoded/br/bomb.bin", brotlicffi.compress(bytes(512 << 20), quality=1))
write("encoded/zstd/bomb.bin", zstandard.ZstdCompressor(level=1).compress(bytes(100 << 20)) * 10)
zstd_frame = lambda d: zstandard.ZstdCompressor(level=3, write_checksum=True).compress(d)
write("encoded/zstd/frames.txt", zstd_frame(text[:100_000]) + zstd_frame(text[100_000:]))
open(STAMP, "w").close()
print("www: wrote plugin bodies", file=sys.stderr)
PY

# Done with the shared files; the servers must not inherit the lock.
flock -u "$shared_lock"
exec {shared_lock}>&-

# --- Helpers ------------------------------------------------------------------

# Prints N distinct TCP ports that are free on 127.0.0.1 right now.
free_ports() {
    "$VENV_PY" - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
PY
}

# wait_file LAUNCH_PIDFILE DEADLINE FILE : waits until FILE exists (0), the
# launched process is gone (1) or the deadline passes (1).
wait_file() {
    local pidfile="$1" deadline="$2" file="$3"
    while [[ ! -f "$file" ]]; do
        launch_pid_alive "$pidfile" >/dev/null || return 1
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# wait_ready LAUNCH_PIDFILE DEADLINE CURL_ARGS... : polls with curl until it
# succeeds (0), the launched process is gone (1) or the deadline passes (1).
wait_ready() {
    local pidfile="$1" deadline="$2"
    shift 2
    while :; do
        if curl -fsS -o /dev/null --max-time 2 "$@" 2>/dev/null; then
            return 0
        fi
        launch_pid_alive "$pidfile" >/dev/null || return 1
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

show_log() { # FILE
    if [[ -s "$1" ]]; then
        log "---- last lines of $1 ----"
        tail -n 40 "$1" >&2
        log "----"
    fi
}

# --- nginx ----------------------------------------------------------------------

# The locations every nginx server has.
nginx_locations() {
    cat <<EOF
        client_max_body_size 0;

        location = /status {
            default_type text/plain;
            return 200 "ok\n";
        }

        location /files/ {
            root "$WWW_DIR";
        }

        # The same files at 2 MB/s (per request), for tests that act while a transfer runs; each
        # response names its connection (nginx's serial number) in X-Connection.
        location /slow/files/ {
            alias "$WWW_DIR/files/";
            limit_rate 2m;
            add_header X-Connection \$connection;
        }

        # The same files at 256 KB/s per request: after nginx's first second's worth, 1m.bin takes
        # two to three seconds more.
        location /slower/files/ {
            alias "$WWW_DIR/files/";
            limit_rate 256k;
            add_header X-Connection \$connection;
        }

        # The same files, 1,000 responses a second at most (queued, not refused), each naming its
        # connection: many requests stay in flight together however fast the client is.
        location /paced/files/ {
            alias "$WWW_DIR/files/";
            limit_req zone=paced burst=100000;
            add_header X-Connection \$connection;
        }

        # The same files from a server that ignores Range: always 200 with the whole body.
        location /norange/files/ {
            alias "$WWW_DIR/files/";
            max_ranges 0;
        }

        # Event streams (Tests/Vectors/events) as text/event-stream; through the fault proxy's bytewise
        # port every byte position of the response is a read boundary.
        location /events/ {
            alias "$WWW_DIR/events/";
            types { }
            default_type text/event-stream;
            add_header Cache-Control "no-cache";
        }

        # Bodies for the bundled plugins, as stored: text, XML, property lists.
        location /plugins/ {
            root "$WWW_DIR";
        }

        # The same bodies, gzip-compressed by nginx on the fly when the client accepts gzip.
        location /gzipped/plugins/ {
            alias "$WWW_DIR/plugins/";
            gzip on;
            gzip_types *;
            gzip_min_length 0;
            gzip_vary on;
        }

        # Bodies stored compressed, sent as they are with their Content-Encoding.
        location /encoded/gzip/ {
            root "$WWW_DIR";
            add_header Content-Encoding gzip;
        }
        location /encoded/deflate/ {
            root "$WWW_DIR";
            add_header Content-Encoding deflate;
        }
        location /encoded/br/ {
            root "$WWW_DIR";
            add_header Content-Encoding br;
        }
        location /encoded/zstd/ {
            root "$WWW_DIR";
            add_header Content-Encoding zstd;
        }

        # The plugin bodies again, each location with one caching header combination, for SluiceCache's
        # tests (nginx answers If-None-Match and If-Modified-Since for these static files with a 304).
        location /cached/max-age/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "max-age=86400";
        }
        location /cached/expires/ {
            alias "$WWW_DIR/plugins/";
            expires 24h;
        }
        location /cached/no-cache/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "no-cache";
        }
        location /cached/no-store/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "no-store";
        }
        location /cached/private/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "private, max-age=86400";
        }
        location /cached/must-revalidate/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "max-age=0, must-revalidate";
        }
        location /cached/last-modified-only/ {
            alias "$WWW_DIR/plugins/";
            etag off;
            add_header Cache-Control "max-age=0";
        }
        location /cached/vary-custom/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "max-age=86400";
            add_header Vary "X-Lang";
        }
        location /cached/vary-gzip/ {
            alias "$WWW_DIR/plugins/";
            add_header Cache-Control "max-age=86400";
            gzip on;
            gzip_types *;
            gzip_min_length 0;
            gzip_vary on;
        }

        # A redirect to itself, for redirect-loop tests.
        location = /loop {
            return 302 /loop;
        }

        # Two httpbin operations answered by nginx, for the OpenAPI client benchmark
        # (Tools/Benchmarks/openapi.sh): what the server does is then not what is measured.
        location = /openapi/get {
            default_type application/json;
            return 200 '{"args":{"count":"1","name":"bench"},"headers":{"Host":"127.0.0.1"},"origin":"127.0.0.1","url":"http://127.0.0.1/get?name=bench&count=1"}';
        }
        location = /openapi/bytes/1048576 {
            default_type application/octet-stream;
            alias "$WWW_DIR/files/1m.bin";
        }

        # The same with a relative Location (nginx otherwise writes its own scheme and host).
        location = /relative-loop {
            absolute_redirect off;
            return 302 /relative-loop;
        }

        # Accepts a request body of any size with any method (POST, PUT, ...),
        # reads it completely (buffered in memory, or in a temporary file under
        # run/tmp/client_body that nginx deletes after the request), throws it
        # away and answers 200 with JSON {"method": ..., "received": <bytes>}.
        # The proxy module reads the whole body before contacting the upstream;
        # the upstream (the sink server below) gets no body.
        location = /upload {
            client_max_body_size 0;
            client_body_buffer_size 1m;
            proxy_request_buffering on;
            proxy_pass_request_body off;
            proxy_method GET;
            proxy_set_header Content-Length "";
            proxy_set_header Transfer-Encoding "";
            proxy_set_header X-Upload-Method \$request_method;
            proxy_set_header X-Upload-Length \$content_length;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://upload_sink;
        }
EOF
}

# One HTTPS server for a trust test: certs/NAME.pem served on PORT.
nginx_trust_server() { # NAME PORT
    cat <<EOF

    # Trust tests: serves certs/$1.pem (see Tools/testenv/certs.py).
    server {
        listen 127.0.0.1:$2 ssl http2;
        server_name sluice-$1;
        ssl_certificate "$CERTS_DIR/$1.pem";
        ssl_certificate_key "$CERTS_DIR/$1.key";
$(nginx_locations)
    }
EOF
}

write_nginx_conf() { # HTTP_PORT HTTPS_PORT MTLS_PORT SINK_PORT PROXY_PORT MTLS_STRICT_PORT TRUST_PORTS...
    local http_port="$1" https_port="$2" mtls_port="$3" sink_port="$4" proxy_port="$5" mtls_strict_port="$6" user_line=""
    shift 6
    local trust_blocks="" name
    for name in "${TRUST_SERVERS[@]}"; do
        trust_blocks+="$(nginx_trust_server "$name" "$1")"$'\n'
        shift
    done
    # As root, workers would otherwise run as nobody and could not read the
    # files under the repository; as another user the directive is not allowed.
    if [[ "$(id -u)" == 0 ]]; then user_line="user root;"; fi
    cat >"$NGINX_CONF.tmp" <<EOF
# Generated by Tools/testenv/start.sh; rewritten on every start.
daemon off;
master_process on;
$user_line
worker_processes 2;
pid "$NGINX_MASTER_PIDFILE";
lock_file "$RUN_DIR/nginx.lock";
error_log "$NGINX_ERROR_LOG" notice;

events {
    worker_connections 1024;
}

http {
    types {
        text/plain                 txt;
        text/html                  html;
        application/json           json;
        application/xml            xml;
        application/x-plist        plist;
        application/octet-stream   bin;
    }
    default_type application/octet-stream;

    # One JSON object per line.
    log_format sluice escape=json
        '{"time":"\$time_iso8601","port":"\$server_port","scheme":"\$scheme",'
        '"protocol":"\$server_protocol","method":"\$request_method",'
        '"uri":"\$request_uri","status":\$status,'
        '"request_length":\$request_length,"content_length":"\$content_length",'
        '"transfer_encoding":"\$http_transfer_encoding","expect":"\$http_expect",'
        '"range":"\$http_range","accept_encoding":"\$http_accept_encoding",'
        '"user_agent":"\$http_user_agent","bytes_sent":\$bytes_sent,'
        '"body_bytes_sent":\$body_bytes_sent,"connection":\$connection,'
        '"connection_requests":\$connection_requests,'
        '"ssl_protocol":"\$ssl_protocol","ssl_cipher":"\$ssl_cipher","ssl_client_verify":"\$ssl_client_verify",'
        '"proxy_authorization":"\$http_proxy_authorization","via_proxy":"\$http_x_sluice_proxy",'
        '"request_time":\$request_time}';
    access_log "$NGINX_ACCESS_LOG" sluice;

    client_body_temp_path "$RUN_DIR/tmp/client_body";
    proxy_temp_path "$RUN_DIR/tmp/proxy";
    fastcgi_temp_path "$RUN_DIR/tmp/fastcgi";
    uwsgi_temp_path "$RUN_DIR/tmp/uwsgi";
    scgi_temp_path "$RUN_DIR/tmp/scgi";

    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 75s;
    keepalive_requests 100000;

    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SLUICE_SSL:1m;
    ssl_session_timeout 10m;

    # Requests to /paced/ wait their turn: 1,000 a second per server.
    limit_req_zone \$server_port zone=paced:1m rate=1000r/s;

    # The byte count that the /upload locations pass to the sink; 0 for a
    # request without a body.
    map \$http_x_upload_length \$sluice_upload_received {
        ""      0;
        default \$http_x_upload_length;
    }

    upstream upload_sink {
        server 127.0.0.1:$sink_port;
        keepalive 8;
    }

    # Plain HTTP/1.1 with keep-alive.
    server {
        listen 127.0.0.1:$http_port;
        # The same server on a Unix domain socket (SLUICE_HTTP_UNIX_SOCKET).
        listen unix:$RUN_DIR/nginx-http.sock;
        server_name sluice-http;
$(nginx_locations)
    }

    # HTTP/2 in clear text, with prior knowledge only (no upgrade from HTTP/1.1).
    server {
        listen 127.0.0.1:$H2C_PORT http2;
        server_name sluice-h2c;
$(nginx_locations)
    }

    # HTTPS; ALPN offers h2 and http/1.1.
    server {
        listen 127.0.0.1:$https_port ssl http2;
        server_name sluice-https;
        ssl_certificate "$SERVER_CERT";
        ssl_certificate_key "$SERVER_KEY";
$(nginx_locations)
    }

    # HTTPS that requires a client certificate issued by the test CA. Without
    # one, or with an untrusted one, the handshake completes and nginx answers
    # 400.
    server {
        listen 127.0.0.1:$mtls_port ssl http2;
        server_name sluice-mtls;
        ssl_certificate "$SERVER_CERT";
        ssl_certificate_key "$SERVER_KEY";
        ssl_client_certificate "$CA_FILE";
        ssl_verify_client on;
        ssl_verify_depth 3;
$(nginx_locations)
    }

    # HTTPS that ends the handshake when the client sends no certificate
    # (OpenSSL's SSL_VERIFY_FAIL_IF_NO_PEER_CERT, set through ssl_conf_command):
    # TLS 1.3 clients see the alert "certificate required".
    server {
        listen 127.0.0.1:$mtls_strict_port ssl http2;
        server_name sluice-mtls-strict;
        ssl_certificate "$SERVER_CERT";
        ssl_certificate_key "$SERVER_KEY";
        ssl_client_certificate "$CA_FILE";
        ssl_verify_client on;
        ssl_verify_depth 3;
        ssl_conf_command VerifyMode Peer,Require;
$(nginx_locations)
    }
$trust_blocks
    # A forward proxy for plain HTTP to the loopback servers, requiring the Basic credentials
    # proxy:secret; it marks what it forwards with X-Sluice-Proxy: 1.
    server {
        listen 127.0.0.1:$proxy_port;
        server_name sluice-proxy;
        location / {
            if (\$http_proxy_authorization != "Basic cHJveHk6c2VjcmV0") {
                add_header Proxy-Authenticate 'Basic realm="sluice"' always;
                return 407;
            }
            proxy_set_header Proxy-Authorization "";
            proxy_set_header X-Sluice-Proxy "1";
            proxy_http_version 1.1;
            proxy_pass http://\$http_host\$uri\$is_args\$args;
        }
    }

    # The same forward proxy over TLS (an HTTPS proxy: the client speaks TLS to the proxy itself).
    server {
        listen 127.0.0.1:$HTTPS_PROXY_PORT ssl;
        server_name sluice-https-proxy;
        ssl_certificate "$SERVER_CERT";
        ssl_certificate_key "$SERVER_KEY";
        location / {
            if (\$http_proxy_authorization != "Basic cHJveHk6c2VjcmV0") {
                add_header Proxy-Authenticate 'Basic realm="sluice"' always;
                return 407;
            }
            proxy_set_header Proxy-Authorization "";
            proxy_set_header X-Sluice-Proxy "https";
            proxy_http_version 1.1;
            proxy_pass http://\$http_host\$uri\$is_args\$args;
        }
    }

    # Answers the /upload requests proxied by the servers above.
    server {
        listen 127.0.0.1:$sink_port;
        server_name sluice-upload-sink;
        access_log off;
        location / {
            default_type application/json;
            return 200 '{"method":"\$http_x_upload_method","received":\$sluice_upload_received}\n';
        }
    }
}
EOF
    mv "$NGINX_CONF.tmp" "$NGINX_CONF"
}

start_nginx() {
    local attempt deadline
    for attempt in 1 2 3; do
        read -r HTTP_PORT HTTPS_PORT MTLS_PORT SINK_PORT PROXY_PORT MTLS_STRICT_PORT \
            CHAIN_PORT SELFSIGNED_PORT WRONGHOST_PORT EXPIRED_PORT NOTYETVALID_PORT H2C_PORT HTTPS_PROXY_PORT \
            <<<"$(free_ports 13)"
        write_nginx_conf "$HTTP_PORT" "$HTTPS_PORT" "$MTLS_PORT" "$SINK_PORT" "$PROXY_PORT" "$MTLS_STRICT_PORT" \
            "$CHAIN_PORT" "$SELFSIGNED_PORT" "$WRONGHOST_PORT" "$EXPIRED_PORT" "$NOTYETVALID_PORT"
        : >"$NGINX_ERROR_LOG"
        if ! "$NGINX_BIN" -t -q -p "$RUN_DIR/" -e "$NGINX_ERROR_LOG" -c "$NGINX_CONF" 2>>"$NGINX_ERROR_LOG"; then
            show_log "$NGINX_ERROR_LOG"
            die "nginx rejected $NGINX_CONF"
        fi
        timeout --signal=TERM --kill-after=10 "$LIFETIME" \
            "$NGINX_BIN" -p "$RUN_DIR/" -e "$NGINX_ERROR_LOG" -c "$NGINX_CONF" \
            </dev/null >>"$NGINX_STDOUT_LOG" 2>&1 &
        write_launch_pidfile "$NGINX_PIDFILE" "$!"
        log "nginx started (pid $!): http $HTTP_PORT, https $HTTPS_PORT, mtls $MTLS_PORT, mtls-strict $MTLS_STRICT_PORT"
        deadline=$((SECONDS + START_TIMEOUT))
        # The trust-test servers are probed with verification off (-k): their
        # certificates are untrusted, expired or for another host on purpose.
        if wait_ready "$NGINX_PIDFILE" "$deadline" "http://127.0.0.1:$HTTP_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" --cacert "$CA_FILE" "https://127.0.0.1:$HTTPS_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" --http2-prior-knowledge "http://127.0.0.1:$H2C_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" --cacert "$CA_FILE" --cert "$CLIENT_CERT" --key "$CLIENT_KEY" \
                "https://127.0.0.1:$MTLS_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" --cacert "$CA_FILE" --cert "$CLIENT_CERT" --key "$CLIENT_KEY" \
                "https://127.0.0.1:$MTLS_STRICT_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" --cacert "$CA_FILE" "https://127.0.0.1:$CHAIN_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" -k "https://127.0.0.1:$SELFSIGNED_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" -k "https://127.0.0.1:$WRONGHOST_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" -k "https://127.0.0.1:$EXPIRED_PORT/status" &&
            wait_ready "$NGINX_PIDFILE" "$deadline" -k "https://127.0.0.1:$NOTYETVALID_PORT/status"; then
            return 0
        fi
        if grep -q 'Address already in use' "$NGINX_ERROR_LOG" && ((attempt < 3)); then
            log "nginx: a port was taken meanwhile; retrying with new ports"
            "$TESTENV_SCRIPTS/stop.sh" --only nginx >/dev/null
            continue
        fi
        show_log "$NGINX_ERROR_LOG"
        show_log "$NGINX_STDOUT_LOG"
        die "nginx did not become ready within ${START_TIMEOUT} s"
    done
}

# --- httpbin --------------------------------------------------------------------

start_httpbin() {
    local attempt deadline
    for attempt in 1 2 3; do
        read -r HTTPBIN_PORT <<<"$(free_ports 1)"
        : >"$HTTPBIN_ERROR_LOG"
        timeout --signal=TERM --kill-after=10 "$LIFETIME" \
            "$VENV_DIR/bin/gunicorn" \
            --bind "127.0.0.1:$HTTPBIN_PORT" \
            --workers 2 --threads 8 \
            --graceful-timeout 5 \
            --pid "$HTTPBIN_MASTER_PIDFILE" \
            --worker-tmp-dir "$RUN_DIR/tmp/gunicorn" \
            --error-logfile "$HTTPBIN_ERROR_LOG" \
            --access-logfile "$HTTPBIN_ACCESS_LOG" \
            --chdir "$RUN_DIR" \
            --pythonpath "$TESTENV_SCRIPTS" \
            --timeout 300 \
            sluice_testapps:app \
            </dev/null >>"$HTTPBIN_STDOUT_LOG" 2>&1 &
        write_launch_pidfile "$HTTPBIN_PIDFILE" "$!"
        log "httpbin started (pid $!): http $HTTPBIN_PORT"
        deadline=$((SECONDS + START_TIMEOUT))
        if wait_ready "$HTTPBIN_PIDFILE" "$deadline" "http://127.0.0.1:$HTTPBIN_PORT/get"; then
            return 0
        fi
        if grep -q 'Address already in use' "$HTTPBIN_ERROR_LOG" && ((attempt < 3)); then
            log "httpbin: the port was taken meanwhile; retrying with a new port"
            "$TESTENV_SCRIPTS/stop.sh" --only httpbin >/dev/null
            continue
        fi
        show_log "$HTTPBIN_ERROR_LOG"
        show_log "$HTTPBIN_STDOUT_LOG"
        die "httpbin did not become ready within ${START_TIMEOUT} s"
    done
}

# --- Fault proxy -----------------------------------------------------------------

# Starts faultproxy.py with one port per fault of FAULTS, and sets FAULT_PORTS
# (same order). Ready once it has written its ready file (all ports listen) and
# a request through its pass port reaches nginx.
start_faultproxy() {
    local attempt deadline i name upstream
    local -a ports args
    for attempt in 1 2 3; do
        read -r -a ports <<<"$(free_ports "${#FAULTS[@]}")"
        args=(--ready-file "$FAULTPROXY_READY")
        for i in "${!FAULTS[@]}"; do
            name="${FAULTS[$i]}"
            upstream="$HTTP_PORT"
            if [[ "$name" == tls-cut ]]; then upstream="$HTTPS_PORT"; fi
            # cut-random: each response cut (RST) after 1 to 32 MiB of its body, for the resume tests.
            if [[ "$name" == cut-random ]]; then
                args+=(--listen "$name=${ports[$i]}:127.0.0.1:$upstream:reset-mid-body:bytes=1048576,max=33554432")
            else
                args+=(--listen "$name=${ports[$i]}:127.0.0.1:$upstream:$name")
            fi
        done
        rm -f "$FAULTPROXY_READY"
        : >"$FAULTPROXY_LOG"
        timeout --signal=TERM --kill-after=10 "$LIFETIME" \
            "$VENV_PY" "$TESTENV_SCRIPTS/faultproxy.py" "${args[@]}" \
            </dev/null >>"$FAULTPROXY_LOG" 2>&1 &
        write_launch_pidfile "$FAULTPROXY_PIDFILE" "$!"
        log "faultproxy started (pid $!): ${#FAULTS[@]} fault ports in front of nginx http $HTTP_PORT (tls-cut: https $HTTPS_PORT)"
        deadline=$((SECONDS + START_TIMEOUT))
        if wait_file "$FAULTPROXY_PIDFILE" "$deadline" "$FAULTPROXY_READY" &&
            wait_ready "$FAULTPROXY_PIDFILE" "$deadline" "http://127.0.0.1:${ports[0]}/status"; then
            FAULT_PORTS=("${ports[@]}")
            return 0
        fi
        if grep -q 'Address already in use' "$FAULTPROXY_LOG" && ((attempt < 3)); then
            log "faultproxy: a port was taken meanwhile; retrying with new ports"
            "$TESTENV_SCRIPTS/stop.sh" --only faultproxy >/dev/null
            continue
        fi
        show_log "$FAULTPROXY_LOG"
        die "faultproxy did not become ready within ${START_TIMEOUT} s"
    done
}

start_nginx
start_faultproxy
start_httpbin

# --- Forward proxies -------------------------------------------------------------

# tinyproxy, an HTTP proxy with CONNECT, requiring the Basic credentials proxy:secret; it logs each
# connection and request line to TINYPROXY_LOG.
start_tinyproxy() {
    local attempt deadline
    for attempt in 1 2 3; do
        read -r TINYPROXY_PORT <<<"$(free_ports 1)"
        printf '%s\n' "Port $TINYPROXY_PORT" "Listen 127.0.0.1" "Timeout 60" "MaxClients 200" \
            "LogFile \"$TINYPROXY_LOG\"" "LogLevel Info" "BasicAuth proxy secret" "DisableViaHeader Yes" \
            "Allow 127.0.0.1" >"$TINYPROXY_CONF"
        : >"$TINYPROXY_LOG"
        timeout --signal=TERM --kill-after=10 "$LIFETIME" tinyproxy -d -c "$TINYPROXY_CONF" \
            </dev/null >>"$RUN_DIR/tinyproxy-stdout.log" 2>&1 &
        write_launch_pidfile "$TINYPROXY_PIDFILE" "$!"
        log "tinyproxy started (pid $!): http proxy $TINYPROXY_PORT"
        deadline=$((SECONDS + START_TIMEOUT))
        if wait_ready "$TINYPROXY_PIDFILE" "$deadline" -x "http://proxy:secret@127.0.0.1:$TINYPROXY_PORT" \
            "http://127.0.0.1:$HTTP_PORT/status"; then
            return 0
        fi
        if ((attempt < 3)); then
            log "tinyproxy: not ready on port $TINYPROXY_PORT; retrying with a new port"
            "$TESTENV_SCRIPTS/stop.sh" --only tinyproxy >/dev/null
            continue
        fi
        show_log "$TINYPROXY_LOG"
        show_log "$RUN_DIR/tinyproxy-stdout.log"
        die "tinyproxy did not become ready within ${START_TIMEOUT} s"
    done
}

# microsocks, a SOCKS5 proxy requiring the user name sock and the password secret; it prints a line per
# connection it makes to SOCKS_LOG.
start_socks() {
    local attempt deadline
    for attempt in 1 2 3; do
        read -r SOCKS_PORT <<<"$(free_ports 1)"
        echo "$SOCKS_PORT" >"$RUN_DIR/microsocks.port"
        : >"$SOCKS_LOG"
        timeout --signal=TERM --kill-after=10 "$LIFETIME" microsocks -i 127.0.0.1 -p "$SOCKS_PORT" -u sock -P secret \
            </dev/null >>"$SOCKS_LOG" 2>&1 &
        write_launch_pidfile "$SOCKS_PIDFILE" "$!"
        log "microsocks started (pid $!): socks5 proxy $SOCKS_PORT"
        deadline=$((SECONDS + START_TIMEOUT))
        if wait_ready "$SOCKS_PIDFILE" "$deadline" -x "socks5://sock:secret@127.0.0.1:$SOCKS_PORT" \
            "http://127.0.0.1:$HTTP_PORT/status"; then
            return 0
        fi
        if ((attempt < 3)); then
            log "microsocks: not ready on port $SOCKS_PORT; retrying with a new port"
            "$TESTENV_SCRIPTS/stop.sh" --only socks >/dev/null
            continue
        fi
        show_log "$SOCKS_LOG"
        die "microsocks did not become ready within ${START_TIMEOUT} s"
    done
}

start_tinyproxy
start_socks

# --- Addresses for the tests ----------------------------------------------------
KEYS=(
    SLUICE_HTTP_URL SLUICE_HTTPS_URL SLUICE_MTLS_URL SLUICE_HTTPBIN_URL SLUICE_PROXY_URL
    SLUICE_CA_FILE SLUICE_CLIENT_CERT SLUICE_CLIENT_KEY
    SLUICE_WWW_DIR SLUICE_NGINX_ACCESS_LOG
    SLUICE_MTLS_STRICT_URL
    SLUICE_CHAIN_URL SLUICE_SELFSIGNED_URL SLUICE_WRONGHOST_URL SLUICE_EXPIRED_URL SLUICE_NOTYETVALID_URL
    SLUICE_SERVER_CERT SLUICE_CHAIN_CERT SLUICE_SELFSIGNED_CERT SLUICE_WRONGHOST_CERT SLUICE_EXPIRED_CERT
    SLUICE_NOTYETVALID_CERT SLUICE_CLIENT_KEY_ENCRYPTED SLUICE_CLIENT_KEY_PASSPHRASE SLUICE_H2C_URL
    SLUICE_CLIENT_P12 SLUICE_HTTP_UNIX_SOCKET SLUICE_HTTPS_PROXY_URL SLUICE_TINYPROXY_URL SLUICE_TINYPROXY_LOG
    SLUICE_SOCKS_URL SLUICE_SOCKS_LOG SLUICE_PYTHON
)
# The Python of the test environment, for the small servers a test starts itself (edgeserver.py).
SLUICE_PYTHON="$VENV_PY"
SLUICE_HTTP_URL="http://127.0.0.1:$HTTP_PORT"
SLUICE_HTTPS_URL="https://127.0.0.1:$HTTPS_PORT"
SLUICE_MTLS_URL="https://127.0.0.1:$MTLS_PORT"
SLUICE_HTTPBIN_URL="http://127.0.0.1:$HTTPBIN_PORT"
SLUICE_PROXY_URL="http://127.0.0.1:$PROXY_PORT"
SLUICE_CA_FILE="$CA_FILE"
SLUICE_CLIENT_CERT="$CLIENT_CERT"
SLUICE_CLIENT_KEY="$CLIENT_KEY"
SLUICE_WWW_DIR="$WWW_DIR"
SLUICE_NGINX_ACCESS_LOG="$NGINX_ACCESS_LOG"
SLUICE_MTLS_STRICT_URL="https://127.0.0.1:$MTLS_STRICT_PORT"
SLUICE_CHAIN_URL="https://127.0.0.1:$CHAIN_PORT"
SLUICE_SELFSIGNED_URL="https://127.0.0.1:$SELFSIGNED_PORT"
SLUICE_WRONGHOST_URL="https://127.0.0.1:$WRONGHOST_PORT"
SLUICE_EXPIRED_URL="https://127.0.0.1:$EXPIRED_PORT"
SLUICE_NOTYETVALID_URL="https://127.0.0.1:$NOTYETVALID_PORT"
SLUICE_SERVER_CERT="$SERVER_CERT"
SLUICE_CHAIN_CERT="$CERTS_DIR/chain.pem"
SLUICE_SELFSIGNED_CERT="$CERTS_DIR/selfsigned.pem"
SLUICE_WRONGHOST_CERT="$CERTS_DIR/wronghost.pem"
SLUICE_EXPIRED_CERT="$CERTS_DIR/expired.pem"
SLUICE_NOTYETVALID_CERT="$CERTS_DIR/notyetvalid.pem"
SLUICE_CLIENT_KEY_ENCRYPTED="$CERTS_DIR/client-encrypted.key"
SLUICE_CLIENT_KEY_PASSPHRASE="sluice-test-passphrase"
SLUICE_CLIENT_P12="$CERTS_DIR/client.p12"
SLUICE_HTTP_UNIX_SOCKET="$RUN_DIR/nginx-http.sock"
SLUICE_HTTPS_PROXY_URL="https://127.0.0.1:$HTTPS_PROXY_PORT"
SLUICE_TINYPROXY_URL="http://127.0.0.1:$TINYPROXY_PORT"
SLUICE_TINYPROXY_LOG="$TINYPROXY_LOG"
SLUICE_SOCKS_URL="socks5://127.0.0.1:$SOCKS_PORT"
SLUICE_SOCKS_LOG="$SOCKS_LOG"
SLUICE_H2C_URL="http://127.0.0.1:$H2C_PORT"
# One key per fault: SLUICE_FAULT_<NAME>_URL, NAME upper-cased with - as _.
for i in "${!FAULTS[@]}"; do
    name="${FAULTS[$i]}"
    key="SLUICE_FAULT_$(tr 'a-z-' 'A-Z_' <<<"$name")_URL"
    scheme=http
    if [[ "$name" == tls-cut ]]; then scheme=https; fi
    printf -v "$key" '%s://127.0.0.1:%s' "$scheme" "${FAULT_PORTS[$i]}"
    KEYS+=("$key")
done
KEYS+=(SLUICE_FAULT_LOG)
SLUICE_FAULT_LOG="$FAULTPROXY_LOG"

{
    echo "# Written by Tools/testenv/start.sh; removed by stop.sh."
    for key in "${KEYS[@]}"; do
        printf 'export %s=%q\n' "$key" "${!key}"
    done
} >"$SERVERS_ENV.tmp"

for key in "${KEYS[@]}"; do printf '%s\0%s\0' "$key" "${!key}"; done |
    "$VENV_PY" -c '
import json, sys
items = sys.stdin.buffer.read().decode().split("\0")[:-1]
print(json.dumps(dict(zip(items[0::2], items[1::2])), indent=2))
' >"$SERVERS_JSON.tmp"

mv "$SERVERS_ENV.tmp" "$SERVERS_ENV"
mv "$SERVERS_JSON.tmp" "$SERVERS_JSON"
started_ok=1

log "servers ready; addresses in $SERVERS_ENV and $SERVERS_JSON"
for key in SLUICE_HTTP_URL SLUICE_HTTPS_URL SLUICE_MTLS_URL SLUICE_HTTPBIN_URL; do
    log "  $key=${!key}"
done
