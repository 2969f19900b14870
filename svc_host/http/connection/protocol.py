"""uvicorn's httptools protocol with a head deadline, head size and count limits and JSON errors
(:class:`GuardedHttpToolsProtocol`), writing through a :class:`CorkedTransport`."""
from __future__ import annotations

import asyncio
import functools
import ssl
import sys
from typing import Any, Callable

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from svc_host.http.connection.answers import raw_response
from svc_host.http.connection.limits import ConnectionLimits, TlsGate, peer_address, Slot

MAX_HEAD_BYTES = 16 * 1024  # request line + header names and values, per request
# Bytes a head may take on the wire before it is refused even though no header line has ended
# yet (httptools holds an unfinished line whole, and on_header sees it only at its end): the
# limit above plus one read of the transport (asyncio and uvloop read at most 256 KiB).
MAX_HEAD_WIRE_BYTES = MAX_HEAD_BYTES + 256 * 1024
MAX_HEADERS = 100
MAX_URL_BYTES = 8 * 1024


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
        self.slot: Slot | None = None
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
            address = peer_address(transport)
            refusal = self.limits.admit(address)
            if refusal is not None:
                # Answered before its head arrives: a refused client must not hold the socket
                # for the head deadline (the count is what bounds that).
                transport.write(raw_response(*refusal))
                transport.close()
                return
            self.slot = Slot(self.limits, address)
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
        self.transport.write(raw_response(status, code, message))
        self.transport.close()


