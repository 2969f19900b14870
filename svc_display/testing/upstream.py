"""A small upstream HTTP server on 127.0.0.1 for collector tests (the ``svc_display_upstream``
fixture starts one per test and stops it after)::

    server = Upstream().start()
    server.json("/v1/forecast", {...})            # canned answers by path
    server.reply("/feed.xml", body, "application/rss+xml", headers={"ETag": '"v1"'})
    server.handle("/x", lambda request: Reply(200, {...}, b"..."))
    server.fault("status500")                     # every path answers with a fault
    server.requests                               # what the collector sent
    server.stop()

Every method (GET, POST, HEAD, PUT and WebDAV's PROPFIND) is answered by the routes.

Faults (:data:`FAULTS`): ``status500``, ``timeout`` (answers after ``slow_seconds``),
``malformed`` (a body no parser accepts), ``oversized`` (``oversized_bytes`` without a
Content-Length), ``redirect_loop`` (302 to itself), ``trickle`` (a declared body of
``trickle_bytes`` sent one byte every ``trickle_interval`` seconds).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from svc_display.testing.waiting import wait_for  # noqa: F401  (importable from here too)

FAULTS = ("status500", "timeout", "malformed", "oversized", "redirect_loop")
SLOW_FAULTS = ("trickle",)  # tested on their own: each costs the client's whole deadline


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    content_length: bool = True
    byte_interval: float = 0.0  # > 0: the body is sent one byte at a time, this many seconds apart


class Upstream:
    def __init__(self) -> None:
        self.routes: dict[str, Callable[[Request], Reply]] = {}
        self.requests: list[Request] = []
        self.fault_kind: str | None = None
        self.slow_seconds = 3.0
        self.oversized_bytes = 256 * 1024
        self.trickle_bytes = 400
        self.trickle_interval = 0.1
        self.trickled = 0  # body bytes the trickle fault got out before the client hung up
        self._server: ThreadingHTTPServer | None = None
        self._stop = threading.Event()

    # ---- configuration ----------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def handle(self, path: str, handler: Callable[[Request], Reply]) -> None:
        self.routes[path] = handler

    def reply(
        self,
        path: str,
        body: bytes | str,
        content_type: str = "application/octet-stream",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        all_headers = {"Content-Type": content_type, **(headers or {})}
        self.routes[path] = lambda _request: Reply(status, dict(all_headers), data)

    def json(self, path: str, payload: Any, status: int = 200) -> None:
        self.reply(path, json.dumps(payload), "application/json", status)

    def fault(self, kind: str | None) -> None:
        assert kind is None or kind in FAULTS + SLOW_FAULTS, kind
        self.fault_kind = kind

    def requests_to(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]

    # ---- serving ----------------------------------------------------------------------
    def _answer(self, request: Request) -> Reply:
        kind = self.fault_kind
        if kind == "status500":
            return Reply(500, {"Content-Type": "text/plain"}, b"upstream exploded")
        if kind == "timeout":
            self._stop.wait(self.slow_seconds)
            return Reply(200, {"Content-Type": "application/json"}, b"{}")
        if kind == "malformed":
            return Reply(200, {"Content-Type": "application/json"}, b"\x00\xff<<{not json, not xml [[")
        if kind == "oversized":
            return Reply(
                200, {"Content-Type": "application/json"}, b" " * self.oversized_bytes, content_length=False
            )
        if kind == "trickle":
            return Reply(200, {"Content-Type": "application/json"}, b" " * (self.trickle_bytes - 2) + b"{}",
                         byte_interval=self.trickle_interval)
        if kind == "redirect_loop":
            return Reply(302, {"Location": request.path}, b"")
        handler = self.routes.get(request.path)
        if handler is None:
            return Reply(404, {"Content-Type": "text/plain"}, b"no such path")
        return handler(request)

    def start(self) -> "Upstream":
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Request(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k: v for k, v in self.headers.items()},
                    body,
                )
                upstream.requests.append(request)
                reply = upstream._answer(request)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if reply.content_length:
                        self.send_header("Content-Length", str(len(reply.body)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    if self.command != "HEAD" and reply.byte_interval > 0:
                        for index in range(len(reply.body)):
                            self.wfile.write(reply.body[index:index + 1])
                            self.wfile.flush()
                            upstream.trickled += 1
                            if upstream._stop.wait(reply.byte_interval):
                                return
                    elif self.command != "HEAD":
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

            do_GET = do_POST = do_HEAD = do_PUT = do_PROPFIND = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="upstream", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

