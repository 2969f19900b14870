"""The proxy ``ANY /bff/v1/proxy/<path>`` against two real displays (TLS on, self-signed) and a
loopback upstream that shows what arrives and when."""
from __future__ import annotations

import ssl
import struct
import time
import uuid

import pytest
import requests
from websockets.exceptions import InvalidStatus

from svc_display.testing import closed_port
from svc_display.testing.websocket import connect
from tests.controllers import ControllerProcess, running, start_display
from tests.controller.upstream import FIRST_CHUNK, Upstream
from tests.display.canvas import ServeCanvas, canvas_env

pytestmark = pytest.mark.slow

TIMEOUT_MS = 5000


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    display_a = start_display(root / "a")
    # the second display draws its canvas offscreen, so it has a live preview to forward
    display_b = ServeCanvas(canvas_env(root / "b" / "data", SVC_DISPLAY_HTTP_TLS="1")).start(timeout=90)
    controller = ControllerProcess(root / "ctl" / "data",
                                   {"SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS": str(TIMEOUT_MS)})
    with running(display_a, display_b, controller):
        controller.start()
        yield {"a": display_a, "b": display_b, "ctl": controller,
               "keys": {"a": display_a.key("admin"), "b": display_b.key("admin")}}


@pytest.fixture(scope="module")
def upstream():
    with Upstream() as server:
        yield server


def proxy(fleet, method, path, display, key=None, headers=None, **kwargs):
    sent = {"X-Svc-Display-Url": display.url if hasattr(display, "url") else display, **(headers or {})}
    if key:
        sent["Authorization"] = f"Bearer {key}"
    return fleet["ctl"].request(method, "/bff/v1/proxy" + path, headers=sent, **kwargs)


def test_each_display_is_reached_with_the_callers_key(fleet):
    a, b, keys = fleet["a"], fleet["b"], fleet["keys"]
    screen = f"s-{uuid.uuid4().hex[:6]}"
    r = proxy(fleet, "POST", "/v1/screens", a, keys["a"],
              json={"id": screen, "screen_type": "message", "config_json": {"title": "Hi", "body": "there"}})
    assert r.status_code == 201, r.text
    assert proxy(fleet, "GET", f"/v1/screens/{screen}", a, keys["a"]).json()["id"] == screen
    assert a.get(f"/v1/screens/{screen}", key=keys["a"]).status_code == 200  # it really is on display A
    assert proxy(fleet, "GET", f"/v1/screens/{screen}", b, keys["b"]).status_code == 404
    # the key is the caller's: none, or display A's key on display B, is the display's own 401
    for key, target in ((None, a), (keys["a"], b)):
        r = proxy(fleet, "GET", "/v1/screens", target, key)
        assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    # a host name is resolved, checked and connected to as checked (Host and SNI keep the name)
    r = proxy(fleet, "GET", "/v1/health", f"https://localhost:{a.port}")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    # query strings pass as they are
    r = proxy(fleet, "GET", "/v1/telemetry/programs?limit=1", a, keys["a"])
    assert r.status_code == 200 and len(r.json()["items"]) <= 1


def test_headers_pass_except_hop_by_hop_host_and_cookies(fleet, upstream):
    r = proxy(fleet, "GET", "/v1/echo?x=1", upstream.url, "the-key", headers={
        "Connection": "keep-alive, X-Drop-Me", "X-Drop-Me": "1", "Keep-Alive": "timeout=5",
        "Cookie": "svc_controller_session=secret", "X-Kept": "yes"})
    assert r.status_code == 200
    seen = r.json()
    assert seen["path"] == "/v1/echo?x=1"
    assert seen["headers"]["authorization"] == "Bearer the-key"
    assert seen["headers"]["x-kept"] == "yes"
    assert seen["headers"]["host"] == upstream.url.removeprefix("http://")
    for dropped in ("x-drop-me", "keep-alive", "cookie", "x-svc-display-url"):
        assert dropped not in seen["headers"], dropped
    assert r.headers["X-Kept"] == "yes"
    assert "X-Resp-Drop" not in r.headers and "Keep-Alive" not in r.headers
    assert r.headers["Date"].count("GMT") == 1  # one Date header, not the display's and the controller's


def test_the_answer_streams_before_the_display_has_finished(fleet, upstream):
    upstream.release_stream.clear()
    with proxy(fleet, "GET", "/v1/stream", upstream.url, stream=True) as r:
        assert r.status_code == 200
        chunks = r.iter_content(chunk_size=None)
        first = next(chunks)  # arrives while the upstream still holds back the rest
        assert first.startswith(b"first-")
        upstream.release_stream.set()
        rest = b"".join(chunks)
    assert (first + rest).endswith(b"-rest") and len(first + rest) == 1006 + 5


def test_the_request_body_streams_to_the_display(fleet, upstream):
    upstream.first_chunk_seen.clear()
    waited = []

    def body():
        yield b"a" * FIRST_CHUNK
        # the display must hold the first part before the client sends the second
        waited.append(upstream.first_chunk_seen.wait(30))
        yield b"b" * 1000

    r = proxy(fleet, "POST", "/v1/upload", upstream.url, data=body())
    assert r.status_code == 200, r.text
    assert r.json() == {"bytes": FIRST_CHUNK + 1000, "chunked": True}
    assert waited == [True]


@pytest.mark.parametrize("target", [
    "https://8.8.8.8:8787", "https://[2001:4860:4860::8888]", "https://no-such-host.invalid:8787",
    "http://example.com", "http://169.254.169.254", "http://[fd00:ec2::254]:80",
])
def test_public_or_unresolvable_targets_are_refused(fleet, target):
    r = proxy(fleet, "GET", "/v1/health", target)
    assert r.status_code == 403
    assert r.json()["code"] == "proxy_target_forbidden"


@pytest.mark.parametrize("header", [None, "", "ftp://127.0.0.1/", "https://user:pw@127.0.0.1:1", "not a url",
                                    "https://127.0.0.1:99999"])
def test_a_missing_or_malformed_display_url_is_a_validation_error(fleet, header):
    headers = {} if header is None else {"X-Svc-Display-Url": header}
    r = fleet["ctl"].request("GET", "/bff/v1/proxy/v1/health", headers=headers)
    assert r.status_code == 400 and r.json()["code"] == "validation_failed"
    assert "X-Svc-Display-Url" in r.json()["details"]


def test_a_dead_display_is_502_and_a_silent_one_504(fleet, upstream):
    with closed_port() as dead:
        r = proxy(fleet, "GET", "/v1/health", f"https://127.0.0.1:{dead}")
    assert r.status_code == 502 and r.json()["code"] == "upstream_unreachable"
    started = time.monotonic()
    r = proxy(fleet, "GET", "/v1/hang", upstream.url)
    assert r.status_code == 504 and r.json()["code"] == "upstream_timeout"
    assert time.monotonic() - started >= TIMEOUT_MS / 1000 * 0.9


def _ws_context(fleet) -> ssl.SSLContext:
    return fleet["ctl"].ssl_context()


def _frame(ws) -> bytes:
    message = ws.recv(timeout=20)
    (length,) = struct.unpack(">I", message[:4])
    assert len(message) == 4 + length
    return message[4:]


def test_the_live_preview_websocket_is_forwarded(fleet):
    b, key, ctl = fleet["b"], fleet["keys"]["b"], fleet["ctl"]
    ticket = proxy(fleet, "POST", "/v1/display/live-preview/session", b, key).json()["ticket"]
    uri = f"wss://127.0.0.1:{ctl.port}/bff/v1/proxy/v1/display/live-preview/ws?ticket={ticket}"
    with connect(uri, ssl=_ws_context(fleet), open_timeout=20, max_size=None,
                 additional_headers={"Authorization": f"Bearer {key}", "X-Svc-Display-Url": b.url}) as ws:
        jpeg = _frame(ws)
    assert jpeg[:2] == b"\xff\xd8" and len(jpeg) > 500
    # a browser names the display in the query and the key as a subprotocol
    ticket = proxy(fleet, "POST", "/v1/display/live-preview/session", b, key).json()["ticket"]
    uri = (f"wss://127.0.0.1:{ctl.port}/bff/v1/proxy/v1/display/live-preview/ws?ticket={ticket}"
           f"&svc_display_url={requests.utils.quote(b.url, safe='')}")
    with connect(uri, ssl=_ws_context(fleet), open_timeout=20, max_size=None,
                 subprotocols=[f"bearer.{key}"]) as ws:
        assert ws.subprotocol == f"bearer.{key}"
        assert _frame(ws)[:2] == b"\xff\xd8"
    # the display's refusal (a spent ticket) is the client's refusal
    with pytest.raises(InvalidStatus):
        with connect(uri, ssl=_ws_context(fleet), open_timeout=20, subprotocols=[f"bearer.{key}"]) as ws:
            ws.recv(timeout=10)
    # and the SSRF rule holds for WebSockets too
    with pytest.raises(InvalidStatus):
        connect(f"wss://127.0.0.1:{ctl.port}/bff/v1/proxy/v1/display/live-preview/ws?ticket=x",
                ssl=_ws_context(fleet), open_timeout=20,
                additional_headers={"Authorization": f"Bearer {key}", "X-Svc-Display-Url": "https://8.8.8.8"})


def test_the_live_preview_websocket_reaches_a_registered_display_by_id(fleet):
    """A browser holding no key names a registered display in ``svc_display_id``: the controller
    adds the key it stores (docs/controller.md "The proxy")."""
    b, key, ctl = fleet["b"], fleet["keys"]["b"], fleet["ctl"]
    r = ctl.request("PUT", "/bff/v1/displays/preview-b", json={"name": "B", "baseUrl": b.url, "apiKey": key})
    assert r.status_code in (200, 201), r.text
    r = ctl.request("PUT", "/bff/v1/displays/preview-keyless", json={"name": "B", "baseUrl": b.url})
    assert r.status_code in (200, 201), r.text
    try:
        ticket = ctl.request("POST", "/bff/v1/proxy/v1/display/live-preview/session",
                             headers={"X-Svc-Display-Id": "preview-b"}).json()["ticket"]
        base = f"wss://127.0.0.1:{ctl.port}/bff/v1/proxy/v1/display/live-preview/ws"
        with connect(f"{base}?ticket={ticket}&svc_display_id=preview-b", ssl=_ws_context(fleet), open_timeout=20,
                     max_size=None) as ws:
            assert _frame(ws)[:2] == b"\xff\xd8"
        # unknown, malformed or keyless: refused before anything reaches the display
        for query in ("svc_display_id=nope", "svc_display_id=%FF%00", f"svc_display_id={'x' * 500}",
                      "svc_display_id=preview-keyless"):
            with pytest.raises(InvalidStatus):
                connect(f"{base}?ticket=x&{query}", ssl=_ws_context(fleet), open_timeout=20)
    finally:
        for display_id in ("preview-b", "preview-keyless"):
            ctl.request("DELETE", f"/bff/v1/displays/{display_id}")


def test_a_backup_download_streams_through_the_proxy(fleet):
    a, key = fleet["a"], fleet["keys"]["a"]
    r = proxy(fleet, "POST", "/v1/display/backup/jobs?format=tgz", a, key)
    assert r.status_code == 202, r.text
    job = r.json()["job_id"]
    deadline = time.monotonic() + 60
    while proxy(fleet, "GET", f"/v1/display/backup/jobs/{job}", a, key).json()["status"] != "ready":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    direct = a.get(f"/v1/display/backup/jobs/{job}/download", key=key).content
    with proxy(fleet, "GET", f"/v1/display/backup/jobs/{job}/download", a, key, stream=True) as r:
        assert r.status_code == 200
        assert "attachment" in r.headers["Content-Disposition"]
        assert b"".join(r.iter_content(64 * 1024)) == direct
