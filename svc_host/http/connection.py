"""Connection handling in front of the WSGI workers: only complete requests reach them.

Three layers, all on uvicorn's event loop, so a slow or hostile client costs a socket and a
few bytes, never one of the WSGI worker threads:

- :class:`ConnectionLimits` and :class:`TlsGate`: every connection is counted for its client
  address and for the server from the moment it is accepted (a TLS connection before its
  handshake, which must end within the head deadline) until it closes; past
  ``per_address`` or ``total`` it is refused at once (plain HTTP: 429 ``rate_limited`` or
  503 ``server_busy`` with ``Retry-After``, then closed; TLS: closed, nothing can be said
  before a handshake).
- :class:`GuardedHttpToolsProtocol` (uvicorn's httptools protocol, bounded): a request's
  head (request line and headers) must arrive within ``header_timeout`` seconds, stay within
  :data:`MAX_HEAD_BYTES` and :data:`MAX_HEADERS`; a connection that sends nothing is dropped
  after the same timeout. Malformed requests are answered with the CONTRACT error body
  instead of uvicorn's plain text.
- :class:`CompleteRequests` (ASGI): reads the whole body (``Content-Length`` or chunked) with
  a deadline, caps its size at the route's own limit (:class:`BodyRules`; bodies past the
  default cap only from a caller with a valid key, checked before a byte of the body is
  read), bounds how many requests per client address may be waiting for their body at once,
  and hands the WSGI bridge a request whose body is complete (``Content-Length`` set to what
  arrived, so chunked bodies read like any other). Bodies past :data:`SPOOL_IN_MEMORY` are
  spooled to a private file on disk, never held in memory (a 2 GiB backup upload costs disk,
  not RAM). The deadline is ``body_timeout`` plus the time the bytes received so far need at
  :data:`MIN_BODY_RATE`: a large upload on a slow link finishes, a trickle does not.

Each connection's writes of one event-loop tick leave in one ``write`` of the transport
(:class:`CorkedTransport`): uvicorn writes a response's head and its body separately, which is
two TLS records, two OpenSSL calls (each giving up the GIL and queueing to take it back) and
two ``send`` calls per response.

uvicorn offers none of these bounds for httptools (``h11_max_incomplete_event_size`` exists
only for h11, the slower parser; ``limit_concurrency`` counts neither addresses nor TLS
handshakes) and no header or body deadline at all: hence this module. Limits are documented
in docs/reliability.md.
"""
from __future__ import annotations

import asyncio
import asyncio.sslproto
import errno
import functools
import io
import json
import logging
import os
import ssl
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any, Callable

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from svc_host.http.bridge import BODY_SCOPE_KEY
from svc_host.http.errors import error_body

log = logging.getLogger("svc_host.http")

MAX_HEAD_BYTES = 16 * 1024  # request line + header names and values, per request
# Bytes a head may take on the wire before it is refused even though no header line has ended
# yet (httptools holds an unfinished line whole, and on_header sees it only at its end): the
# limit above plus one read of the transport (asyncio and uvloop read at most 256 KiB).
MAX_HEAD_WIRE_BYTES = MAX_HEAD_BYTES + 256 * 1024
MAX_HEADERS = 100
MAX_URL_BYTES = 8 * 1024
SPOOL_IN_MEMORY = 1024 * 1024  # bodies up to this size stay in memory; larger ones go to disk
# A full disk, a full quota, or a file-size limit while a body is spooled: 507, like a restore
# that has no room (CONTRACT), never a 500.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
MIN_BODY_RATE = 256 * 1024  # bytes per second a body must average beyond its first body_timeout
REPLAY_CHUNK = 64 * 1024

RETRY_AFTER_SECONDS = 2  # what a refused client is told to wait (429 and 503 of this layer)

_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 408: "Request Timeout",
            413: "Content Too Large", 414: "URI Too Long", 429: "Too Many Requests",
            431: "Request Header Fields Too Large", 503: "Service Unavailable"}


def _json_error(status: int, code: str, message: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    retry = status in (429, 503)
    details = {"retry_after_seconds": RETRY_AFTER_SECONDS} if retry else None
    body = json.dumps(error_body(code, message, details))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    if retry:  # the shape of svc_host/rest/ratelimit.py's 429s
        headers.append((b"retry-after", str(RETRY_AFTER_SECONDS).encode()))
    return headers, body.encode()


def _raw_response(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response, for answers written straight to a transport."""
    headers, body = _json_error(status, code, message)
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n".encode()]
    head += [name + b": " + value + b"\r\n" for name, value in headers]
    return b"".join(head) + b"\r\n" + body


class ConnectionLimits:
    """Open connections per client address and in all, from accept (before any TLS handshake)
    to close. One instance per listening server, used on its event loop only."""

    def __init__(self, per_address: int, total: int):
        self.per_address = per_address
        self.total = total
        self.by_address: Counter[str] = Counter()
        self.open = 0

    def admit(self, address: str) -> tuple[int, str, str] | None:
        """None (and the connection counted), or the refusal (status, code, message)."""
        if self.open >= self.total:
            return 503, "server_busy", f"the server holds its maximum of {self.total} connections"
        if self.by_address[address] >= self.per_address:
            return 429, "rate_limited", f"too many connections from this address (at most {self.per_address})"
        self.by_address[address] += 1
        self.open += 1
        return None

    def release(self, address: str) -> None:
        self.open -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


class _Slot:
    """One admitted connection's place in :class:`ConnectionLimits`, given back once."""

    def __init__(self, limits: ConnectionLimits, address: str):
        self.limits = limits
        self.address = address
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.limits.release(self.address)


def _peer_address(transport: Any) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "-"


def _counted(base: type) -> type:
    class CountedTls(base):  # type: ignore[misc, valid-type]
        """The loop's TLS protocol, giving the connection's place back when the socket closes
        (handshake failed or timed out included, when the HTTP protocol never hears of it), and
        letting go of an HTTP protocol that never got the connection (see
        :meth:`GuardedHttpToolsProtocol.discard`)."""

        slot: "_Slot | None" = None
        http: "GuardedHttpToolsProtocol | None" = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self.slot is not None:
                self.slot.release()
            super().connection_lost(exc)
            if self.http is not None:
                http, self.http = self.http, None
                if http.transport is None:  # the handshake never ended: its connection_lost never comes
                    http.discard()

    CountedTls.__name__ = CountedTls.__qualname__ = f"Counted{base.__name__}"
    return CountedTls


_CountedAsyncioTls = _counted(asyncio.sslproto.SSLProtocol)
try:
    import uvloop
    import uvloop.loop

    _CountedUvloopTls = _counted(uvloop.loop.SSLProtocol)
except ImportError:  # pragma: no cover - uvloop is a dependency where it builds
    uvloop = None


def _tls_protocol_class(loop: asyncio.AbstractEventLoop) -> Any:
    """The loop's own TLS protocol (uvloop's, in C, when uvicorn runs on uvloop), counted."""
    if uvloop is not None and isinstance(loop, uvloop.Loop):
        return _CountedUvloopTls
    return _CountedAsyncioTls


TLS_HANDSHAKE_RECORD = b"\x16"  # the content type of a TLS handshake record (RFC 8446 5.1)


class TlsGate(asyncio.Protocol):
    """What uvicorn's server makes per accepted TLS connection: counts it for its address, then
    hands the socket to the loop's TLS protocol (:meth:`transport.set_protocol`), whose
    handshake must end within ``handshake_timeout`` and which gives the place back when the
    socket closes.

    The HTTP protocol is made only then, for a connection that starts a handshake: an idle
    connection (accepted, never sending a byte) costs this gate, its timer and the transport,
    nothing more (an HTTP protocol made at accept and never connected was garbage kept in a
    reference cycle with its parser until a full collection: docs/reliability.md, idle churn).

    This is what ``loop.create_server(ssl=...)`` does inside the loop, plus the count: there,
    nothing of the application sees a connection before its handshake has completed, so
    a client could hold any number of silent TLS sockets for asyncio's default 60 s. Handing the
    socket over (instead of relaying every read through this class) keeps uvloop's fast path
    for its own TLS protocol: reads go from libuv to OpenSSL without a Python call. The socket
    is handed over on its first read, which is passed on; a first byte that cannot start a TLS
    handshake is plain HTTP to this port, answered with a plain 400 saying to use https."""

    def __init__(self, app_protocol: Callable[[], Any], context: ssl.SSLContext, limits: ConnectionLimits,
                 handshake_timeout: float, loop: asyncio.AbstractEventLoop):
        self.app_protocol = app_protocol  # the HTTP protocol's factory
        self.context = context
        self.limits = limits
        self.handshake_timeout = handshake_timeout
        self.loop = loop
        self.slot: _Slot | None = None  # None: refused at accept (nothing to give back)
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        address = _peer_address(transport)
        if self.limits.admit(address) is not None:
            transport.abort()  # no TLS yet: nothing can be said to this client
            return
        self.transport = transport
        self.slot = _Slot(self.limits, address)
        # The first byte tells a TLS record (a ClientHello) from plain HTTP sent to this port;
        # until it arrives the head deadline runs, as the handshake's would.
        self.timer = self.loop.call_later(self.handshake_timeout, self._silent)

    def data_received(self, data: bytes) -> None:
        self.timer.cancel()
        if data[:1] != TLS_HANDSHAKE_RECORD:
            self._plain_http(data)
            return
        http = self.app_protocol()
        http.slot = self.slot  # counted here: the HTTP protocol does not count again
        http.gated = True
        tls = _tls_protocol_class(self.loop)(self.loop, http, self.context, None, server_side=True,
                                             ssl_handshake_timeout=self.handshake_timeout)
        tls.slot = self.slot
        tls.http = http
        self.transport.set_protocol(tls)  # later reads go straight to the TLS protocol
        tls.connection_made(self.transport)
        buffer = tls.get_buffer(len(data))  # both loops' TLS protocols are buffered protocols
        buffer[:len(data)] = data
        tls.buffer_updated(len(data))

    def _plain_http(self, data: bytes) -> None:
        """Plain HTTP to the HTTPS port: a short plain-HTTP 400 saying to use https, and a log
        line (a TLS alert would reach the client as an empty reply, curl's error 52)."""
        line = data.split(b"\r\n", 1)[0][:80].decode("ascii", "replace")
        log.warning("plain HTTP from %s to the HTTPS port (%r): answered 400, use https://",
                    self.slot.address, line)
        body = b"This port serves HTTPS only: use https:// instead of http://.\n"
        self.transport.write(b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
                             b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body) + body)
        self.transport.close()

    def _silent(self) -> None:
        self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        # closed before the socket went to the TLS protocol (after, the TLS protocol has it);
        # the loop calls this for a connection refused (aborted) in connection_made too
        if self.timer is not None:
            self.timer.cancel()
        if self.slot is not None:
            self.slot.release()


class CorkedTransport:
    """A transport whose writes are held until the end of the current event-loop tick, then
    written at once (what ``socket.cork()`` + ``process.nextTick(uncork)`` is in Node.js).

    uvicorn's httptools protocol writes a response's status line and headers, then its body,
    with one ``transport.write`` each; the WSGI bridge sends both in the same tick. Joined,
    they are one TLS record and one OpenSSL call instead of two, one ``send`` on plain HTTP
    (REST at 4-16 connections: about a tenth more requests per second, docs/performance.md).
    Order is kept; ``close`` writes what is held first; ``abort`` drops it, as it drops the
    transport's own buffer. Everything else is the wrapped transport's (flow control stays
    with it: the held bytes are at most one tick's writes). Written by hand: neither asyncio
    nor uvloop has corking, and uvicorn takes the transport as it is given.
    """

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Write what is held (at the end of the tick, or before a close)."""
        if not self._held:
            return
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held = []
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _HeadRefused(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.refusal = (status, code, message)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a head deadline, head size/count limits and JSON errors."""

    header_timeout: float = 10.0
    limits: ConnectionLimits | None = None
    # On shutdown, a closed connection that is still not gone after this many seconds is
    # aborted: a TLS close waits for the client's close_notify, up to asyncio's 30 s
    # ssl_shutdown_timeout, and a client that never reads would hold the stop that long.
    shutdown_close_grace: float = 2.0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._shutdown_timer: asyncio.TimerHandle | None = None
        self.slot: _Slot | None = None
        self.gated = False  # True behind a TlsGate, which counted this connection already
        self._in_head = True  # from a message's first byte (or the connection's start) to its headers' end
        self._heads_begun = 0
        self._head_wire_bytes = 0

    @classmethod
    def configured(cls, header_timeout: float, limits: ConnectionLimits | None = None,
                   tls_context: ssl.SSLContext | None = None) -> Callable[..., asyncio.BaseProtocol]:
        """The protocol factory uvicorn calls per accepted connection (``uvicorn.Config(http=...)``).

        With ``tls_context`` the factory returns a :class:`TlsGate` in front of the protocol
        (uvicorn is then given no TLS settings of its own), whose handshake must end within
        ``header_timeout``."""
        protocol = type(cls.__name__, (cls,), {"header_timeout": float(header_timeout), "limits": limits})
        if tls_context is None:
            return protocol
        gate_limits = limits or ConnectionLimits(10 ** 9, 10 ** 9)

        def tls_factory(**kwargs: Any) -> asyncio.BaseProtocol:
            loop = kwargs.get("_loop") or asyncio.get_running_loop()
            return TlsGate(functools.partial(protocol, **kwargs), tls_context, gate_limits, float(header_timeout),
                           loop)

        return tls_factory

    # A head must arrive within header_timeout: from the connection's start, and from the
    # first byte of each later request on a kept-alive connection.
    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            # a pipelined head behind a request still answering: its time starts after that answer
            self._arm_head_timer()
            return
        if not self.transport.is_closing():
            self._send_error(408, "request_timeout",
                             f"the request head did not arrive within {self.header_timeout:g} s")

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = CorkedTransport(transport, self.loop)  # uvicorn's flow control keeps the raw one
        if self.slot is None and self.limits is not None:  # plain HTTP: counted from here
            address = _peer_address(transport)
            refusal = self.limits.admit(address)
            if refusal is not None:
                # Answered before its head arrives: a refused client must not hold the socket
                # for the head deadline (the count is what bounds that).
                transport.write(_raw_response(*refusal))
                transport.close()
                return
            self.slot = _Slot(self.limits, address)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.slot is not None:
            self.slot.release()
        self._cancel_head_timer()
        if self._shutdown_timer is not None:
            self._shutdown_timer.cancel()
            self._shutdown_timer = None
        super().connection_lost(exc)

    def discard(self) -> None:
        """Let go of a protocol that never got its connection (a TLS handshake that failed or
        timed out): its httptools parser holds it through bound callbacks, a reference cycle
        that only a full garbage collection frees, which allocations on the Python heap alone
        set off (uvicorn breaks it in ``connection_lost``, which such a protocol never gets)."""
        self.parser = None  # type: ignore[assignment]

    def handle_websocket_upgrade(self) -> None:
        """The WebSocket protocol takes the transport over and this one never hears of its
        close: a plain connection's count goes with it (HTTPS: the TLS protocol keeps its own).

        This protocol is done with the connection then, but its httptools parser holds it
        through bound callbacks, a reference cycle that kept it, the transport, the TLS
        protocol and OpenSSL's buffers of every upgraded connection until a full garbage
        collection, which allocations on the Python heap alone set off: +140 MB for 10,000
        refused upgrades (docs/reliability.md). The parser goes, the cycle with it."""
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]
        self._cancel_head_timer()
        if self.slot is None or self.gated:
            return
        slot, self.slot = self.slot, None
        websocket = self.transport.get_protocol()
        ended = websocket.connection_lost

        def connection_lost(exc: Exception | None) -> None:
            slot.release()
            ended(exc)

        websocket.connection_lost = connection_lost

    def data_received(self, data: bytes) -> None:
        """Fed to httptools as before; bytes of a head still unfinished after a whole read are
        counted here, because httptools reports a header only once its line ends."""
        counting = self._in_head
        begun = self._heads_begun
        super().data_received(data)
        if counting and self._in_head and begun == self._heads_begun and not self.transport.is_closing():
            # the whole read belonged to one unfinished head
            self._head_wire_bytes += len(data)
            if self._head_wire_bytes > MAX_HEAD_WIRE_BYTES:
                self._send_error(431, "headers_too_large", f"the request head exceeds {MAX_HEAD_BYTES} bytes")

    def shutdown(self) -> None:
        """Idle connections close now, busy ones after their response (uvicorn); either
        way the transport is aborted if it lingers past the grace (see shutdown_close_grace)."""
        super().shutdown()
        self._shutdown_timer = self.loop.call_later(self.shutdown_close_grace, self._abort_lingering)

    def _abort_lingering(self) -> None:
        self._shutdown_timer = None
        if self.transport.is_closing() and not self.transport.get_write_buffer_size():
            self.transport.abort()  # closed, everything sent, only the peer's close_notify awaited
        else:  # a response still being answered or sent: look again after another grace
            self._shutdown_timer = self.loop.call_later(self.shutdown_close_grace, self._abort_lingering)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._in_head = True
        self._heads_begun += 1
        self._head_wire_bytes = 0
        self._arm_head_timer()

    def on_url(self, url: bytes) -> None:
        self._head_bytes += len(url)
        if len(self.url) + len(url) > MAX_URL_BYTES:
            raise _HeadRefused(414, "uri_too_long", f"the request target exceeds {MAX_URL_BYTES} bytes")
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value)
        if self._head_bytes > MAX_HEAD_BYTES:
            raise _HeadRefused(431, "headers_too_large", f"the request head exceeds {MAX_HEAD_BYTES} bytes")
        if len(self.headers) >= MAX_HEADERS:
            raise _HeadRefused(431, "headers_too_large", f"a request may carry at most {MAX_HEADERS} headers")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._cancel_head_timer()
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this while handling any httptools.HttpParserError; a refusal raised by
        # the callbacks above arrives wrapped in httptools.HttpParserCallbackError.
        cause = sys.exc_info()[1]
        while cause is not None and not isinstance(cause, _HeadRefused):
            cause = cause.__context__ or cause.__cause__
        if cause is not None:
            self._send_error(*cause.refusal)
        else:
            self._send_error(400, "bad_request", "malformed HTTP request")

    def _send_error(self, status: int, code: str, message: str) -> None:
        self._cancel_head_timer()
        self.transport.write(_raw_response(status, code, message))
        self.transport.close()


class BodyRules:
    """What the connection layer asks of the route table before a body is read.

    ``cap(method, path)`` is the body cap of the operation a request reaches (``default_cap``
    where none is declared or no route matches); ``refusal(method, path, headers)`` (blocking:
    it may look a key or a session up; ``headers`` as in the ASGI scope) says why the caller
    may not send more than ``default_cap`` (401/403 as the app would answer) or None when it may."""

    def __init__(self, default_cap: int, cap: Callable[[str, str], int] | None = None,
                 refusal: Callable[[str, str, list[tuple[bytes, bytes]]], tuple[int, str, str] | None]
                 | None = None):
        self.default_cap = default_cap
        self._cap = cap
        self._refusal = refusal

    def cap(self, method: str, path: str) -> int:
        return self._cap(method, path) if self._cap is not None else self.default_cap

    async def refusal(self, method: str, path: str, headers: list[tuple[bytes, bytes]]
                      ) -> tuple[int, str, str] | None:
        if self._refusal is None:
            return None
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._refusal, method, path, headers)


class CompleteRequests:
    """ASGI middleware: the inner app (the WSGI bridge) sees only requests whose body is complete."""

    def __init__(self, app: Any, *, rules: BodyRules, body_timeout: float, max_pending_per_address: int,
                 spool_dir: Path | None = None):
        self.app = app
        self.spool_dir = spool_dir
        if spool_dir is not None:
            spool_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.rules = rules
        self.body_timeout = body_timeout
        self.max_pending_per_address = max_pending_per_address
        self.pending: Counter[str] = Counter()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        length: int | None = None
        chunked = False
        for name, value in headers:
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    await _respond(send, 400, "bad_request", "Content-Length is not a number")
                    return
            elif name == b"transfer-encoding":
                chunked = True
        if not chunked and not length:  # no body: nothing to wait for
            await self.app({**scope, BODY_SCOPE_KEY: io.BytesIO(b"")}, receive, send)
            return
        cap = self.rules.cap(scope["method"], scope["path"])
        if length is not None and length > cap:
            await _respond(send, 413, "payload_too_large", f"the body exceeds {cap} bytes")
            return
        if cap > self.rules.default_cap and (chunked or (length or 0) > self.rules.default_cap):
            # Only a caller the route would accept may make this server spool more than the
            # default cap: asked before a byte of the body is read.
            refusal = await self.rules.refusal(scope["method"], scope["path"], headers)
            if refusal is not None and not chunked:
                await _respond(send, *refusal)
                return
            if refusal is not None:  # chunked: no more than the default, then 413
                cap = self.rules.default_cap
        address = (scope.get("client") or ("-", 0))[0]
        if self.pending[address] >= self.max_pending_per_address:
            await _respond(send, 429, "rate_limited",
                           f"too many requests from this address are still sending their body "
                           f"(at most {self.max_pending_per_address})")
            return
        self.pending[address] += 1
        try:
            body = await self._read_body(receive, send, cap)
        finally:
            self.pending[address] -= 1
            if self.pending[address] <= 0:
                del self.pending[address]
        if body is None:
            return
        with body:
            size = body.seek(0, os.SEEK_END)
            body.seek(0)
            headers = [(n, v) for n, v in headers if n not in (b"content-length", b"transfer-encoding")]
            headers.append((b"content-length", str(size).encode()))
            replayed = False

            async def replay() -> dict:
                nonlocal replayed
                if replayed:
                    return await receive()
                chunk = body.read(REPLAY_CHUNK)
                more = body.tell() < size
                replayed = not more
                return {"type": "http.request", "body": chunk, "more_body": more}

            # The body file in the scope for the WSGI bridge (no copy, no hop per chunk), and
            # as ASGI messages for any other app.
            await self.app({**scope, "headers": headers, BODY_SCOPE_KEY: body}, replay, send)

    def _spool(self) -> IO[bytes]:
        return tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, dir=self.spool_dir)

    async def _read_body(self, receive: Any, send: Any, cap: int) -> IO[bytes] | None:
        """The whole body (a file positioned anywhere), or None once the client is gone or has
        been answered with an error."""
        body = self._spool()
        size = 0
        started = time.monotonic()
        try:
            while True:
                left = started + self.body_timeout + size / MIN_BODY_RATE - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                message = await asyncio.wait_for(receive(), left)
                if message["type"] == "http.disconnect":
                    body.close()
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > cap:
                    body.close()
                    await _respond(send, 413, "payload_too_large", f"the body exceeds {cap} bytes")
                    return None
                try:
                    body.write(chunk)
                except OSError as exc:
                    if exc.errno not in NO_ROOM:
                        raise
                    body.close()
                    await _respond(send, 507, "insufficient_storage",
                                   "the server has no room on its disk to receive this body")
                    return None
                if not message.get("more_body", False):
                    return body
        except TimeoutError:
            body.close()
            await _respond(send, 408, "request_timeout",
                           f"the request body did not arrive within {self.body_timeout:g} s")
            return None
        except BaseException:
            body.close()
            raise


async def _respond(send: Any, status: int, code: str, message: str) -> None:
    """Answer with a CONTRACT error and close the connection (its unread bytes are not ours to parse)."""
    headers, body = _json_error(status, code, message)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
