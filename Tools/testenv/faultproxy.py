#!/usr/bin/env python3
"""A fault-injecting TCP proxy for Sluice's tests (Python 3.11, standard library only).

One process listens on several ports of 127.0.0.1; each port forwards to one
upstream and injects one kind of network fault, so that a test can send a
request to that port and check that the client reports the matching typed
error. start.sh runs it under `timeout`, with nginx's plain HTTP port as the
upstream of every port but `tls-cut`, whose upstream is nginx's HTTPS port.

Usage
-----
    faultproxy.py --listen NAME=PORT:UPSTREAM_HOST:UPSTREAM_PORT:FAULT[:KEY=VALUE[,KEY=VALUE...]]
                  [--listen ...] [--ready-file PATH]

  NAME          a label for the log ([A-Za-z0-9_.-]+), e.g. the fault's name
  PORT          the port to listen on (always on 127.0.0.1); 0 picks a free one
  UPSTREAM_*    where to forward to (a host name or IPv4 address, not IPv6);
                given but unused for reset-before-response, half-open, blackhole
  FAULT         one of the fault classes below
  KEY=VALUE     the fault's parameters (integers), e.g. `latency:base=50,jitter=0`

  --ready-file  once every port is listening, the proxy writes this file (JSON:
                {"pid": ..., "ports": {NAME: PORT, ...}}, written to a temporary
                name and renamed, so it appears complete). It also prints a line
                `ready ...` to stdout. start.sh waits for the file.

  If a port cannot be bound the proxy prints `NAME: cannot listen on
  127.0.0.1:PORT: <strerror>` (e.g. `Address already in use`) and exits with
  status 2; a bad argument also exits with status 2.

Fault classes (the names are a contract with the Swift tests)
-------------------------------------------------------------
  pass                   forwards both ways untouched (the control case)
  reset-before-response  reads the request head (up to the blank line), then
                         resets the connection (RST: SO_LINGER on, timeout 0)
                         without sending a byte
  reset-mid-body         forwards the request, then the response head and the
                         first `bytes` body bytes (default 1000), then RST; with
                         `max` above `bytes`, a number of body bytes drawn at
                         random from `bytes`..`max` for each connection (logged
                         as `cut=N`)
  truncate               as reset-mid-body, but closes cleanly (FIN) after
                         `bytes` body bytes (default 1000): the client sees a
                         body shorter than its Content-Length, then EOF
  latency                forwards, delaying every chunk sent toward the client
                         by `base` ms (default 300) plus a uniform random
                         0..`jitter` ms (default 100); chunks keep their order
                         and each is delayed from the moment it arrived (a
                         pipeline, not a stop-and-wait), so it is latency, not
                         a throughput cap
  bandwidth              forwards, limiting server->client to `rate` bytes per
                         second (default 64000), paced in 10 ms slices
  bytewise               forwards, sending server->client one byte per write,
                         `gap` ms apart (default 1), with TCP_NODELAY: every
                         byte position of the response is a place where the
                         client can see one read end and the next begin (event
                         stream parsers are tested against it)
  corrupt-head           forwards, but replaces the status line of the response
                         with `HTXP/1.1 2x0 ??\\r\\n` (not valid HTTP)
  corrupt-body           forwards the head untouched, and XORs with 0xFF the
                         `count` body bytes (default 16) starting at body offset
                         `offset` (default 64): a gzip body no longer decodes
  tls-cut                byte level, for a TLS upstream: forwards the client's
                         bytes, forwards only the first `bytes` bytes (default
                         100, part of the ServerHello) the server sends back,
                         then closes (FIN); the handshake cannot complete
  half-open              reads the request, never answers and never closes; the
                         connection ends when the client goes away (or the
                         proxy exits)
  blackhole              accepts, then never reads, writes nor closes; the
                         connection ends when the client goes away (detected
                         with TCP_INFO, without reading) or the proxy exits
  mixed                  for soak tests: each accepted connection draws one of
                         the faults of MIXED_TABLE below at random (mostly
                         pass), from a random.Random(`seed`) (default 1) of its
                         own port, in accept order; the log line says what it
                         drew (`drew=...`). mixed_draws(seed, n) below gives the
                         sequence of draws.

"Body" means the bytes after the end of the response head (`\\r\\n\\r\\n`),
counted as they are on the wire: chunked encoding is not decoded (a chunked
body's offsets include its chunk-size lines). Interim 1xx heads (100 Continue,
103 Early Hints; not 101) are forwarded as they are and the fault applies to the
final response. A body shorter than `bytes` (reset-mid-body, truncate) or
`offset` (corrupt-body) passes whole and the connection then ends as pass would
(the log line says `note=body-shorter-than-limit` / `flipped=0`).

Keep-alive
----------
  pass, latency, bandwidth: byte level; a keep-alive connection carries any
  number of requests, each treated the same (delayed, throttled, untouched).
  reset-mid-body, truncate, corrupt-head, corrupt-body: the fault applies to
  the one response of each connection. To make that hold, the proxy rewrites
  the first request head of the connection: it drops its Connection,
  Keep-Alive and Proxy-Connection headers and adds `Connection: close`, so the
  upstream answers once (with `Connection: close`) and closes, and a client
  does not reuse the connection. Every request to these ports therefore gets
  the fault, whatever the client's connection pool does.
  mixed: the same rewrite on every connection, whatever it drew (pass
  included), so every request opens a new connection and makes a new draw.
  reset-before-response, half-open, blackhole: nothing is ever answered.

Logging
-------
Startup and shutdown lines, then one line per connection when it ends, on
stdout (start.sh sends it to .testenv/run/faultproxy.log):

  2025-01-01T12:00:00.123Z conn=truncate#3 fault=truncate peer=127.0.0.1:40000
      c2s=78 s2c=1250 secs=0.004 end=fin-sent request="GET /files/64k.bin HTTP/1.1"

(one line). c2s: bytes read from the client; s2c: bytes written to the client.
`end` is how the connection ended:
  client-closed    the client closed (EOF) first; the rest was passed on
  upstream-closed  the upstream closed first; the client got a FIN
  client-reset     reading from or writing to the client failed (e.g. RST)
  upstream-reset   the upstream failed (e.g. RST); the client got a RST too
  upstream-connect-failed  the upstream did not accept; the client is closed
  rst-sent         the fault reset the connection (RST)
  fin-sent         the fault closed the connection cleanly (FIN)
  proxy-exit       the proxy was stopped while the connection was open
  error            an unexpected error in the proxy itself (`error=...`); the
                   proxy goes on

Robustness: no client or upstream error ends the process (it is logged); every
connection's task ends when either side closes: when the upstream closes, the
client gets a FIN and up to 5 s to close its side; when the client closes
(EOF), the FIN is passed upstream and the upstream's answer still forwarded
while bytes keep coming (a silence of 10 s ends it); a reset or error on either
side ends it at once. SIGTERM (or SIGINT) closes the ports and all connections
and exits 0 within about a second.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import fcntl
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import termios

LISTEN_HOST = "127.0.0.1"   # the proxy never listens anywhere else
CHUNK = 64 * 1024           # read size for forwarding
HEAD_LIMIT = 64 * 1024      # longest request/response head the proxy looks for
CONNECT_TIMEOUT = 10.0      # seconds to connect to the upstream
FLUSH_TIMEOUT = 5.0         # how long to wait for the client to take bytes before a RST
LINGER_TIMEOUT = 5.0        # after our FIN, how long to wait for the client's
HALF_CLOSE_IDLE = 10.0      # after the client's FIN, how long the upstream may stay silent
BLACKHOLE_POLL = 0.25       # seconds between TCP_INFO checks of a blackhole connection
BANDWIDTH_SLICE = 0.010     # bandwidth pacing slice, seconds
CORRUPT_STATUS_LINE = b"HTXP/1.1 2x0 ??\r\n"

# Faults, their parameters and defaults. The names are the contract.
FAULTS: dict[str, dict[str, int]] = {
    "pass": {},
    "reset-before-response": {},
    "reset-mid-body": {"bytes": 1000, "max": 0},
    "truncate": {"bytes": 1000},
    "latency": {"base": 300, "jitter": 100},
    "bandwidth": {"rate": 64000},
    "bytewise": {"gap": 1},
    "corrupt-head": {},
    "corrupt-body": {"offset": 64, "count": 16},
    "tls-cut": {"bytes": 100},
    "half-open": {},
    "blackhole": {},
    "mixed": {"seed": 1},
}

# Faults that apply to "the response" and so make each connection carry one
# exchange (see Keep-alive in the docstring).
ONE_EXCHANGE = {"reset-mid-body", "truncate", "corrupt-head", "corrupt-body"}

# What a `mixed` connection can draw: (weight, fault, params). Weights sum to
# 100, so they read as percentages. The byte counts are smaller than the
# faults' defaults so that small bodies are hit too.
MIXED_TABLE: tuple[tuple[int, str, dict[str, int]], ...] = (
    (82, "pass", {}),
    (3, "reset-before-response", {}),
    (3, "reset-mid-body", {"bytes": 100}),
    (3, "truncate", {"bytes": 100}),
    (3, "latency", {"base": 20, "jitter": 30}),
    (3, "corrupt-body", {"offset": 16, "count": 16}),
    (3, "half-open", {}),
)


def mixed_draw(rng: random.Random) -> tuple[str, dict[str, int]]:
    """One draw from MIXED_TABLE (one rng.random() call per draw)."""
    weights = [w for w, _, _ in MIXED_TABLE]
    _, fault, params = rng.choices(MIXED_TABLE, weights=weights)[0]
    return fault, params


def mixed_draws(seed: int, n: int) -> list[str]:
    """The faults that the first n connections of a `mixed` port with this seed draw."""
    rng = random.Random(seed)
    return [mixed_draw(rng)[0] for _ in range(n)]


# --- Logging -------------------------------------------------------------------

def log(line: str) -> None:
    """One line to stdout with a UTC timestamp; never raises."""
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    try:
        sys.stdout.write(f"{stamp} {line}\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def quote(text: str) -> str:
    """A log value: printable ASCII in double quotes."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if 32 <= ord(c) < 127 else f"\\x{ord(c):02x}" for c in text) + '"'


# --- Configuration ---------------------------------------------------------------

class Listener:
    """One listening port: its name, upstream, fault and parameters."""

    def __init__(self, name: str, port: int, up_host: str, up_port: int,
                 fault: str, params: dict[str, int]):
        self.name, self.port = name, port
        self.up_host, self.up_port = up_host, up_port
        self.fault, self.params = fault, params
        self.sock: socket.socket | None = None
        self.count = 0                                   # connections accepted
        self.rng = random.Random(params.get("seed", 1))  # mixed draws

    def describe(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.params.items())
        return (f"{self.name}: 127.0.0.1:{self.port} -> {self.up_host}:{self.up_port} "
                f"fault={self.fault}" + (f" params={params}" if params else ""))


def parse_listen(spec: str) -> Listener:
    """Parses NAME=PORT:UPSTREAM_HOST:UPSTREAM_PORT:FAULT[:KEY=VALUE,...]."""
    name, sep, rest = spec.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"--listen {spec!r}: expected NAME=PORT:UPSTREAM_HOST:UPSTREAM_PORT:FAULT[:PARAMS]")
    parts = rest.split(":", 4)
    if len(parts) < 4:
        raise ValueError(f"--listen {spec!r}: expected NAME=PORT:UPSTREAM_HOST:UPSTREAM_PORT:FAULT[:PARAMS]")
    port_s, up_host, up_port_s, fault = parts[:4]
    if fault not in FAULTS:
        raise ValueError(f"--listen {spec!r}: unknown fault {fault!r} (known: {', '.join(FAULTS)})")
    try:
        port, up_port = int(port_s), int(up_port_s)
    except ValueError:
        raise ValueError(f"--listen {spec!r}: ports must be numbers") from None
    if not (0 <= port < 65536 and 0 < up_port < 65536) or not up_host:
        raise ValueError(f"--listen {spec!r}: bad port or upstream host")
    params = dict(FAULTS[fault])
    if len(parts) == 5 and parts[4]:
        for item in parts[4].split(","):
            key, sep, value = item.partition("=")
            if not sep or key not in params:
                raise ValueError(f"--listen {spec!r}: fault {fault} takes "
                                 f"{', '.join(params) or 'no parameters'}, not {item!r}")
            try:
                params[key] = int(value)
            except ValueError:
                raise ValueError(f"--listen {spec!r}: {key} must be an integer") from None
            if params[key] < 0 or (key == "rate" and params[key] == 0):
                raise ValueError(f"--listen {spec!r}: {key} out of range")
    return Listener(name, port, up_host, up_port, fault, params)


# --- Socket helpers -----------------------------------------------------------

def set_rst_on_close(sock) -> None:
    """SO_LINGER on with timeout 0: close() then sends a RST instead of a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except (OSError, AttributeError):     # already closed, or no socket
        pass


def unacked_bytes(sock) -> int:
    """Bytes the kernel still holds for sending (unsent or not yet acknowledged)."""
    try:
        buf = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
        return struct.unpack("i", buf)[0]
    except (OSError, ValueError, AttributeError):
        return 0


def peer_gone(sock: socket.socket) -> bool:
    """Whether the peer has sent a FIN or RST, found without reading the socket."""
    if hasattr(socket, "TCP_INFO"):
        try:
            state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        except OSError:
            return True
        return state != 1   # 1 = TCP_ESTABLISHED; 8 = CLOSE_WAIT (FIN), 7 = CLOSE (RST)
    # Without TCP_INFO: a peek sees the EOF only once no unread data is in front of it.
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True


async def read_head(reader: asyncio.StreamReader) -> tuple[bytes, bool]:
    """Reads up to and including the first b"\\r\\n\\r\\n".

    Returns (head, True), or (bytes read, False) when the stream ended first, or
    (b"", False) when no head end came within HEAD_LIMIT bytes (they stay in the
    reader's buffer, to be forwarded as they are).
    """
    try:
        return await reader.readuntil(b"\r\n\r\n"), True
    except asyncio.IncompleteReadError as e:
        return e.partial, False
    except asyncio.LimitOverrunError:
        return b"", False


def with_connection_close(head: bytes) -> bytes:
    """A request head without Connection / Keep-Alive / Proxy-Connection headers
    (and their folded continuation lines) and with `Connection: close` added."""
    lines = head[:-4].split(b"\r\n")
    out = [lines[0]]
    dropping = False
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t"):          # obs-fold continuation
            if not dropping:
                out.append(line)
            continue
        name = line.split(b":", 1)[0].strip().lower()
        dropping = name in (b"connection", b"keep-alive", b"proxy-connection")
        if not dropping:
            out.append(line)
    out.append(b"Connection: close")
    return b"\r\n".join(out) + b"\r\n\r\n"


def status_code(head: bytes) -> int:
    """The status code of a response head, or 0 if it has none."""
    parts = head.split(b"\r\n", 1)[0].split(b" ", 2)
    if len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1].isdigit():
        return int(parts[1])
    return 0


class UpstreamError(Exception):
    """Reading from or writing to the upstream failed."""


class ClientError(Exception):
    """Reading from or writing to the client failed."""


# --- One connection -------------------------------------------------------------

class Session:
    """One accepted client connection: runs its fault and records its log line."""

    def __init__(self, listener: Listener, conn: socket.socket, peer, cid: int):
        self.listener = listener
        self.conn = conn
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.label = f"{listener.name}#{cid}"
        self.fault, self.params = listener.fault, listener.params
        self.drew: str | None = None
        if self.fault == "mixed":
            self.drew, self.params = mixed_draw(listener.rng)
            self.fault = self.drew
        self.one_exchange = self.fault in ONE_EXCHANGE or self.drew is not None
        self.c2s = 0      # bytes read from the client
        self.s2c = 0      # bytes written to the client
        self.end: str | None = None
        self.notes: list[str] = []
        self.error: str | None = None
        self.request: str | None = None
        self.started = asyncio.get_running_loop().time()
        self.creader: asyncio.StreamReader | None = None
        self.cwriter: asyncio.StreamWriter | None = None
        self.ureader: asyncio.StreamReader | None = None
        self.uwriter: asyncio.StreamWriter | None = None
        self.upstream_done = False    # upstream closed: client bytes are discarded

    # -- entry point --

    async def run(self) -> None:
        try:
            if self.fault == "blackhole":
                await self.blackhole()
                return
            self.creader, self.cwriter = await asyncio.open_connection(sock=self.conn, limit=HEAD_LIMIT)
            if self.fault == "reset-before-response":
                await self.reset_before_response()
            elif self.fault == "half-open":
                await self.half_open()
            else:
                await self.relay()
        except asyncio.CancelledError:
            self.end = self.end or "proxy-exit"
            raise
        except Exception as e:          # a bug here must not end the proxy
            self.end = self.end or "error"
            self.error = repr(e)
        finally:
            self.close_all()
            self.log_line()

    def log_line(self) -> None:
        secs = asyncio.get_running_loop().time() - self.started
        fields = [f"conn={self.label}", f"fault={self.listener.fault}"]
        if self.drew:
            fields.append(f"drew={self.drew}")
        fields += [f"peer={self.peer}", f"c2s={self.c2s}", f"s2c={self.s2c}",
                   f"secs={secs:.3f}", f"end={self.end or 'unknown'}"]
        fields += self.notes
        if self.error:
            fields.append(f"error={quote(self.error)}")
        if self.request is not None:
            fields.append(f"request={quote(self.request)}")
        log(" ".join(fields))

    def close_all(self) -> None:
        """Closes both sides (a RST already sent stays a RST: abort() came first)."""
        if self.uwriter is not None:
            self.uwriter.transport.abort()
        if self.cwriter is not None:
            self.cwriter.close()
        else:
            self.conn.close()

    def note_request(self, head: bytes) -> None:
        if head:
            self.request = head.split(b"\r\n", 1)[0][:200].decode("latin-1")

    # -- client side helpers --

    def to_client(self, data: bytes) -> None:
        if not data:
            return
        if self.cwriter.is_closing():
            raise ClientError("client connection closed")
        self.cwriter.write(data)
        self.s2c += len(data)

    async def drain_client(self) -> None:
        try:
            await self.cwriter.drain()
        except (ConnectionError, OSError) as e:
            raise ClientError(repr(e)) from e

    async def flush_client(self) -> None:
        """Waits until the client has acknowledged everything written to it (or
        FLUSH_TIMEOUT passes), so that a following RST discards nothing."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FLUSH_TIMEOUT
        transport = self.cwriter.transport
        while transport.get_write_buffer_size() > 0 and not transport.is_closing() \
                and loop.time() < deadline:
            await asyncio.sleep(0.002)
        sock = self.cwriter.get_extra_info("socket")
        while sock is not None and unacked_bytes(sock) > 0 and loop.time() < deadline:
            await asyncio.sleep(0.002)

    async def reset_client(self) -> None:
        """Sends what is written, then a RST."""
        await self.flush_client()
        set_rst_on_close(self.cwriter.get_extra_info("socket"))
        self.cwriter.transport.abort()
        self.end = "rst-sent"

    async def read_client(self, n: int = CHUNK) -> bytes:
        try:
            data = await self.creader.read(n)
        except (ConnectionError, OSError) as e:
            raise ClientError(repr(e)) from e
        self.c2s += len(data)
        return data

    # -- upstream side helpers --

    async def connect_upstream(self) -> bool:
        host, port = self.listener.up_host, self.listener.up_port
        try:
            self.ureader, self.uwriter = await asyncio.wait_for(
                asyncio.open_connection(host, port, limit=HEAD_LIMIT), CONNECT_TIMEOUT)
            return True
        except (OSError, asyncio.TimeoutError) as e:
            self.end = "upstream-connect-failed"
            self.error = repr(e)
            return False

    async def read_upstream(self, n: int = CHUNK) -> bytes:
        try:
            return await self.ureader.read(n)
        except (ConnectionError, OSError) as e:
            raise UpstreamError(repr(e)) from e

    async def to_upstream(self, data: bytes) -> None:
        if self.upstream_done or not data:
            return      # the upstream has closed; what the client sends now goes nowhere
        try:
            self.uwriter.write(data)
            await self.uwriter.drain()
        except (ConnectionError, OSError) as e:
            raise UpstreamError(repr(e)) from e

    # -- faults without an upstream --

    async def blackhole(self) -> None:
        """Never reads, writes nor closes; polls TCP_INFO to notice the client leaving."""
        while not peer_gone(self.conn):
            await asyncio.sleep(BLACKHOLE_POLL)
        self.end = "client-closed"

    async def reset_before_response(self) -> None:
        try:
            head, complete = await read_head(self.creader)
        except (ConnectionError, OSError) as e:
            self.end, self.error = "client-reset", repr(e)
            return
        self.c2s += len(head)
        self.note_request(head)
        if not complete and head == b"" and not self.creader.at_eof():
            self.notes.append("note=head-too-long")
        if self.creader.at_eof() and not complete:
            self.end = "client-closed"
            return
        await self.reset_client()

    async def half_open(self) -> None:
        """Reads the request (and anything after it) but never answers; ends at the client's EOF."""
        try:
            head, _ = await read_head(self.creader)
            self.c2s += len(head)
            self.note_request(head)
            while await self.read_client():
                pass
            self.end = "client-closed"
        except ClientError as e:
            self.end, self.error = "client-reset", str(e)
        except (ConnectionError, OSError) as e:
            self.end, self.error = "client-reset", repr(e)

    # -- faults with an upstream --

    async def relay(self) -> None:
        """Connects upstream and runs both directions; ends as the fault says."""
        if not await self.connect_upstream():
            return
        up = asyncio.create_task(self.client_to_upstream())
        down = asyncio.create_task(self.upstream_to_client())
        try:
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
            if not down.done():
                # The client side ended first.
                exc = up.exception()
                if exc is not None:
                    self.end = "client-reset" if isinstance(exc, ClientError) else "upstream-reset"
                    self.error = str(exc)
                    return
                # Clean EOF from the client, already passed on as a FIN: let the
                # upstream finish its answer (it closes once it has seen our FIN)
                # as long as bytes keep coming.
                while not down.done():
                    before = self.s2c
                    await asyncio.wait({down}, timeout=HALF_CLOSE_IDLE)
                    if not down.done() and self.s2c == before:
                        self.notes.append("note=upstream-idle-after-client-eof")
                        return
            action = None
            exc = down.exception()
            if exc is None:
                action = down.result()
            elif isinstance(exc, UpstreamError):
                self.end, self.error = "upstream-reset", str(exc)
                await self.reset_client()
                self.end = "upstream-reset"
                return
            elif isinstance(exc, ClientError):
                self.end, self.error = "client-reset", str(exc)
                return
            else:
                raise exc
            self.upstream_done = True
            self.uwriter.transport.abort()
            if action == "rst":
                await self.reset_client()
                return
            # Clean close: FIN to the client, then wait (briefly) for its FIN, so
            # that no unread client data turns our close into a RST.
            self.end = "fin-sent" if action == "fin" else (self.end or "upstream-closed")
            try:
                await self.drain_client()
                if self.cwriter.can_write_eof():
                    self.cwriter.write_eof()
            except (ClientError, OSError):
                self.end = "client-reset"
                return
            if not up.done():
                await asyncio.wait({up}, timeout=LINGER_TIMEOUT)
        finally:
            for task in (up, down):
                task.cancel()
            await asyncio.gather(up, down, return_exceptions=True)

    async def client_to_upstream(self) -> None:
        """Client -> upstream; rewrites the first request head for one-exchange
        faults. Returns at the client's EOF (after passing it on)."""
        if self.one_exchange:
            try:
                head, complete = await read_head(self.creader)
            except (ConnectionError, OSError) as e:
                raise ClientError(repr(e)) from e
            self.c2s += len(head)
            self.note_request(head)
            if complete:
                head = with_connection_close(head)
            await self.to_upstream(head)
        while True:
            data = await self.read_client()
            if not data:
                break
            if self.request is None and self.c2s == len(data):
                # Byte-level faults forward at once; the first chunk names the
                # request for the log if it looks like HTTP.
                line = data.split(b"\r\n", 1)[0]
                if b"\r\n" in data and b" HTTP/" in line:
                    self.note_request(line)
            await self.to_upstream(data)
        if self.end is None:
            self.end = "client-closed"
        if not self.upstream_done:
            try:
                if self.uwriter.can_write_eof():
                    self.uwriter.write_eof()
            except (OSError, RuntimeError):
                pass

    async def upstream_to_client(self) -> str:
        """Upstream -> client, shaped by the fault. Returns "eof" (the upstream
        closed and everything was passed on), "fin" or "rst" (the fault ends the
        connection that way now)."""
        f, p = self.fault, self.params
        if f == "latency":
            return await self.down_latency(p["base"], p["jitter"])
        if f == "bandwidth":
            return await self.down_bandwidth(p["rate"])
        if f == "bytewise":
            return await self.down_bytewise(p["gap"])
        if f == "tls-cut":
            return await self.down_cut(p["bytes"])
        if f in ONE_EXCHANGE:
            return await self.down_response_fault()
        return await self.down_copy()

    async def down_copy(self) -> str:
        while True:
            data = await self.read_upstream()
            if not data:
                return "eof"
            self.to_client(data)
            await self.drain_client()

    async def down_cut(self, limit: int) -> str:
        """tls-cut: the first `limit` bytes only, then FIN."""
        left = limit
        while left > 0:
            data = await self.read_upstream(min(CHUNK, left))
            if not data:
                return "eof"
            self.to_client(data)
            left -= len(data)
        await self.drain_client()
        return "fin"

    async def down_latency(self, base_ms: int, jitter_ms: int) -> str:
        """Each chunk reaches the client base + U(0, jitter) ms after it came
        from the upstream, in order: a reader task stamps chunks into a bounded
        queue, this loop sends each when its time comes."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue(maxsize=64)
        rng = random.Random()

        async def reader():
            try:
                while True:
                    data = await self.read_upstream()
                    await queue.put((loop.time(), data, None))
                    if not data:
                        return
            except UpstreamError as e:
                await queue.put((loop.time(), b"", e))

        task = asyncio.create_task(reader())
        try:
            last = 0.0
            while True:
                arrived, data, exc = await queue.get()
                due = max(last, arrived + (base_ms + rng.uniform(0, jitter_ms)) / 1000.0)
                last = due
                delay = due - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                if exc is not None:
                    raise exc
                if not data:
                    return "eof"
                self.to_client(data)
                await self.drain_client()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def down_bandwidth(self, rate: int) -> str:
        """At most `rate` bytes/s toward the client, sent in slices of 10 ms worth."""
        loop = asyncio.get_running_loop()
        piece = max(1, int(rate * BANDWIDTH_SLICE))
        next_at = loop.time()
        while True:
            data = await self.read_upstream(max(piece, min(CHUNK, rate)))
            if not data:
                return "eof"
            for i in range(0, len(data), piece):
                part = data[i:i + piece]
                now = loop.time()
                if next_at > now:
                    await asyncio.sleep(next_at - now)
                elif now - next_at > BANDWIDTH_SLICE:
                    next_at = now          # idle time is not saved up as a burst
                self.to_client(part)
                await self.drain_client()
                next_at += len(part) / rate

    async def down_bytewise(self, gap: int) -> str:
        """One byte per write toward the client, `gap` ms apart."""
        while True:
            data = await self.read_upstream()
            if not data:
                return "eof"
            for i in range(len(data)):
                self.to_client(data[i:i + 1])
                await self.drain_client()
                await asyncio.sleep(gap / 1000)

    async def down_response_fault(self) -> str:
        """reset-mid-body, truncate, corrupt-head, corrupt-body: finds the final
        response head (passing 1xx heads on) and shapes the response."""
        f, p = self.fault, self.params
        while True:
            head, complete = await self.read_upstream_head()
            if not complete:
                # The upstream ended inside the head, or its head is too long to
                # look at: pass on what there is (garbled for corrupt-head).
                if f == "corrupt-head" and head:
                    head = CORRUPT_STATUS_LINE + head.partition(b"\r\n")[2]
                self.to_client(head)
                self.notes.append("note=no-response-head")
                return await self.down_copy()
            code = status_code(head)
            if 100 <= code < 200 and code != 101:
                self.to_client(head)          # interim response: as it is
                continue
            break
        if f == "corrupt-head":
            self.to_client(CORRUPT_STATUS_LINE + head.partition(b"\r\n")[2])
            return await self.down_copy()
        self.to_client(head)
        if f in ("reset-mid-body", "truncate"):
            left = p["bytes"]
            if p.get("max", 0) > left:
                left = random.randint(left, p["max"])
                self.notes.append(f"cut={left}")
            while left > 0:
                data = await self.read_upstream(min(CHUNK, left))
                if not data:
                    self.notes.append("note=body-shorter-than-limit")
                    await self.drain_client()
                    return "eof"
                self.to_client(data)
                left -= len(data)
                await self.drain_client()
            return "rst" if f == "reset-mid-body" else "fin"
        # corrupt-body
        start, end = p["offset"], p["offset"] + p["count"]
        pos = flipped = 0
        while True:
            data = await self.read_upstream()
            if not data:
                self.notes.append(f"flipped={flipped}")
                return "eof"
            lo, hi = max(start, pos), min(end, pos + len(data))
            if lo < hi:
                buf = bytearray(data)
                for i in range(lo - pos, hi - pos):
                    buf[i] ^= 0xFF
                data = bytes(buf)
                flipped += hi - lo
            pos += len(data)
            self.to_client(data)
            await self.drain_client()

    async def read_upstream_head(self) -> tuple[bytes, bool]:
        try:
            return await read_head(self.ureader)
        except (ConnectionError, OSError) as e:
            raise UpstreamError(repr(e)) from e


# --- The server ----------------------------------------------------------------

def bind(listener: Listener) -> None:
    """Binds and listens; raises OSError like bind(2)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LISTEN_HOST, listener.port))
        sock.listen(256)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    listener.sock = sock
    listener.port = sock.getsockname()[1]


async def serve(listener: Listener, sessions: set[asyncio.Task]) -> None:
    """Accepts connections forever, one task per connection."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            conn, peer = await loop.sock_accept(listener.sock)
        except asyncio.CancelledError:
            raise
        except OSError as e:        # e.g. EMFILE: wait a little, go on
            log(f"{listener.name}: accept failed: {e!r}")
            await asyncio.sleep(0.1)
            continue
        listener.count += 1
        try:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        session = Session(listener, conn, peer, listener.count)
        task = asyncio.create_task(session.run())
        sessions.add(task)
        task.add_done_callback(sessions.discard)


def write_ready_file(path: str, listeners: list[Listener]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump({"pid": os.getpid(), "ports": {l.name: l.port for l in listeners}}, f)
        f.write("\n")
    os.replace(tmp, path)


async def main_async(listeners: list[Listener], ready_file: str | None) -> int:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    for listener in listeners:
        try:
            bind(listener)
        except OSError as e:
            reason = os.strerror(e.errno) if e.errno else str(e)
            log(f"{listener.name}: cannot listen on {LISTEN_HOST}:{listener.port}: {reason}")
            for other in listeners:
                if other.sock is not None:
                    other.sock.close()
            return 2
    for listener in listeners:
        log(f"listening {listener.describe()}")

    sessions: set[asyncio.Task] = set()
    servers = [asyncio.create_task(serve(l, sessions)) for l in listeners]
    if ready_file:
        write_ready_file(ready_file, listeners)
    log(f"ready pid={os.getpid()} ports={len(listeners)}")

    await stop.wait()
    log("stopping: signal received")
    for task in servers:
        task.cancel()
    await asyncio.gather(*servers, return_exceptions=True)
    for listener in listeners:
        listener.sock.close()
    pending = list(sessions)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=2.0)
    log(f"stopped ({len(pending)} open connections closed)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", action="append", default=[], metavar="SPEC",
                        help="NAME=PORT:UPSTREAM_HOST:UPSTREAM_PORT:FAULT[:KEY=VALUE,...]; repeatable")
    parser.add_argument("--ready-file", metavar="PATH",
                        help="written (JSON) once every port listens")
    args = parser.parse_args(argv)
    if not args.listen:
        parser.error("at least one --listen is needed")
    try:
        listeners = [parse_listen(spec) for spec in args.listen]
    except ValueError as e:
        parser.error(str(e))
    names = [l.name for l in listeners]
    if len(set(names)) != len(names):
        parser.error("listener names must be unique")
    if args.ready_file:
        try:
            os.unlink(args.ready_file)
        except FileNotFoundError:
            pass
    return asyncio.run(main_async(listeners, args.ready_file))


if __name__ == "__main__":
    sys.exit(main())
