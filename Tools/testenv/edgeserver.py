"""A server that closes each connection when its second request arrives, unanswered: the edge at which
a server closes an idle keep-alive connection just as the client sends on it.

    edgeserver.py --certs DIR --ready FILE --log FILE --h1-port N --h2-port N

--h1-port serves HTTP/1.1 in clear text; --h2-port serves HTTP/2 over TLS (ALPN h2, the test server
certificate of DIR); port 0 picks a free one. The first request of a connection gets 200 "ok" and the connection stays open; the
second is read whole (its body too) and the connection is closed without a byte of an answer (no
GOAWAY, no RST_STREAM). Every request is logged as one line "PROTOCOL METHOD PATH" to --log as it
arrives, so a test can count how many times a request reached the server. Writes --ready once both
ports listen: JSON {"pid": ..., "h1": PORT, "h2": PORT}, written to a temporary name and renamed. Ends
when the process that started it ends it (the tests stop it by its PID), or after --lifetime seconds.
"""
import argparse
import json
import os
import signal
import socket
import ssl
import threading

import h2.config
import h2.connection
import h2.events

lock = threading.Lock()


def log(path, line):
    with lock, open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def read_h1_request(conn, pending):
    while b"\r\n\r\n" not in pending:
        chunk = conn.recv(65536)
        if not chunk:
            return None, pending
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    parts = lines[0].decode("latin-1").split()
    return (parts[0], parts[1]) if len(parts) >= 2 else ("?", "?"), rest[length:]


def serve_h1(conn, args):
    pending = b""
    try:
        for number in range(2):
            request, pending = read_h1_request(conn, pending)
            if request is None:
                return
            log(args.log, f"h1 {request[0]} {request[1]}")
            if number == 0:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
    finally:
        conn.close()


def serve_h2(raw, context, args):
    try:
        conn = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    h2conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    h2conn.initiate_connection()
    conn.sendall(h2conn.data_to_send())
    streams = {}
    answered = 0
    try:
        while True:
            data = conn.recv(65536)
            if not data:
                return
            for event in h2conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    headers = dict(event.headers)
                    streams[event.stream_id] = (headers.get(":method", "?"), headers.get(":path", "?"))
                elif isinstance(event, h2.events.DataReceived):
                    h2conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                # END_STREAM comes as a StreamEnded event of its own (also after a RequestReceived that ends
                # the stream): the request is whole then.
                if isinstance(event, h2.events.StreamEnded):
                    method, path = streams.get(event.stream_id, ("?", "?"))
                    log(args.log, f"h2 {method} {path}")
                    if answered >= 1:
                        conn.close()  # the second request: no answer at all
                        return
                    answered += 1
                    h2conn.send_headers(event.stream_id, [(":status", "200"), ("content-length", "2")])
                    h2conn.send_data(event.stream_id, b"ok", end_stream=True)
            out = h2conn.data_to_send()
            if out:
                conn.sendall(out)
    except (ssl.SSLError, OSError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def listen(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    return sock


def accept_loop(sock, handler):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--certs", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--h1-port", type=int, required=True)
    parser.add_argument("--h2-port", type=int, required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    # A child of a test runner may inherit a mask that blocks SIGTERM; the tests stop it by its PID.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    threading.Timer(args.lifetime, lambda: os._exit(0)).start()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(os.path.join(args.certs, "server.pem"), os.path.join(args.certs, "server.key"))
    context.set_alpn_protocols(["h2"])
    h1 = listen(args.h1_port)
    h2sock = listen(args.h2_port)
    threading.Thread(target=accept_loop, args=(h2sock, lambda c: serve_h2(c, context, args)), daemon=True).start()
    with open(args.ready + ".tmp", "w", encoding="utf-8") as out:
        json.dump({"pid": os.getpid(), "h1": h1.getsockname()[1], "h2": h2sock.getsockname()[1]}, out)
    os.replace(args.ready + ".tmp", args.ready)
    accept_loop(h1, lambda c: serve_h1(c, args))


if __name__ == "__main__":
    main()
