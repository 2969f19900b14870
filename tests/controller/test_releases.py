"""``GET /bff/v1/releases/{product}`` from a release list served on loopback by the test."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.controllers import ControllerProcess

pytestmark = pytest.mark.slow

RELEASES = [
    {"product": "svc-display", "version": "1.2.0", "published_at": "2026-10-01T10:00:00Z",
     "download_url": "https://downloads.example/svc-display-1.2.0.tar.gz"},
    {"product": "svc-display", "version": "1.3.0", "published_at": "2026-11-01T10:00:00Z",
     "download_url": "https://downloads.example/svc-display-1.3.0.tar.gz", "notes": "extra fields are dropped"},
    {"product": "svc-controller-app", "version": "0.9.0", "published_at": "2026-09-01T10:00:00Z",
     "download_url": "https://downloads.example/app-0.9.0.zip"},
    {"product": "svc-display", "version": "9.9.9"},  # incomplete: skipped
]


class ReleaseList:
    def __init__(self):
        self.body = json.dumps(RELEASES).encode()
        self.status = 200
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                owner.hits += 1
                self.send_response(owner.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(owner.body)))
                self.end_headers()
                self.wfile.write(owner.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/releases.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


@pytest.fixture(scope="module")
def releases():
    upstream = ReleaseList()
    yield upstream
    upstream.close()


@pytest.fixture(scope="module")
def ctl(tmp_path_factory, releases):
    process = ControllerProcess(tmp_path_factory.mktemp("rel") / "data",
                                {"SVC_CONTROLLER_RELEASES_URL": releases.url}).start()
    yield process
    process.stop()


def test_the_latest_release_is_cached_for_ten_minutes(ctl, releases):
    r = ctl.get("/bff/v1/releases/svc-display")
    assert r.status_code == 200
    assert r.json() == {"product": "svc-display", "version": "1.3.0", "published_at": "2026-11-01T10:00:00Z",
                        "download_url": "https://downloads.example/svc-display-1.3.0.tar.gz"}
    assert ctl.get("/bff/v1/releases/svc-controller-app").json()["version"] == "0.9.0"
    hits = releases.hits
    newer = RELEASES + [{"product": "svc-display", "version": "1.4.0", "published_at": "2026-11-20T10:00:00Z",
                         "download_url": "https://downloads.example/svc-display-1.4.0.tar.gz"}]
    releases.body = json.dumps({"releases": newer}).encode()
    ctl.advance_clock(9 * 60 * 1000)
    assert ctl.get("/bff/v1/releases/svc-display").json()["version"] == "1.3.0"
    assert releases.hits == hits  # served from the cache
    ctl.advance_clock(60 * 1000 + 1000)
    assert ctl.get("/bff/v1/releases/svc-display").json()["version"] == "1.4.0"
    assert releases.hits == hits + 1
    r = ctl.get("/bff/v1/releases/no-such-product")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


@pytest.mark.parametrize("status, body", [(500, b"{}"), (200, b"<html>not json</html>"), (200, b'{"a": 1}')])
def test_an_unusable_release_list_is_503(ctl, releases, status, body):
    releases.status, releases.body = status, body
    try:
        ctl.advance_clock(11 * 60 * 1000)
        r = ctl.get("/bff/v1/releases/svc-display")
        assert r.status_code == 503 and r.json()["code"] == "releases_unavailable"
    finally:
        releases.status, releases.body = 200, json.dumps(RELEASES).encode()


def test_an_unreachable_release_list_is_503(ctl, releases):
    releases.close()  # last test of the module: nothing listens there any more
    ctl.advance_clock(11 * 60 * 1000)
    r = ctl.get("/bff/v1/releases/svc-display")
    assert r.status_code == 503 and r.json()["code"] == "releases_unavailable", r.text
