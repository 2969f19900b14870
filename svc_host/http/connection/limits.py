"""Connections counted per client address and in all from accept to close (:class:`ConnectionLimits`),
and the gate in front of a TLS connection's handshake (:class:`TlsGate`)."""
from __future__ import annotations

import asyncio
import asyncio.sslproto
import logging
import ssl
from collections import Counter
from typing import Any, Callable

log = logging.getLogger("svc_host.http")


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


class Slot:
    """One admitted connection's place in :class:`ConnectionLimits`, given back once."""

    def __init__(self, limits: ConnectionLimits, address: str):
        self.limits = limits
        self.address = address
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.limits.release(self.address)


def peer_address(transport: Any) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "-"


def _counted(base: type) -> type:
    class CountedTls(base):  # type: ignore[misc, valid-type]
        """The loop's TLS protocol, giving the connection's place back when the socket closes
        (handshake failed or timed out included, when the HTTP protocol never hears of it), and
        letting go of an HTTP protocol that never got the connection (see
        :meth:`GuardedHttpToolsProtocol.discard`)."""

        slot: "Slot | None" = None
        http: Any = None  # its GuardedHttpToolsProtocol (protocol.py imports this module: no loop back)

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
        self.slot: Slot | None = None  # None: refused at accept (nothing to give back)
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        address = peer_address(transport)
        if self.limits.admit(address) is not None:
            transport.abort()  # no TLS yet: nothing can be said to this client
            return
        self.transport = transport
        self.slot = Slot(self.limits, address)
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


