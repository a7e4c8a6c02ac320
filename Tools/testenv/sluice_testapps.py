"""The WSGI application gunicorn serves: httpbin, plus endpoints httpbin lacks.

/sluice/sha256 reads a request body of any size (Content-Length or chunked) in 1 MiB pieces and
answers {"method": ..., "received": <bytes>, "sha256": <hex>}, so tests can check multi-gigabyte
uploads byte for byte without the server holding them.

/sluice/decoded-sha256 does the same for a body sent with Content-Encoding gzip (members
concatenated or not), x-gzip or deflate (zlib-wrapped), decoding it as it reads, and answers
{"method": ..., "encoding": ..., "received": <encoded bytes>, "decoded": <bytes>,
"sha256": <hex of the decoded bytes>, "complete": <whether the encoded stream ended properly>};
400 with {"error": ...} for a corrupt body, 415 for another coding.

/sluice/multipart parses a multipart/form-data body (up to 64 MiB) with Python's standard email
parser, an implementation independent of Sluice's, and answers {"received": <bytes>, "parts": [...]}
with each part's name, filename, content type, size, SHA-256 and, for small parts, its text.

/sluice/flaky?key=K&failures=N&status=S[&retry_after=T] answers status S (default 503, with
Retry-After: T when given) to the first N requests with key K, then 200 with {"attempts": n}. The count
lives in a locked file, so it holds across gunicorn's worker processes.

/sluice/encoded/CODING/N answers N bytes of text encoded on the fly with CODING (br, zstd, gzip or
deflate), streamed in chunks as the encoder flushes them (no Content-Length), with the SHA-256 of the
decoded bytes in X-Sluice-SHA256.

/sluice/events?per_connection=N&total=M&end=drop|close is an event stream for reconnection tests: it
sends `retry: 50`, then events with ids from Last-Event-ID + 1 on, N per connection, each with data
{"n": id, "lastEventID": <the request's Last-Event-ID or null>, "cookie": <its sluice-sse cookie or
null>}; after N it drops the connection mid-body (end=drop: the chunked body never ends) or ends it
cleanly (end=close). A request whose Last-Event-ID is M or more gets 204 (the standard's "stop"). The first
answer sets the cookie sluice-sse=1.

/sluice/token answers 200 {"authenticated": true} to `Authorization: Bearer fresh` and 401 to anything
else, for credential-refresh tests.
"""
import fcntl
import hashlib
import json
import os
import tempfile
import zlib

import brotlicffi
import zstandard
from email import policy
from email.parser import BytesParser
from urllib.parse import parse_qs

from httpbin import app as httpbin_app


def sha256_sink(environ, start_response):
    digest = hashlib.sha256()
    received = 0
    stream = environ["wsgi.input"]
    while True:
        block = stream.read(1 << 20)
        if not block:
            break
        digest.update(block)
        received += len(block)
    body = json.dumps({
        "method": environ["REQUEST_METHOD"],
        "received": received,
        "sha256": digest.hexdigest(),
    }).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def multipart_echo(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length > 64 << 20:
        start_response("413 Payload Too Large", [("Content-Length", "0")])
        return [b""]
    body = environ["wsgi.input"].read(length)
    head = ("Content-Type: %s\r\nMIME-Version: 1.0\r\n\r\n" % environ.get("CONTENT_TYPE", "")).encode("latin-1")
    message = BytesParser(policy=policy.HTTP).parsebytes(head + body)
    parts = []
    if message.is_multipart():
        for part in message.iter_parts():
            payload = part.get_payload(decode=True) or b""
            entry = {
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_param("filename", header="content-disposition"),
                "contentType": part.get("Content-Type"),
                "headers": [[key, str(value)] for key, value in part.items()],
                "size": len(payload),
                "sha256": hashlib.sha256(payload).hexdigest(),
            }
            if len(payload) <= 4096:
                entry["text"] = payload.decode("utf-8", "replace")
            parts.append(entry)
    answer = json.dumps({
        "received": len(body),
        "multipart": message.is_multipart(),
        "defects": [type(defect).__name__ for defect in message.defects],
        "parts": parts,
    }).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))])
    return [answer]


def json_response(start_response, status, document, headers=()):
    body = json.dumps(document).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))] + list(headers))
    return [body]


def flaky(environ, start_response):
    query = parse_qs(environ.get("QUERY_STRING", ""))
    key = "".join(c for c in query.get("key", ["default"])[0] if c.isalnum() or c in "-_")[:64] or "default"
    failures = int(query.get("failures", ["2"])[0])
    status = int(query.get("status", ["503"])[0])
    environ["wsgi.input"].read()
    directory = os.path.join(tempfile.gettempdir(), "sluice-flaky")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, key), "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        attempts = int(counter.read() or 0) + 1
        counter.seek(0)
        counter.truncate()
        counter.write(str(attempts))
    if attempts <= failures:
        headers = [("Retry-After", query["retry_after"][0])] if "retry_after" in query else []
        return json_response(start_response, "%d Failing" % status, {"attempts": attempts}, headers)
    return json_response(start_response, "200 OK", {"attempts": attempts})


def token_protected(environ, start_response):
    if environ.get("HTTP_AUTHORIZATION") == "Bearer fresh":
        return json_response(start_response, "200 OK", {"authenticated": True})
    return json_response(start_response, "401 Unauthorized", {"authenticated": False},
                         [("WWW-Authenticate", 'Bearer realm="sluice"')])


def decoded_sha256(environ, start_response):
    coding = (environ.get("HTTP_CONTENT_ENCODING") or "identity").strip().lower()
    wbits = {"gzip": 31, "x-gzip": 31, "deflate": 15, "identity": None}
    if coding not in wbits:
        return json_response(start_response, "415 Unsupported Media Type", {"error": f"unsupported coding {coding}"})
    bits = wbits[coding]
    inflater = zlib.decompressobj(bits) if bits else None
    digest = hashlib.sha256()
    received = decoded = 0
    stream = environ["wsgi.input"]
    try:
        while True:
            block = stream.read(1 << 20)
            if not block:
                break
            received += len(block)
            data = block
            while data:
                if inflater is None:
                    output, data = data, b""
                else:
                    if inflater.eof:
                        if bits != 31:
                            raise zlib.error("bytes after the end of the deflate stream")
                        inflater = zlib.decompressobj(bits)  # the next gzip member
                    output = inflater.decompress(data)
                    data = inflater.unused_data if inflater.eof else b""
                digest.update(output)
                decoded += len(output)
    except zlib.error as error:
        return json_response(start_response, "400 Bad Request", {"error": str(error), "received": received})
    return json_response(start_response, "200 OK", {
        "method": environ["REQUEST_METHOD"],
        "encoding": coding,
        "received": received,
        "decoded": decoded,
        "sha256": digest.hexdigest(),
        "complete": inflater is None or inflater.eof,
    })


def encoded_text(size):
    line = b"sluice encodes this line on the fly, one of many, %08d\n"
    out = bytearray()
    index = 0
    while len(out) < size:
        out += line % index
        index += 1
    return bytes(out[:size])


def encoded_on_the_fly(environ, start_response):
    parts = environ.get("PATH_INFO", "").split("/")  # ["", "sluice", "encoded", CODING, N]
    if len(parts) != 5 or not parts[4].isdigit() or int(parts[4]) > (256 << 20):
        return json_response(start_response, "404 Not Found", {"error": "use /sluice/encoded/CODING/N"})
    coding, body = parts[3], encoded_text(int(parts[4]))
    if coding == "br":
        compressor = brotlicffi.Compressor(quality=5)
        step, flush, finish = compressor.process, compressor.flush, compressor.finish
    elif coding == "zstd":
        compressor = zstandard.ZstdCompressor(level=3, write_checksum=True).compressobj()
        step = compressor.compress
        flush = lambda: compressor.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
        finish = compressor.flush
    elif coding in ("gzip", "deflate"):
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31 if coding == "gzip" else 15)
        step, flush, finish = compressor.compress, lambda: compressor.flush(zlib.Z_SYNC_FLUSH), compressor.flush
    else:
        return json_response(start_response, "404 Not Found", {"error": f"unknown coding {coding}"})
    start_response("200 OK", [
        ("Content-Type", "text/plain; charset=utf-8"), ("Content-Encoding", coding),
        ("X-Sluice-SHA256", hashlib.sha256(body).hexdigest()), ("X-Sluice-Length", str(len(body))),
    ])

    def chunks():
        for start in range(0, len(body), 64 << 10):
            yield step(body[start:start + (64 << 10)]) + flush()
        yield finish()
    return chunks()


class DropConnection(Exception):
    """Raised inside a streamed body: gunicorn aborts the connection, the body never ends."""


def event_stream(environ, start_response):
    query = parse_qs(environ.get("QUERY_STRING", ""))
    per_connection = int(query.get("per_connection", ["3"])[0])
    total = int(query.get("total", ["9"])[0])
    end = query.get("end", ["drop"])[0]
    header = environ.get("HTTP_LAST_EVENT_ID")
    try:
        last = int(header) if header is not None else 0
    except ValueError:
        last = 0
    cookies = dict(part.strip().split("=", 1) for part in environ.get("HTTP_COOKIE", "").split(";") if "=" in part)
    if last >= total:
        start_response("204 No Content", [])
        return [b""]
    headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]
    if "sluice-sse" not in cookies:
        headers.append(("Set-Cookie", "sluice-sse=1; Path=/"))
    start_response("200 OK", headers)

    def events():
        yield b"retry: 50\n\n"
        for n in range(last + 1, min(last + per_connection, total) + 1):
            data = json.dumps({"n": n, "lastEventID": header, "cookie": cookies.get("sluice-sse")})
            yield f"id: {n}\ndata: {data}\n\n".encode()
        if end == "drop" and last + per_connection < total:
            raise DropConnection()
    return events()


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/sluice/events":
        return event_stream(environ, start_response)
    if environ.get("PATH_INFO", "").startswith("/sluice/encoded/"):
        return encoded_on_the_fly(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/sha256":
        return sha256_sink(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/multipart":
        return multipart_echo(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/flaky":
        return flaky(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/token":
        return token_protected(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/decoded-sha256":
        return decoded_sha256(environ, start_response)
    return httpbin_app(environ, start_response)
