"""The stack floor of ``rest_throughput.py``: a bare ASGI app under the same uvicorn, uvloop and
httptools as the display, with uvicorn's own TLS, that answers every request with a small
fixed JSON body and does nothing else. Its TLS/plain ratio is what TLS costs on this machine
when a request costs nothing: no server built on this stack can do better than it.

    python -m uvicorn benchmarks.asgi_floor:app --loop uvloop --http httptools ...
"""
BODY = b'{"message":"hello, world","caller":"bench"}'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope, receive, send):  # noqa: ANN001, ANN201
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
