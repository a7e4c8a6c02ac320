"""The WSGI application gunicorn serves: httpbin, plus endpoints httpbin lacks.

/sluice/sha256 reads a request body of any size (Content-Length or chunked) in 1 MiB pieces and
answers {"method": ..., "received": <bytes>, "sha256": <hex>}, so tests can check multi-gigabyte
uploads byte for byte without the server holding them.
"""
import hashlib
import json

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


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/sluice/sha256":
        return sha256_sink(environ, start_response)
    return httpbin_app(environ, start_response)
