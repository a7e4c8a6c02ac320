"""The WSGI application gunicorn serves: httpbin, plus endpoints httpbin lacks.

/sluice/sha256 reads a request body of any size (Content-Length or chunked) in 1 MiB pieces and
answers {"method": ..., "received": <bytes>, "sha256": <hex>}, so tests can check multi-gigabyte
uploads byte for byte without the server holding them.

/sluice/multipart parses a multipart/form-data body (up to 64 MiB) with Python's standard email
parser, an implementation independent of Sluice's, and answers {"received": <bytes>, "parts": [...]}
with each part's name, filename, content type, size, SHA-256 and, for small parts, its text.
"""
import hashlib
import json
from email import policy
from email.parser import BytesParser

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


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/sluice/sha256":
        return sha256_sink(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/multipart":
        return multipart_echo(environ, start_response)
    return httpbin_app(environ, start_response)
