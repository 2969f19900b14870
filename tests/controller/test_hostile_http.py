"""Hostile HTTP against a real ``svc-controller serve``: the display's connection layer in front
of the controller's routes (issue 26, item 1). Plain HTTP on loopback, auth on; the raw-socket
helpers are the display tests' (tests/raw_http.py). Limits: docs/reliability.md."""
from __future__ import annotations

from collections import Counter

import pytest

from tests.controllers import ControllerProcess
from tests.raw_http import (STALL, assert_contract_error, connect_from, health_from, open_sending,
                                          parse_response, raw_exchange, read_to_close, sources)

pytestmark = pytest.mark.slow

BODY_TIMEOUT = 3  # seconds: short, so the test sees slow bodies dropped
# the headers of a sign-in and one byte of its body: before the connection layer, 16 of these
# held every WSGI worker of the controller, unauthenticated, for as long as they stayed open
SLOW_LOGIN = (b"POST /bff/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: 200\r\n\r\n{")


@pytest.fixture(scope="module")
def controller(tmp_path_factory):
    process = ControllerProcess(tmp_path_factory.mktemp("hostile-ctl") / "data", {
        "SVC_CONTROLLER_TLS": "0", "SVC_CONTROLLER_AUTH_ENABLED": "1",
        "SVC_CONTROLLER_SESSION_SECRET": "s" * 40,
        "SVC_CONTROLLER_HTTP_BODY_TIMEOUT_SECONDS": str(BODY_TIMEOUT),
        "SVC_CONTROLLER_HTTP_HEADER_TIMEOUT_SECONDS": "3"})
    process.start()
    yield process
    process.stop()


def health(controller: ControllerProcess) -> int:
    return health_from(controller, "127.0.0.1", "/bff/v1/health")


@pytest.mark.parametrize("count", [16, 64, 500])
def test_slow_sign_in_bodies_leave_health_answered_and_are_dropped(controller, count):
    """Each slow socket from its own address (no per-address bound applies): the bodies wait on
    the event loop, health does not wait for them (STALL only detects a stall; the latency is
    measured by benchmarks/slow_bodies.py --controller), and each is answered 408 at the deadline."""
    sockets = open_sending(controller.port, SLOW_LOGIN, sources(count))
    try:
        assert health(controller) == 200
        for sock in sockets:
            assert_contract_error(read_to_close(sock), 408, "request_timeout")
    finally:
        for sock in sockets:
            sock.close()
    assert "Traceback" not in controller.log


def test_slow_bodies_from_one_address_are_bounded_per_address(controller):
    """From one address: 128 connections held (32 waiting for their body), the rest 429 at once."""
    sockets = open_sending(controller.port, SLOW_LOGIN, ["127.0.0.1"] * 200)
    try:
        assert health_from(controller, "127.0.0.2", "/bff/v1/health") == 200
        answers = Counter(parse_response(read_to_close(sock))[0] for sock in sockets)
        assert set(answers) == {408, 429} and answers[408] <= 32, answers
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.parametrize("request_bytes, status, code", [
    (b"GARBAGE\r\n\r\n", 400, "bad_request"),
    (b"GET /bff/v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * 20000 + b"\r\n\r\n", 431,
     "headers_too_large"),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    (b"POST /bff/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413,
     "payload_too_large"),
    # an archive upload may be large, but only from a signed-in caller: asked before the body
    (b"POST /bff/v1/backup-targets/x/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
     b"Content-Length: 99999999\r\n\r\n", 401, "unauthorized"),
])
def test_malformed_or_oversized_requests_get_the_contract_error_body(controller, request_bytes, status, code):
    assert_contract_error(raw_exchange(controller.port, request_bytes, timeout=STALL), status, code)


def test_a_silent_connection_is_dropped_at_the_head_deadline(controller):
    with connect_from("127.0.0.3", controller.port) as sock:
        sock.sendall(b"GET /bff/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert_contract_error(read_to_close(sock), 408, "request_timeout")
