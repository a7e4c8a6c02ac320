"""Socket-level checks of faultproxy.py (standard library only).

    python3 -m unittest Tools/testenv/test_faultproxy.py      # or, in Tools/testenv:
    python3 -m unittest test_faultproxy

Starts a small HTTP/1.1 upstream (http.server, in a thread), a fake TLS upstream
(raw bytes) and faultproxy.py as a subprocess, all on free ports of 127.0.0.1,
and checks what a client sees through each fault. Every socket operation has a
timeout; the whole run takes about 25 s.
"""

from __future__ import annotations

import gzip
import http.server
import json
import os
import re
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
import faultproxy  # noqa: E402  (for its defaults and mixed_draws)

TIMEOUT = 5.0           # default timeout of every client socket
TEXT = b"".join(b"line %05d: sluice streams bytes through a faulty proxy\n" % i for i in range(3000))
GZIPPED = gzip.compress(TEXT, mtime=0)


def body_of(n: int) -> bytes:
    """The deterministic body of /bytes/N."""
    return (bytes(range(256)) * (n // 256 + 1))[:n]


class Upstream(http.server.BaseHTTPRequestHandler):
    """GET /bytes/N: N bytes; GET /gzip: a gzip body. Each answer says which
    Connection header it got in X-Seen-Connection. Keep-alive (HTTP/1.1)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/gzip":
            body, extra = GZIPPED, [("Content-Encoding", "gzip")]
        else:
            m = re.fullmatch(r"/bytes/(\d+)", self.path)
            if not m:
                self.send_error(404)
                return
            body, extra = body_of(int(m.group(1))), []
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Seen-Connection", self.headers.get("Connection", "-"))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FakeTLSUpstream(threading.Thread):
    """Reads whatever a connection sends first, answers 500 fixed bytes and keeps
    the connection open until the other side closes. Records what it received."""

    REPLY = bytes((i * 37 + 11) % 256 for i in range(500))

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        with conn:
            conn.settimeout(10)
            try:
                self.received.append(conn.recv(65536))
                conn.sendall(self.REPLY)
                while conn.recv(65536):
                    pass
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        self.sock.close()


def free_ports(n: int) -> list[int]:
    socks = [socket.create_server(("127.0.0.1", 0)) for _ in range(n)]
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def request(path: str, extra: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: upstream\r\nConnection: keep-alive\r\n{extra}\r\n".encode()


def connect(port: int, timeout: float = TIMEOUT) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def recv_all(sock: socket.socket) -> tuple[bytes, BaseException | None]:
    """Reads until EOF; returns (bytes, None) or (bytes so far, the error)."""
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except (OSError, socket.timeout) as e:
            return b"".join(chunks), e
        if not data:
            return b"".join(chunks), None
        chunks.append(data)


def read_response(sock: socket.socket) -> tuple[bytes, bytes]:
    """Reads one response framed by Content-Length: (head, body)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(65536)
        if not data:
            raise EOFError(f"EOF inside the head: {buf!r}")
        buf += data
    head, _, body = buf.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        data = sock.recv(65536)
        if not data:
            raise EOFError(f"EOF after {len(body)} of {length} body bytes")
        body += data
    return head + b"\r\n\r\n", body


def split(data: bytes) -> tuple[bytes, bytes]:
    head, sep, body = data.partition(b"\r\n\r\n")
    assert sep, f"no end of head in {data[:200]!r}"
    return head + sep, body


class Proxy:
    """faultproxy.py as a subprocess with the given --listen specs (NAME -> spec
    without the port); its log goes to a file."""

    def __init__(self, tmp: str, specs: dict[str, str]):
        ports = free_ports(len(specs))
        self.ports = dict(zip(specs, ports))
        self.log_path = os.path.join(tmp, f"faultproxy-{ports[0]}.log")
        ready = os.path.join(tmp, f"ready-{ports[0]}.json")
        args = [sys.executable, os.path.join(HERE, "faultproxy.py"), "--ready-file", ready]
        for name, spec in specs.items():
            args += ["--listen", f"{name}={self.ports[name]}:{spec}"]
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not os.path.exists(ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"faultproxy did not start:\n{self.log()}")
            time.sleep(0.02)
        with open(ready) as f:
            assert json.load(f)["ports"] == self.ports

    def log(self) -> str:
        with open(self.log_path) as f:
            return f.read()

    def lines_for(self, name: str) -> list[str]:
        return [l for l in self.log().splitlines() if f" conn={name}#" in l]

    def wait_lines(self, name: str, n: int, timeout: float = 5.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while True:
            lines = self.lines_for(name)
            if len(lines) >= n or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)

    def line_of(self, sock_or_port, timeout: float = 5.0, name: str | None = None) -> str:
        """The log line of the connection from this client socket (or local
        port), once the proxy has ended that connection. With `name`, only a
        connection to that listener counts: client ports are reused, and a
        connection of another test may have had the same one."""
        port = sock_or_port if isinstance(sock_or_port, int) else sock_or_port.getsockname()[1]
        deadline = time.monotonic() + timeout
        while True:
            lines = [l for l in self.log().splitlines() if f" peer=127.0.0.1:{port} " in l
                     and (name is None or f" conn={name}#" in l)]
            if lines:
                return lines[-1]
            if time.monotonic() > deadline:
                raise AssertionError(f"no log line for client port {port}:\n{self.log()}")
            time.sleep(0.02)

    def stop(self) -> float:
        """SIGTERM; returns how long the process took to exit."""
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()
        return time.monotonic() - start


class FaultProxyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.http = ThreadingServer(("127.0.0.1", 0), Upstream)
        threading.Thread(target=cls.http.serve_forever, daemon=True).start()
        cls.tls = FakeTLSUpstream()
        cls.tls.start()
        up = f"127.0.0.1:{cls.http.server_address[1]}"
        dead = free_ports(1)[0]  # nothing listens there
        specs = {name: f"{up}:{name}" for name in faultproxy.FAULTS}
        specs["tls-cut"] = f"127.0.0.1:{cls.tls.port}:tls-cut"
        specs["truncate-10"] = f"{up}:truncate:bytes=10"
        specs["cut-random"] = f"{up}:reset-mid-body:bytes=100,max=90000"
        specs["latency-0"] = f"{up}:latency:base=0,jitter=0"
        specs["corrupt-body-0"] = f"{up}:corrupt-body:offset=0,count=4"
        specs["mixed-7"] = f"{up}:mixed:seed=7"
        specs["dead"] = f"127.0.0.1:{dead}:pass"
        cls.proxy = Proxy(cls.tmp.name, specs)
        cls.port = cls.proxy.ports

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.http.shutdown()
        cls.http.server_close()
        cls.tls.stop()
        cls.tmp.cleanup()

    def tearDown(self):
        # Whatever a test did, the proxy must still be running.
        self.assertIsNone(self.proxy.proc.poll(), f"faultproxy exited:\n{self.proxy.log()}")

    # -- pass ------------------------------------------------------------------

    def test_pass_forwards_untouched_with_keep_alive(self):
        with connect(self.port["pass"]) as s:
            for n in (10, 100_000, 0):
                s.sendall(request(f"/bytes/{n}"))
                head, body = read_response(s)
                self.assertTrue(head.startswith(b"HTTP/1.1 200 "))
                self.assertIn(b"X-Seen-Connection: keep-alive", head)
                self.assertEqual(body, body_of(n))
            local = s.getsockname()[1]
        self.assertRegex(self.proxy.line_of(local, name="pass"), r"fault=pass .* end=client-closed")

    def test_upstream_down_closes_client_and_proxy_goes_on(self):
        with connect(self.port["dead"]) as s:
            s.sendall(request("/bytes/10"))
            data, err = recv_all(s)
            self.assertEqual(data, b"")
            local = s.getsockname()[1]
        self.assertIn("end=upstream-connect-failed", self.proxy.line_of(local, name="dead"))
        self.test_pass_forwards_untouched_with_keep_alive()

    def test_client_reset_does_not_hurt(self):
        for name in ("pass", "latency", "corrupt-body", "half-open", "blackhole", "reset-before-response"):
            s = connect(self.port[name])
            s.sendall(request("/bytes/200000")[:20])
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
            s.close()   # RST
        time.sleep(0.3)
        self.test_pass_forwards_untouched_with_keep_alive()

    # -- resets ------------------------------------------------------------------

    def test_reset_before_response(self):
        with connect(self.port["reset-before-response"]) as s:
            s.sendall(request("/bytes/10"))
            data, err = recv_all(s)
            local = s.getsockname()[1]
        self.assertEqual(data, b"")
        self.assertIsInstance(err, ConnectionResetError)
        line = self.proxy.line_of(local, name="reset-before-response")
        self.assertIn("end=rst-sent", line)
        self.assertIn('request="GET /bytes/10 HTTP/1.1"', line)

    def test_reset_mid_body(self):
        with connect(self.port["reset-mid-body"]) as s:
            s.sendall(request("/bytes/100000"))
            data, err = recv_all(s)
            local = s.getsockname()[1]
        self.assertIsInstance(err, ConnectionResetError)
        head, body = split(data)
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "))
        self.assertIn(b"Content-Length: 100000", head)
        self.assertIn(b"X-Seen-Connection: close", head)   # the request was rewritten
        self.assertEqual(body, body_of(1000))              # the default: 1000 body bytes
        self.assertIn("end=rst-sent", self.proxy.line_of(local, name="reset-mid-body"))

    def test_reset_mid_body_at_random_points(self):
        cuts = set()
        for _ in range(6):
            with connect(self.port["cut-random"]) as s:
                s.sendall(request("/bytes/100000"))
                data, err = recv_all(s)
                local = s.getsockname()[1]
            self.assertIsInstance(err, ConnectionResetError)
            _, body = split(data)
            self.assertTrue(100 <= len(body) <= 90000)
            self.assertEqual(body, body_of(100000)[:len(body)])
            self.assertIn(f"cut={len(body)}", self.proxy.line_of(local, name="cut-random"))
            cuts.add(len(body))
        self.assertGreater(len(cuts), 1)   # drawn for each connection

    # -- truncate ----------------------------------------------------------------

    def test_truncate(self):
        for name, n in (("truncate", 1000), ("truncate-10", 10)):
            with self.subTest(name):
                with connect(self.port[name]) as s:
                    s.sendall(request("/bytes/100000"))
                    data, err = recv_all(s)
                    local = s.getsockname()[1]
                self.assertIsNone(err)                      # a clean EOF
                head, body = split(data)
                self.assertIn(b"Content-Length: 100000", head)
                self.assertEqual(body, body_of(n))
                self.assertIn("end=fin-sent", self.proxy.line_of(local, name=name))

    def test_truncate_short_body_passes_whole(self):
        with connect(self.port["truncate"]) as s:
            s.sendall(request("/bytes/500"))
            data, err = recv_all(s)
            local = s.getsockname()[1]
        self.assertIsNone(err)
        self.assertEqual(split(data)[1], body_of(500))
        self.assertIn("end=upstream-closed note=body-shorter-than-limit", self.proxy.line_of(local, name="truncate"))

    # -- corruption ----------------------------------------------------------------

    def test_corrupt_head(self):
        with connect(self.port["corrupt-head"]) as s:
            s.sendall(request("/bytes/300"))
            data, err = recv_all(s)
        self.assertIsNone(err)
        self.assertFalse(data.startswith(b"HTTP/1.1 "))
        self.assertTrue(data.startswith(b"HTXP/1.1 2x0 ??\r\nServer: "), data[:60])
        self.assertEqual(split(data)[1], body_of(300))

    def test_corrupt_body(self):
        with connect(self.port["corrupt-body"]) as s:
            s.sendall(request("/bytes/1000"))
            data, err = recv_all(s)
            local = s.getsockname()[1]
        self.assertIsNone(err)
        head, body = split(data)
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "))
        original = body_of(1000)
        self.assertEqual(len(body), 1000)
        self.assertEqual(body[:64], original[:64])
        self.assertEqual(body[64:80], bytes(b ^ 0xFF for b in original[64:80]))
        self.assertEqual(body[80:], original[80:])
        self.assertIn("flipped=16", self.proxy.line_of(local, name="corrupt-body"))

    def test_corrupt_body_params(self):
        with connect(self.port["corrupt-body-0"]) as s:
            s.sendall(request("/bytes/100"))
            data, _ = recv_all(s)
        body, original = split(data)[1], body_of(100)
        self.assertEqual(body[:4], bytes(b ^ 0xFF for b in original[:4]))
        self.assertEqual(body[4:], original[4:])

    def test_corrupt_body_breaks_gzip(self):
        with connect(self.port["corrupt-body"]) as s:
            s.sendall(request("/gzip"))
            data, _ = recv_all(s)
        head, body = split(data)
        self.assertIn(b"Content-Encoding: gzip", head)
        self.assertEqual(len(body), len(GZIPPED))
        self.assertNotEqual(body, GZIPPED)
        with self.assertRaises((zlib.error, gzip.BadGzipFile, EOFError)):
            gzip.decompress(body)

    # -- timing ----------------------------------------------------------------------

    def test_latency(self):
        base, jitter = (faultproxy.FAULTS["latency"][k] / 1000 for k in ("base", "jitter"))
        with connect(self.port["latency"]) as s:
            for n in (100, 50_000):   # keep-alive: every response is delayed
                start = time.monotonic()
                s.sendall(request(f"/bytes/{n}"))
                _, body = read_response(s)
                elapsed = time.monotonic() - start
                self.assertEqual(body, body_of(n))
                self.assertGreaterEqual(elapsed, base)
                self.assertLess(elapsed, base + jitter + 1.0)
        with connect(self.port["latency-0"]) as s:
            start = time.monotonic()
            s.sendall(request("/bytes/100"))
            read_response(s)
            self.assertLess(time.monotonic() - start, base)

    def test_bandwidth(self):
        rate = faultproxy.FAULTS["bandwidth"]["rate"]
        size = 256_000
        with connect(self.port["bandwidth"], timeout=20) as s:
            start = time.monotonic()
            s.sendall(request(f"/bytes/{size}"))
            _, body = read_response(s)
            elapsed = time.monotonic() - start
        self.assertEqual(body, body_of(size))
        self.assertGreaterEqual(elapsed, 0.95 * size / rate)
        self.assertLess(elapsed, 1.5 * size / rate + 1)

    def test_bytewise(self):
        gap = faultproxy.FAULTS["bytewise"]["gap"] / 1000
        size = 200
        with connect(self.port["bytewise"], timeout=20) as s:
            start = time.monotonic()
            s.sendall(request(f"/bytes/{size}"))
            reads = []
            data = b""
            while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < size:
                piece = s.recv(65536)
                if not piece:
                    break
                reads.append(len(piece))
                data += piece
            elapsed = time.monotonic() - start
        self.assertEqual(data.partition(b"\r\n\r\n")[2], body_of(size))
        self.assertGreaterEqual(elapsed, 0.9 * len(data) * gap)
        # One byte per write: most reads see one byte (a busy machine may join a few).
        self.assertGreater(reads.count(1), len(reads) // 2)

    # -- silence -------------------------------------------------------------------

    def check_silent_and_open(self, name: str, end: str):
        s = connect(self.port[name], timeout=1.0)
        local = s.getsockname()[1]
        s.sendall(request("/bytes/10"))
        start = time.monotonic()
        with self.assertRaises(socket.timeout):
            s.recv(1)                           # no byte, no EOF, no reset within 1 s
        self.assertGreaterEqual(time.monotonic() - start, 0.9)
        s.setblocking(False)
        with self.assertRaises(BlockingIOError):
            s.recv(1)                           # still open
        self.assertFalse([l for l in self.proxy.log().splitlines()
                          if f" peer=127.0.0.1:{local} " in l and f" conn={name}#" in l])
        s.close()
        # The proxy notices the client leaving and ends the connection.
        line = self.proxy.line_of(local, name=name)
        self.assertIn(f"end={end}", line)
        return line

    def test_half_open(self):
        line = self.check_silent_and_open("half-open", "client-closed")
        self.assertRegex(line, r"c2s=\d+ s2c=0 ")
        self.assertIn('request="GET /bytes/10 HTTP/1.1"', line)

    def test_blackhole(self):
        line = self.check_silent_and_open("blackhole", "client-closed")
        self.assertIn(" c2s=0 s2c=0 ", line)

    # -- TLS cut ---------------------------------------------------------------------

    def test_tls_cut(self):
        n = faultproxy.FAULTS["tls-cut"]["bytes"]
        hello = b"\x16\x03\x01\x00\x10" + bytes(16)       # looks like a ClientHello record
        with connect(self.port["tls-cut"]) as s:
            s.sendall(hello)
            data, err = recv_all(s)
            local = s.getsockname()[1]
        self.assertIsNone(err)
        self.assertEqual(data, FakeTLSUpstream.REPLY[:n])
        self.assertIn(hello, self.tls.received)
        self.assertIn("end=fin-sent", self.proxy.line_of(local, name="tls-cut"))

    # -- mixed -----------------------------------------------------------------------

    def classify(self, data: bytes, err, n: int) -> str:
        if isinstance(err, socket.timeout):
            return "half-open" if data == b"" else "stalled"
        if isinstance(err, ConnectionResetError):
            return "reset-before-response" if data == b"" else "reset-mid-body"
        if err is not None:
            return f"error {err!r}"
        head, body = split(data)
        if len(body) < n:
            return "truncate"
        if body != body_of(n):
            return "corrupt-body"
        return "ok"

    def test_mixed(self):
        count, n = 200, 2000
        expected = faultproxy.mixed_draws(7, count)
        seen = []
        for i in range(count):
            with connect(self.port["mixed-7"], timeout=1.5) as s:   # half-open: a timeout
                s.sendall(request(f"/bytes/{n}"))
                data, err = recv_all(s)
            seen.append(self.classify(data, err, n))
        # Pass and latency both answer correctly.
        want = ["ok" if f in ("pass", "latency") else f for f in expected]
        self.assertEqual(seen, want)
        # The mixture: mostly pass, each fault of the table at least once.
        counts = {f: expected.count(f) for _, f, _ in faultproxy.MIXED_TABLE}
        self.assertTrue(0.7 * count <= counts["pass"] <= 0.92 * count, counts)
        self.assertTrue(all(counts.values()), counts)
        # The log names each draw, in accept order.
        lines = self.proxy.wait_lines("mixed-7", count)
        drew = {int(re.search(r"conn=mixed-7#(\d+)", l).group(1)): re.search(r" drew=(\S+)", l).group(1)
                for l in lines}
        self.assertEqual([drew[i + 1] for i in range(count)], expected)
        # Default seed 1 is a different sequence from seed 7, and the same every time.
        self.assertEqual(faultproxy.mixed_draws(1, 50), faultproxy.mixed_draws(1, 50))
        self.assertNotEqual(faultproxy.mixed_draws(1, 50), faultproxy.mixed_draws(7, 50))


class ArgumentsAndSignals(unittest.TestCase):
    def test_bad_arguments_exit_2(self):
        script = os.path.join(HERE, "faultproxy.py")
        for spec in ("x=1:127.0.0.1:2:nosuchfault", "x=1:127.0.0.1:2:latency:speed=3",
                     "x=1:127.0.0.1", "x=1:127.0.0.1:2:bandwidth:rate=0"):
            with self.subTest(spec):
                r = subprocess.run([sys.executable, script, "--listen", spec],
                                   capture_output=True, timeout=10)
                self.assertEqual(r.returncode, 2, r.stderr)

    def test_port_in_use_exits_2(self):
        with socket.create_server(("127.0.0.1", 0)) as taken:
            port = taken.getsockname()[1]
            r = subprocess.run([sys.executable, os.path.join(HERE, "faultproxy.py"),
                                "--listen", f"p={port}:127.0.0.1:1:pass"],
                               capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2)
        self.assertIn("Address already in use", r.stdout)

    def test_sigterm_ends_promptly_with_open_connections(self):
        with tempfile.TemporaryDirectory() as tmp:
            up = free_ports(1)[0]
            proxy = Proxy(tmp, {"half-open": f"127.0.0.1:{up}:half-open",
                                "blackhole": f"127.0.0.1:{up}:blackhole"})
            try:
                socks = [connect(proxy.ports[name], timeout=2) for name in ("half-open", "blackhole")]
                for s in socks:
                    s.sendall(request("/"))
                time.sleep(0.3)
                took = proxy.stop()
                self.assertLess(took, 3.0)
                self.assertEqual(proxy.proc.returncode, 0)
                log = proxy.log()
                self.assertEqual(log.count("end=proxy-exit"), 2, log)
                for s in socks:
                    data, err = recv_all(s)       # closed by the proxy: EOF or reset
                    self.assertEqual(data, b"")
                    self.assertNotIsInstance(err, socket.timeout)
                    s.close()
            finally:
                proxy.stop()


if __name__ == "__main__":
    unittest.main()
