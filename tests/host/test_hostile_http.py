"""Hostile HTTP against one real server process: slow bodies, odd framing, malformed requests.

Plain HTTP on loopback (the raw-socket clients speak HTTP/1.1 by hand); the connection layer
is the same with TLS. Limits: docs/reliability.md.
"""
from __future__ import annotations

import asyncio
import collections
import http.client
import json
import os
import select
import socket
import ssl
import sys
import time

import pytest
import requests

from svc_display.testing import ServerProcess
from svc_display.testing.memory import MIB, rss
from tests.raw_http import (STALL, assert_contract_error, closed_by_server, connect_from, health_from, idle_sockets,
                            parse_response, raw_exchange, read_to_close, refused_upgrades, sources)

pytestmark = pytest.mark.slow

BODY_TIMEOUT = 3  # seconds: short, so the test sees slow bodies dropped
HEADER_TIMEOUT = 3
PER_ADDRESS = 128  # the documented default of SVC_DISPLAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS
MAX_CONNECTIONS = 1000  # lowered from 2,048 so that a test can fill it


def hostile_env(root, **extra):
    return {
        "SVC_DISPLAY_DATA_DIR": str(root / "data"),
        "SVC_DISPLAY_HEADLESS": "1",
        "SVC_DISPLAY_HTTP_TLS": "0",
        "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0",
        "SVC_DISPLAY_HTTP_BODY_TIMEOUT_SECONDS": str(BODY_TIMEOUT),
        "SVC_DISPLAY_HTTP_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT),
        **extra,
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(hostile_env(tmp_path_factory.mktemp("hostile"),
                                        SVC_DISPLAY_HTTP_MAX_CONNECTIONS=str(MAX_CONNECTIONS))).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    process = ServerProcess(hostile_env(tmp_path_factory.mktemp("hostile-tls"),
                                        SVC_DISPLAY_HTTP_TLS="1")).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def key(server):
    return server.key("admin", "hostile-admin")


SLOW_BODY = (b"POST /v1/adoption/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 200\r\n\r\n{")


def test_500_slow_bodies_leave_health_answered_and_are_dropped(server):
    sockets = []
    try:
        for _ in range(500):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
            sock.sendall(SLOW_BODY)
            sockets.append(sock)
        # Every WSGI worker would be waiting for the missing 199 bytes: health must not wait.
        # STALL (5 s) only detects a stall; the latency is measured by benchmarks/slow_bodies.py
        health = requests.get(server.url + "/v1/health", timeout=STALL)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        # Each slow socket is answered (over the per-address bounds at once, else at the body
        # deadline) with a CONTRACT error, and closed; a 429 says when to come back.
        answers = {408: 0, 429: 0}
        for sock in sockets:
            status, headers, body = parse_response(read_to_close(sock))
            answers[status] += 1
            assert json.loads(body)["code"] in ("request_timeout", "rate_limited")
            if status == 429:
                assert int(headers["retry-after"]) >= 1, headers
                assert json.loads(body)["details"]["retry_after_seconds"] == int(headers["retry-after"])
        assert answers[408] >= 1 and answers[429] >= 1, answers
        assert sum(answers.values()) == 500
    finally:
        for sock in sockets:
            sock.close()
    assert "Traceback" not in server.log


def test_a_connection_that_sends_no_complete_head_is_dropped(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        started = time.monotonic()
        raw = read_to_close(sock)
        assert time.monotonic() - started < 15  # dropped at the head deadline, not held open
    assert_contract_error(raw, 408, "request_timeout")


@pytest.fixture(scope="module")
def operations(server):
    """(method, path template, has a JSON body) for every operation of the served document."""
    document = server.get("/v1/openapi.json").json()
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method.upper() not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
                continue
            content = (operation.get("requestBody") or {}).get("content") or {}
            found.append((method.upper(), path, "application/json" in content))
    assert len(found) > 40
    return found


def fill(template: str, value: str) -> str:
    from urllib.parse import quote

    parts = template.split("/")
    return "/".join(quote(value, safe="") if part.startswith("{") else part for part in parts)


@pytest.mark.parametrize("nested", [
    "[" * 100_000 + "]" * 100_000,                         # past the parser's own stack
    '{"name": ' + "[" * 5_000 + "]" * 5_000 + "}",         # past the recursive checks of old
    '{"name": ' + "{\"a\": " * 65 + "1" + "}" * 65 + "}",   # just past the documented limit
], ids=["array-100k", "field-5k", "object-66"])
def test_deeply_nested_json_is_invalid_json_on_every_body_route(server, key, operations, nested):
    body_routes = [(method, path) for method, path, has_body in operations if has_body]
    assert len(body_routes) > 30
    session = requests.Session()
    for method, path in body_routes:
        response = session.request(method, server.url + fill(path, "x"), data=nested, timeout=15,
                                   headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        assert response.status_code == 400, (method, path, response.status_code, response.text[:300])
        assert response.json()["code"] == "invalid_json", (method, path, response.text[:300])
    assert "Traceback" not in server.log and "RecursionError" not in server.log


def test_json_nested_to_the_limit_is_accepted(server, key):
    from svc_host.http.app import MAX_JSON_DEPTH

    # /v1/kv-style free-form objects are the deepest bodies: the body object itself is level 1.
    value = 1
    for _ in range(MAX_JSON_DEPTH - 1):
        value = {"a": value}
    response = server.request("POST", "/v1/adoption/confirm", json=value, timeout=15)
    assert response.status_code != 500 and response.json()["code"] != "invalid_json", response.text[:300]


@pytest.mark.parametrize("blank", [" ", "\t", "\x01", " \x7f "], ids=["space", "tab", "soh", "del"])
def test_blank_or_control_path_ids_are_not_found_on_every_route(server, key, operations, blank):
    id_routes = [(method, path) for method, path, _ in operations if "{" in path]
    assert len(id_routes) > 15
    session = requests.Session()
    for method, path in id_routes:
        response = session.request(method, server.url + fill(path, blank), json={}, timeout=15,
                                   headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == 404, (method, path, response.status_code, response.text[:300])
        assert response.json()["code"] == "not_found", (method, path, response.text[:300])
    assert "Traceback" not in server.log


def test_the_storable_text_checks_walk_any_depth_without_recursion():
    from svc_host.rest.text import storable
    from svc_host.http.app import json_depth
    from svc_host.storage import unstorable_text

    deep: object = "bad\x00text"
    for _ in range(100_000):
        deep = [deep] if len(str(type(deep))) % 2 else {"k": deep}
    assert unstorable_text(deep) is True
    assert storable(deep) is False
    assert json_depth(deep) == 100_000


def chunks(data: bytes, size: int = 7):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_chunked_bodies_are_read_like_any_other(server, key):
    body = json.dumps({"id": "chunked-screen", "screen_type": "message", "config_json": {"body": "chunked"}}).encode()
    created = requests.post(server.url + "/v1/screens", data=chunks(body), timeout=15,
                            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    assert created.status_code == 201, created.text
    fetched = server.get("/v1/screens/chunked-screen", key=key)
    assert fetched.status_code == 200 and fetched.json()["config_json"] == {"body": "chunked"}


def test_chunked_bodies_past_the_cap_are_413_and_store_nothing(server, key):
    from svc_host.http.app import DEFAULT_MAX_BODY

    padding = "x" * (DEFAULT_MAX_BODY + 10)
    body = json.dumps({"id": "too-big", "screen_type": "message", "config_json": {"body": padding}}).encode()
    refused = requests.post(server.url + "/v1/screens", data=chunks(body, 65536), timeout=30,
                            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    assert refused.status_code == 413 and refused.json()["code"] == "payload_too_large"
    assert server.get("/v1/screens/too-big", key=key).status_code == 404


@pytest.mark.parametrize("request_bytes, status, code", [
    (b"GARBAGE\x01\x02 nonsense\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n", 400, "bad_request"),
    (b"POST /v1/adoption/confirm HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"2\r\n{}\r\n0\r\n\r\n", 400, "bad_request"),
    (b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000 + b"\r\n\r\n", 431, "headers_too_large"),
    (b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(10_000)) + b"\r\n",
     431, "headers_too_large"),
], ids=["garbage-line", "nul-in-header", "length-and-chunked", "100k-path", "1mb-header", "10k-headers"])
def test_malformed_http_gets_the_contract_error_body(server, request_bytes, status, code):
    assert_contract_error(raw_exchange(server.port, request_bytes), status, code)
    assert server.get("/v1/health").status_code == 200


def test_limits_leave_ordinary_requests_alone(server):
    headers = {f"X-Header-{i}": "v" * 100 for i in range(60)}
    assert server.get("/v1/health", headers=headers).status_code == 200
    assert server.get("/v1/" + "a" * 4000).status_code == 404


def test_a_large_body_arriving_steadily_outlives_the_body_timeout(server, key):
    """The body deadline grows with the bytes received (docs/reliability.md): 3 MiB sent at about
    1 MiB/s for longer than the body timeout is read whole (spooled to disk past 1 MiB) and
    reaches the route, which judges it (not an archive: 400), instead of a 408."""
    payload = bytes(range(256)) * (3 * 4096)  # 3 MiB
    head = (f"POST /v1/display/backup/restore?confirm=yes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head)
        for offset in range(0, len(payload), 64 * 1024):
            sock.sendall(payload[offset:offset + 64 * 1024])
            time.sleep(0.08)
        answer = read_to_close(sock)
    assert time.monotonic() - started > BODY_TIMEOUT
    status_line, _, rest = answer.partition(b"\r\n")
    assert b" 400 " in status_line, answer[:300]
    assert json.loads(rest.split(b"\r\n\r\n", 1)[1])["code"] == "invalid_backup_archive"


def test_500_slow_bodies_from_500_addresses_leave_health_answered(server):
    """No per-address bound applies here (one socket per address): the bodies wait on the event
    loop, every one is answered 408 at the body deadline, and health does not wait for them."""
    sockets = []
    try:
        for source in sources(500):
            sock = connect_from(source, server.port)
            sock.sendall(SLOW_BODY)
            sockets.append(sock)
        assert health_from(server, "127.0.0.1") == 200
        for sock in sockets:
            assert_contract_error(read_to_close(sock), 408, "request_timeout")
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.parametrize("path, status, code", [
    ("/v1/display/backup/restore?confirm=yes", 401, "unauthorized"),  # a 2 GiB route: a key first
    ("/v1/screens", 413, "payload_too_large"),                       # a 1 MiB route: its own cap
], ids=["restore-route", "screens-route"])
def test_an_unauthenticated_large_body_is_refused_before_it_is_sent(server, path, status, code):
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {50 * 1024 * 1024}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=STALL) as sock:
        sock.sendall(head)  # and not one byte of the 50 MiB: the answer must come without them
        assert_contract_error(read_to_close(sock), status, code)


def test_a_large_body_needs_a_key_with_the_routes_permission(server, key):
    viewer = server.key("viewer", "hostile-viewer")
    for token, status, code in [(viewer, 403, "forbidden"), ("svc_not-a-key", 401, "unauthorized")]:
        head = (f"POST /v1/display/backup/restore?confirm=yes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {token}\r\nContent-Length: {50 * 1024 * 1024}\r\n\r\n").encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=STALL) as sock:
            sock.sendall(head)
            assert_contract_error(read_to_close(sock), status, code)


def test_an_unauthenticated_chunked_body_stops_at_the_default_cap(server):
    from svc_host.http.app import DEFAULT_MAX_BODY

    refused = requests.post(server.url + "/v1/display/backup/restore?confirm=yes", timeout=30,
                            data=chunks(b"x" * (2 * DEFAULT_MAX_BODY), 65536))
    assert refused.status_code == 413 and refused.json()["code"] == "payload_too_large"


def test_a_header_line_that_never_ends_is_refused_at_the_head_limit(server):
    """32 MiB of one header value and no line end: 431 once the head passes its limit on the wire
    (not held whole until the line ends), and health is answered meanwhile."""
    piece = b"a" * 65536
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=STALL) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: ")
        while sent < 32 * 1024 * 1024 and not select.select([sock], [], [], 0)[0]:
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
            if sent == 2 * len(piece):
                assert health_from(server) == 200
        raw = read_to_close(sock)
    assert_contract_error(raw, 431, "headers_too_large")
    assert sent < 4 * 1024 * 1024, sent  # refused near the limit (16 KiB + one read), not at 32 MiB
    assert health_from(server) == 200


def test_connections_are_bounded_per_address_and_in_all(server):
    """One address holds at most PER_ADDRESS connections (the next is answered 429 with
    Retry-After at once); the server at most MAX_CONNECTIONS (503 server_busy); a normal client
    from another address is answered until the server is full, and again once sockets close."""
    held = []
    try:
        for _ in range(PER_ADDRESS):
            held.append(connect_from("127.0.9.1", server.port))
        with connect_from("127.0.9.1", server.port) as extra:
            status, headers, body = parse_response(read_to_close(extra))
        assert status == 429 and json.loads(body)["code"] == "rate_limited", body
        assert int(headers["retry-after"]) >= 1
        assert health_from(server, "127.0.9.2") == 200
        for source in sources(MAX_CONNECTIONS - PER_ADDRESS, third_octet=10):
            held.append(connect_from(source, server.port))
        time.sleep(0.5)
        assert not any(closed_by_server(sock) for sock in held[-50:])
        with connect_from("127.0.9.3", server.port) as extra:
            status, headers, body = parse_response(read_to_close(extra))
        assert status == 503 and json.loads(body)["code"] == "server_busy", body
        assert int(headers["retry-after"]) >= 1
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + STALL
    while time.monotonic() < deadline:
        try:
            if health_from(server, "127.0.9.3") == 200:
                break
        except (OSError, http.client.HTTPException):
            time.sleep(0.2)
    assert health_from(server, "127.0.9.3") == 200


def test_silent_tls_sockets_and_partial_heads_are_bounded_per_address(tls_server):
    """500 TCP sockets that never start their TLS handshake, then 500 that finish it and send
    half a head, all from one address: it holds at most PER_ADDRESS of them (the rest are closed
    at once, before any handshake), the silent ones are dropped at the handshake deadline (the
    head deadline; asyncio's default is 60 s), and a client from another address is answered."""
    attacker = "127.0.8.1"
    silent = [connect_from(attacker, tls_server.port) for _ in range(500)]
    partial = []
    try:
        time.sleep(0.5)
        held = [sock for sock in silent if not closed_by_server(sock)]
        assert 0 < len(held) <= PER_ADDRESS, len(held)
        assert health_from(tls_server) == 200
        deadline = time.monotonic() + HEADER_TIMEOUT + STALL
        while held and time.monotonic() < deadline:
            held = [sock for sock in held if not closed_by_server(sock)]
            time.sleep(0.2)
        assert not held, f"{len(held)} silent TLS sockets outlived the handshake deadline"

        context = ssl.create_default_context(cafile=tls_server.verify)
        refused = 0
        for _ in range(500):
            raw = connect_from(attacker, tls_server.port)
            try:
                sock = context.wrap_socket(raw, server_hostname="localhost")
                sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                partial.append(sock)
            except (ssl.SSLError, OSError):
                raw.close()
                refused += 1
        # held at most PER_ADDRESS at a time (on a slow machine the first ones may already have
        # met their head deadline, freeing places), the others refused before their handshake
        still_open = [sock for sock in partial if not closed_by_server(sock)]
        assert len(still_open) <= PER_ADDRESS and refused >= 1 and refused + len(partial) == 500, \
            (len(still_open), len(partial), refused)
        assert health_from(tls_server) == 200
        for sock in still_open:  # each dropped with its 408 at the head deadline
            assert_contract_error(read_to_close(sock), 408, "request_timeout")
    finally:
        for sock in silent + partial:
            sock.close()


def test_tls_connections_refused_at_accept_are_closed_without_an_error(tls_server):
    """A TLS connection past its address's limit is closed at accept, before any handshake; the
    loop then tells the gate it was lost, which must not fail (it raised AttributeError for every
    refused connection, a traceback in the log per hostile socket) and gives back no place it
    never took: the address's held connections stay counted, the next is refused again."""
    attacker = "127.8.3.1"
    logged = len(tls_server.log)
    held = [connect_from(attacker, tls_server.port) for _ in range(PER_ADDRESS)]
    try:
        for _ in range(3):
            with connect_from(attacker, tls_server.port) as extra:
                assert read_to_close(extra) == b""  # closed (or reset) with no answer
        assert not any(closed_by_server(sock) for sock in held)
        assert health_from(tls_server) == 200  # served after the refused ones' callbacks ran
        new_lines = tls_server.log[logged:]
        assert "Traceback" not in new_lines and "Error" not in new_lines, new_lines[-2000:]
    finally:
        for sock in held:
            sock.close()


def assert_memory_comes_back(server, start: int, bound: int) -> None:
    """The server's RSS back within ``bound`` bytes of ``start`` (waited for, at most 90 s: freed
    memory goes back at its next malloc_trim, every 30 s), and the server still answers."""
    pid = server.process.pid
    deadline = time.monotonic() + 90
    while rss(pid) - start >= bound and time.monotonic() < deadline:
        time.sleep(0.5)
    assert rss(pid) - start < bound, (start / MIB, rss(pid) / MIB)
    assert health_from(server) == 200


def test_refused_websocket_upgrades_give_their_memory_back(tls_server):
    """3,000 TLS connections (500 at once) refused a WebSocket upgrade (403): the server's RSS comes
    back within 40 MiB of where it was (it kept +100 MB: each upgraded connection's HTTP protocol,
    TLS protocol and OpenSSL buffers stayed in a reference cycle, and glibc kept what was freed;
    docs/reliability.md). Waited for, not timed: the memory goes back at the next malloc_trim,
    every 30 s."""
    pid = tls_server.process.pid
    start = rss(pid)
    statuses = asyncio.run(refused_upgrades(tls_server, rounds=6, at_once=500))
    assert statuses == {b"HTTP/1.1 403 Forbidden": 3000}, statuses
    assert_memory_comes_back(tls_server, start, 40 * MIB)


def test_idle_connections_give_their_memory_back(tls_server):
    """4,000 TLS connections (500 at once, from as many addresses) that never send a byte: the
    server's RSS comes back within 16 MiB of where it was (the issue's bound for what a request
    may leave behind). Each one's HTTP protocol, made at accept and never connected, was garbage
    in a reference cycle until a full collection: +10 to +17 MiB after the idle churn of
    benchmarks/upgrade_churn.py, +0 to +1 MiB now (docs/reliability.md). Waited for, not timed:
    freed memory goes back at the server's next malloc_trim, every 30 s. The exact count of what
    was left is tests/host/test_connection_limits.py's, which failed before the fix."""
    pid = tls_server.process.pid
    start = rss(pid)
    counted: collections.Counter = collections.Counter()
    for _ in range(8):
        counted.update(asyncio.run(idle_sockets(tls_server, at_once=500, hold=0.5)))
    assert sum(counted.values()) == 4000, counted
    assert_memory_comes_back(tls_server, start, 16 * MIB)


def test_a_body_the_disk_has_no_room_for_is_507_and_changes_nothing(tmp_path):
    """A body spooled to disk past the room there is (here a 4 MiB file-size limit on the server
    process, which fails a write with EFBIG as a full disk fails it with ENOSPC) is answered 507
    ``insufficient_storage`` in the CONTRACT shape, not 500; nothing is restored and the server
    goes on answering."""
    # The limit and the ignored SIGXFSZ are set in the server's own process, then it becomes
    # `svc-display serve` (both pass through exec); this test's process keeps its own limits.
    limited = ("import os, resource, signal, sys\n"
               "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
               "resource.setrlimit(resource.RLIMIT_FSIZE, (4 * 1024 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))\n"
               "os.execv(sys.executable, [sys.executable, '-m', 'svc_host', 'serve'])\n")
    process = ServerProcess(hostile_env(tmp_path))
    process.launch([sys.executable, "-c", limited], timeout=60)
    try:
        key = process.key("admin")
        assert process.request("POST", "/v1/screens", key=key, json={
            "id": "kept", "screen_type": "message", "config_json": {"body": "still here"}}).status_code == 201
        answer = process.request("POST", "/v1/display/backup/restore?confirm=yes", key=key,
                                 data=os.urandom(6 * 1024 * 1024),
                                 headers={"Content-Type": "application/octet-stream"})
        assert answer.status_code == 507, answer.text
        assert answer.json()["code"] == "insufficient_storage" and answer.json()["message"]
        assert process.process.poll() is None
        assert process.get("/v1/screens/kept", key=key).status_code == 200
        assert process.get("/v1/health").status_code == 200
        assert "Traceback" not in process.log
    finally:
        process.stop()
