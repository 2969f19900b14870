"""A blocking WebSocket client for tests that is safe over TLS.

websockets' own blocking client (``websockets.sync.client.connect``) reads its socket in a
background thread while the caller's thread writes to it. Over TLS both land on one
``ssl.SSLSocket``, and one OpenSSL connection object is not safe for a read and a write at the
same time from two threads. When the server's TLS 1.3 session tickets arrive while the client is
writing its upgrade request, that request can be lost: the server then waits for a request head
that never comes and answers 408 at its head deadline. Measured against the display's connection
layer on a loaded 2-core machine: 4-6 of 3,000 ``wss://`` connections failed that way (no byte
reached the server's HTTP protocol, nothing waited in its TLS buffers), none of 3,000 with
websockets' asyncio client, which does all of a connection's I/O on one event loop.

So :func:`connect` runs websockets' asyncio client on a private event-loop thread and offers the
blocking calls the tests use (``send``, ``recv(timeout=...)``, ``close``, a ``with`` block, and
the connection's attributes such as ``subprotocol`` and ``response``). It takes
``websockets.asyncio.client.connect``'s arguments and raises its exceptions (``InvalidStatus``
for a refused upgrade, ``OSError`` for a refused socket). Written here because websockets has no
blocking client that keeps I/O on one thread.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any

from websockets.asyncio.client import connect as _connect

__all__ = ["WebSocket", "connect"]

CALL_TIMEOUT = 60.0
"""Seconds a send, a close or an open may take before :class:`TimeoutError` (a test never hangs
on a peer that stopped reading; an open is bounded by ``open_timeout`` first)."""


class WebSocket:
    """One open WebSocket connection, used from blocking code."""

    def __init__(self, uri: str, **kwargs: Any):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="websocket-client", daemon=True)
        self._thread.start()
        try:
            self._connection = self._run(self._open(uri, kwargs), CALL_TIMEOUT)
        except BaseException:
            self._stop()
            raise

    @staticmethod
    async def _open(uri: str, kwargs: dict[str, Any]) -> Any:
        return await _connect(uri, **kwargs)

    def _run(self, coroutine: Any, timeout: float | None) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def _stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self._loop.close()

    def send(self, message: str | bytes) -> None:
        self._run(self._connection.send(message), CALL_TIMEOUT)

    def recv(self, timeout: float | None = None) -> str | bytes:
        """The next message; ``TimeoutError`` when none came within ``timeout`` seconds."""
        return self._run(asyncio.wait_for(self._connection.recv(), timeout), None)

    def close(self) -> None:
        """The closing handshake, then the loop thread ends (a second call does nothing)."""
        if self._loop.is_closed() or not self._thread.is_alive():
            return
        try:
            self._run(self._connection.close(), CALL_TIMEOUT)
        finally:
            self._stop()

    def __enter__(self) -> "WebSocket":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:  # subprotocol, response, request, ...
        if name.startswith("_"):  # not the connection's (and none yet while opening)
            raise AttributeError(name)
        return getattr(self._connection, name)


def connect(uri: str, **kwargs: Any) -> WebSocket:
    """Open a WebSocket (``ws://`` or ``wss://``); the arguments of
    ``websockets.asyncio.client.connect`` (``ssl``, ``open_timeout``, ``additional_headers``,
    ``subprotocols``, ``origin``, ``max_size`` ...)."""
    return WebSocket(uri, **kwargs)
