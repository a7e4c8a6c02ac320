"""An HTTP/1.1 server that answers `Expect: 100-continue` three ways, for the tests of the client's
100-continue threshold:

    expectserver.py --ready FILE --log FILE [--lifetime SECONDS]

- /accept: `100 Continue` to a request that asks, then the body is read and answered 200;
- /expectation-failed: `417 Expectation Failed` to a request that asks (its body unread), 200 to one that
  does not;
- /refuse: `413 Content Too Large` at once to a request that asks, without reading its body; the
  connection is then closed.

Every request is logged to --log as one JSON line: {"path", "expect", "received"} with the body bytes
read (for /refuse: the bytes that arrived in the half second after the answer, which the client should not
have sent). Writes --ready once it listens: JSON {"pid", "port"}, to a temporary name then renamed. Ends
when the process that started it ends it (by PID), or after --lifetime seconds.
"""
import argparse
import json
import os
import signal
import socket
import threading

lock = threading.Lock()


def log(path, entry):
    with lock, open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def read_head(conn, pending):
    while b"\r\n\r\n" not in pending:
        chunk = conn.recv(65536)
        if not chunk:
            return None, None, pending
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return lines[0], fields, rest


def read_body(conn, fields, pending):
    """Reads a Content-Length or chunked body; returns (bytes read, what follows it)."""
    if "content-length" in fields:
        length = int(fields["content-length"])
        while len(pending) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            pending += chunk
        return min(length, len(pending)), pending[length:]
    if fields.get("transfer-encoding", "").lower() == "chunked":
        total = 0
        while True:
            while b"\r\n" not in pending:
                pending += conn.recv(65536)
            size_line, _, pending = pending.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(pending) < size + 2:
                pending += conn.recv(65536)
            total += size
            pending = pending[size + 2:]
            if size == 0:
                return total, pending
    return 0, pending


def answer(conn, status, body=b""):
    conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)


def serve(conn, args):
    pending = b""
    with conn:
        while True:
            request_line, fields, pending = read_head(conn, pending)
            if request_line is None:
                return
            path = request_line.split(" ")[1].split("?")[0]
            asks = fields.get("expect", "").lower() == "100-continue"
            if path == "/refuse" and asks:
                answer(conn, "413 Content Too Large")
                conn.settimeout(0.5)
                arrived = len(pending)
                try:
                    while True:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        arrived += len(chunk)
                except OSError:
                    pass
                log(args.log, {"path": path, "expect": fields.get("expect", ""), "received": arrived})
                return
            if path == "/expectation-failed" and asks:
                answer(conn, "417 Expectation Failed")
                log(args.log, {"path": path, "expect": fields.get("expect", ""), "received": 0})
                # The body may follow anyway (a client that stopped waiting): the connection is not reused.
                return
            if asks:
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            received, pending = read_body(conn, fields, pending)
            log(args.log, {"path": path, "expect": fields.get("expect", ""), "received": received})
            answer(conn, "200 OK", json.dumps({"received": received}).encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Timer(args.lifetime, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
    with open(args.ready + ".tmp", "w", encoding="utf-8") as out:
        json.dump({"pid": os.getpid(), "port": listener.getsockname()[1]}, out)
    os.rename(args.ready + ".tmp", args.ready)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args), daemon=True).start()


if __name__ == "__main__":
    main()
