"""The WSGI bridge over real HTTP: a real uvicorn (``run_uvicorn``) on a thread serving
``CompleteRequests`` → ``WsgiBridge`` → a small WSGI app, as the display serves Falcon.

Small responses go out whole; a large one streams in batches, arrives intact and has its
iterable closed (also when the client leaves half-way); request bodies reach the app as
``wsgi.input`` whatever their framing; an app that raises past its framework answers 500 in
the CONTRACT shape.
"""
from __future__ import annotations

import hashlib
import socket
import threading
import time

import pytest
import requests

from svc_host.http.bridge import BUFFERED_RESPONSE, WsgiBridge
from svc_host.http.connection.bodies import BodyRules, CompleteRequests
from svc_host.http.connection.limits import ConnectionLimits
from svc_host.server import listening_socket, run_uvicorn
from hookspecs.services import HTTP_SERVER_STOP

LARGE = 5 * BUFFERED_RESPONSE + 12345
HUGE = 256 * 1024 * 1024


class App:
    def __init__(self) -> None:
        self.closed = threading.Event()
        self.produced = 0

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        if path == "/echo":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                      ("X-Length", str(len(body)))])
            return [hashlib.sha256(body).hexdigest().encode()]
        if path in ("/large", "/huge"):
            size = LARGE if path == "/large" else HUGE
            self.closed.clear()
            start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                      ("Content-Length", str(size))])
            return Large(self, size)
        if path == "/boom":
            raise RuntimeError("broken app")
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"no"]


class Large:
    """A large body produced lazily in 64 KiB pieces, with a close() the server must call."""

    def __init__(self, app: App, size: int):
        self.app = app
        self.size = size

    def __iter__(self):
        sent = 0
        while sent < self.size:
            size = min(65536, self.size - sent)
            yield bytes([sent // 65536 % 256]) * size
            sent += size
            self.app.produced = sent

    def close(self) -> None:
        self.app.closed.set()


def expected_large() -> bytes:
    return b"".join(bytes([start // 65536 % 256]) * min(65536, LARGE - start)
                    for start in range(0, LARGE, 65536))


@pytest.fixture(scope="module")
def served():
    app = App()
    asgi = CompleteRequests(WsgiBridge(app, workers=4), rules=BodyRules(16 * 1024 * 1024), body_timeout=10,
                            max_pending_per_address=8)
    services: dict = {}
    sock = listening_socket("127.0.0.1")  # listening already: no port guessed
    port = sock.getsockname()[1]
    thread = threading.Thread(target=run_uvicorn, args=(asgi, "127.0.0.1", port, None, services),
                              kwargs={"limits": ConnectionLimits(64, 256), "sock": sock}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    services[HTTP_SERVER_STOP]()
    thread.join(15)


def test_a_large_response_streams_intact_and_is_closed(served):
    url, app = served
    response = requests.get(url + "/large", timeout=30)
    assert response.status_code == 200 and response.content == expected_large()
    assert app.closed.wait(5)


def test_a_client_leaving_a_large_response_half_way_stops_and_closes_it(served):
    url, app = served
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=10) as sock:
        sock.sendall(b"GET /huge HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    assert app.closed.wait(10)
    assert app.produced < HUGE / 2, app.produced  # not pulled to its end for nobody


@pytest.mark.parametrize("framing", ["length", "chunked", "empty"])
def test_request_bodies_reach_the_app_whole(served, framing):
    url, _app = served
    body = b"" if framing == "empty" else bytes(range(256)) * 8000  # 2 MB: spooled to disk on the way
    data = (body[i:i + 10000] for i in range(0, len(body), 10000)) if framing == "chunked" else body
    response = requests.post(url + "/echo", data=data, timeout=30)
    assert response.status_code == 200
    assert response.headers["X-Length"] == str(len(body))
    assert response.content == hashlib.sha256(body).hexdigest().encode()


def test_an_app_raising_past_its_framework_answers_a_contract_500(served):
    url, _app = served
    response = requests.get(url + "/boom", timeout=10)
    assert response.status_code == 500 and response.json()["code"] == "internal_error"
    assert requests.get(url + "/echo", timeout=10).status_code == 200  # and the server goes on
