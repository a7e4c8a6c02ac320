"""The WSGI application gunicorn serves: httpbin, plus endpoints httpbin lacks.

/sluice/sha256 reads a request body of any size (Content-Length or chunked) in 1 MiB pieces and
answers {"method": ..., "received": <bytes>, "sha256": <hex>}, so tests can check multi-gigabyte
uploads byte for byte without the server holding them.

/sluice/decoded-sha256 does the same for a body sent with Content-Encoding gzip (members
concatenated or not), x-gzip or deflate (zlib-wrapped), decoding it as it reads, and answers
{"method": ..., "encoding": ..., "received": <encoded bytes>, "decoded": <bytes>,
"sha256": <hex of the decoded bytes>, "complete": <whether the encoded stream ended properly>};
400 with {"error": ...} for a corrupt body, 415 for another coding.
"""
import hashlib
import json
import zlib

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


def _json(start_response, status, value):
    body = json.dumps(value).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def decoded_sha256(environ, start_response):
    coding = (environ.get("HTTP_CONTENT_ENCODING") or "identity").strip().lower()
    wbits = {"gzip": 31, "x-gzip": 31, "deflate": 15, "identity": None}
    if coding not in wbits:
        return _json(start_response, "415 Unsupported Media Type", {"error": f"unsupported coding {coding}"})
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
        return _json(start_response, "400 Bad Request", {"error": str(error), "received": received})
    return _json(start_response, "200 OK", {
        "method": environ["REQUEST_METHOD"],
        "encoding": coding,
        "received": received,
        "decoded": decoded,
        "sha256": digest.hexdigest(),
        "complete": inflater is None or inflater.eof,
    })


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/sluice/sha256":
        return sha256_sink(environ, start_response)
    if environ.get("PATH_INFO") == "/sluice/decoded-sha256":
        return decoded_sha256(environ, start_response)
    return httpbin_app(environ, start_response)
