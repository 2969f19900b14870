"""The Falcon WSGI app under uvicorn: one thread hop per request instead of one per message.

:class:`CompleteRequests` (connection.py) hands over only requests whose body has arrived
whole (in memory or spooled to disk), so a worker thread never waits for the network: the
worker runs the WSGI app with that body as ``wsgi.input``, collects the response, and the
event loop sends it. A response larger than :data:`BUFFERED_RESPONSE` (a backup archive, a
media file) is pulled from the app's iterable in batches of that size, one hop per batch,
and sent as it comes (uvicorn's ``send`` waits while the client is slow to read), so no
large body is held in memory and no worker is held while a client reads.

Why not a2wsgi (the bridge before): it hops to the event loop and blocks the worker for
``start_response`` and for every body chunk (``run_coroutine_threadsafe(...).result()``),
and hops back to the loop for every read of ``wsgi.input``: three or more round trips per
request, about a third of the busy samples of the whole server at 16 connections
(docs/performance.md). The environ is built by a2wsgi's ``build_environ`` all the same.
"""
from __future__ import annotations

import asyncio
import io
import json
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

from a2wsgi.wsgi import build_environ

from svc_host.http.errors import error_body

log = logging.getLogger("svc_host.http")

BUFFERED_RESPONSE = 1024 * 1024  # a response up to this size goes out in one send
BODY_SCOPE_KEY = "svc_host.body"  # CompleteRequests puts the complete body (a file, at 0) here


class _Started:
    """What the app passed to ``start_response``, and what it wrote through ``write``."""

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.written: list[bytes] = []

    def start_response(self, status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        self.status = int(status.split(" ", 1)[0])
        self.headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        return self.written.append  # WSGI's write(): rare, its bytes go before the iterable's


class WsgiBridge:
    """ASGI app running a WSGI app on ``workers`` threads (see the module docstring)."""

    def __init__(self, app: Any, workers: int):
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wsgi")

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        body = scope.get(BODY_SCOPE_KEY)
        if body is None:
            body = io.BytesIO(await _read_all(receive))
        environ = build_environ(scope, body)  # type: ignore[arg-type]
        environ["wsgi.errors"] = sys.stderr
        loop = asyncio.get_running_loop()
        started = _Started()
        try:
            chunks, rest = await loop.run_in_executor(self.executor, self._respond, environ, started)
        except Exception:  # the app raised past Falcon's own handlers: nothing was sent yet
            log.exception("internal error in the WSGI app (%s %s)", scope.get("method"), scope.get("path"))
            await _send_whole(send, 500, [(b"content-type", b"application/json")],
                              [json.dumps(error_body("internal_error", "internal error")).encode()])
            return
        if rest is None:
            await _send_whole(send, started.status, started.headers, chunks)
            return
        gone = loop.create_task(_disconnected(receive))  # a client that leaves stops the pulling
        try:
            await send({"type": "http.response.start", "status": started.status, "headers": started.headers})
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
            while not gone.done():
                batch = await loop.run_in_executor(self.executor, _batch, rest)
                if not batch:
                    break
                await send({"type": "http.response.body", "body": batch, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            gone.cancel()
            await loop.run_in_executor(self.executor, _close, rest)

    def _respond(self, environ: dict, started: _Started) -> tuple[list[bytes], Iterator[bytes] | None]:
        """On a worker: the app's response, whole, or its first BUFFERED_RESPONSE bytes and
        the iterator of the rest (still open)."""
        iterable = self.app(environ, started.start_response)
        chunks = started.written
        size = sum(len(chunk) for chunk in chunks)
        iterator = iter(iterable)
        try:
            for chunk in iterator:
                if chunk:
                    chunks.append(chunk)
                    size += len(chunk)
                if size > BUFFERED_RESPONSE:
                    return chunks, _Rest(iterator, iterable)
        except BaseException:
            _close(_Rest(iterator, iterable))
            raise
        _close(_Rest(iterator, iterable))
        return chunks, None

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


class _Rest:
    """The unsent rest of a large response: its iterator and the iterable to close."""

    def __init__(self, iterator: Iterator[bytes], iterable: Any):
        self.iterator = iterator
        self.iterable = iterable

    def __iter__(self) -> Iterator[bytes]:
        return self.iterator


def _batch(rest: _Rest) -> bytes:
    """On a worker: the next BUFFERED_RESPONSE bytes or so of a large response (b"" at its end)."""
    parts: list[bytes] = []
    size = 0
    for chunk in rest.iterator:
        parts.append(chunk)
        size += len(chunk)
        if size >= BUFFERED_RESPONSE:
            break
    return b"".join(parts)


def _close(rest: _Rest) -> None:
    close = getattr(rest.iterable, "close", None)
    if close is not None:
        close()


async def _send_whole(send: Any, status: int, headers: list[tuple[bytes, bytes]],
                      chunks: list[bytes]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"".join(chunks)})


async def _disconnected(receive: Any) -> None:
    """Returns once the client has gone (the request's body was read before: only the
    disconnect is left to receive)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _read_all(receive: Any) -> bytes:
    """A body not handed over by CompleteRequests (no Content-Length, or a test's own ASGI
    client): read on the event loop, as it is already there."""
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)
