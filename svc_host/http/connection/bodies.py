"""Only complete requests reach the WSGI workers: the body read whole, within its deadline and
its route's cap, spooled to disk past :data:`SPOOL_IN_MEMORY` (:class:`CompleteRequests`)."""
from __future__ import annotations

import asyncio
import errno
import io
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any, Callable

from svc_host.http.bridge import BODY_SCOPE_KEY
from svc_host.http.connection.answers import respond

SPOOL_IN_MEMORY = 1024 * 1024  # bodies up to this size stay in memory; larger ones go to disk
# A full disk, a full quota, or a file-size limit while a body is spooled: 507, like a restore
# that has no room (CONTRACT), never a 500.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
MIN_BODY_RATE = 256 * 1024  # bytes per second a body must average beyond its first body_timeout
REPLAY_CHUNK = 64 * 1024


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
                    await respond(send, 400, "bad_request", "Content-Length is not a number")
                    return
            elif name == b"transfer-encoding":
                chunked = True
        if not chunked and not length:  # no body: nothing to wait for
            await self.app({**scope, BODY_SCOPE_KEY: io.BytesIO(b"")}, receive, send)
            return
        cap = self.rules.cap(scope["method"], scope["path"])
        if length is not None and length > cap:
            await respond(send, 413, "payload_too_large", f"the body exceeds {cap} bytes")
            return
        if cap > self.rules.default_cap and (chunked or (length or 0) > self.rules.default_cap):
            # Only a caller the route would accept may make this server spool more than the
            # default cap: asked before a byte of the body is read.
            refusal = await self.rules.refusal(scope["method"], scope["path"], headers)
            if refusal is not None and not chunked:
                await respond(send, *refusal)
                return
            if refusal is not None:  # chunked: no more than the default, then 413
                cap = self.rules.default_cap
        address = (scope.get("client") or ("-", 0))[0]
        if self.pending[address] >= self.max_pending_per_address:
            await respond(send, 429, "rate_limited",
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
                    await respond(send, 413, "payload_too_large", f"the body exceeds {cap} bytes")
                    return None
                try:
                    body.write(chunk)
                except OSError as exc:
                    if exc.errno not in NO_ROOM:
                        raise
                    body.close()
                    await respond(send, 507, "insufficient_storage",
                                   "the server has no room on its disk to receive this body")
                    return None
                if not message.get("more_body", False):
                    return body
        except TimeoutError:
            body.close()
            await respond(send, 408, "request_timeout",
                           f"the request body did not arrive within {self.body_timeout:g} s")
            return None
        except BaseException:
            body.close()
            raise


