"""A fake display on a loopback address: a small real HTTP server answering the three routes the
fleet poller reads, in a real display's shapes (CONTRACT "Display power", "What the screen
shows", ``GET /v1/health``), and misbehaving on demand. The fleet tests and
``benchmarks/fleet.py`` run many of them in one process.

``POST /v1/alerts`` keeps the alert in ``alerts`` (201). Backup jobs: ``POST <prefix>/v1/display/backup/jobs`` is counted per ``<prefix>`` (a base URL
path, so one fake serves many backup targets) in ``jobs``, held for ``job_hold_s`` while
``jobs_in_flight`` (and its peak, ``jobs_peak``) counts it, then refused with 503.

``mode``: ``ok``; ``hang`` (reads the request, never answers until stopped); ``garbage`` (200
with bytes that are not JSON); ``deep`` (200 with JSON nested 100,000 deep); ``huge`` (200 declaring 5 GB and sending until the client hangs
up); ``trickle`` (a valid answer, one byte a second); ``close`` (closes the connection without a
word). ``stop()`` and ``start()`` take the
display down and back on the same address and port.
"""
from __future__ import annotations

import email.utils
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from hookspecs import CLOCK_HEADER

FIVE_GB = 5 * 1024 ** 3


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # hung handlers never hold server_close
    allow_reuse_address = True
    request_queue_size = 64


class Gauge:
    """Requests in flight across several fakes (``with gauge:`` around one), and their peak."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self._guard = threading.Lock()

    def __enter__(self) -> "Gauge":
        with self._guard:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._guard:
            self.in_flight -= 1


class FakeDisplay:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, version: str = "1.4.0", key: str | None = None):
        self.host = host
        self.port = port
        self.version = version
        self.key = key
        self.mode = "ok"
        self.power_state = "on"
        self.power_reason = "default"
        # None: the display has no /v1/display/screen (an older release): 404
        self.screen: dict | None = {"state": "showing", "current": {"screen_id": "welcome", "screen_type": "text",
                                                                    "since_ms": 0}, "skipped": [], "failing": []}
        self.clock_offset_s = 0.0
        self.sends_clock_ms = False  # X-Svc-Clock-Ms on /v1/health, as this release's display sends it
        self.date_skew_s = 0.0  # the Date header's own error, beyond clock_offset_s
        self.requests = 0
        self.jobs: dict[str, int] = {}
        self.alerts: list[dict] = []
        self.jobs_in_flight = 0
        self.jobs_peak = 0
        self.job_hold_s = 0.0
        # GET /v1/telemetry/plays: None answers 404 (an older release); a list answers one page of
        # them, held ``plays_hold_s`` while ``gauge`` (shared by several fakes) counts it
        self.plays: list[dict] | None = None
        self.plays_hold_s = 0.0
        self.gauge: Gauge | None = None
        self._jobs_guard = threading.Lock()
        self._release = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> Self:
        self._release = threading.Event()
        self._server = _Server((self.host, self.port), self._handler())
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.5},
                                        name=f"fake-display-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- answers ----------------------------------------------------------------------------
    def health(self) -> dict:
        return {"status": "ok", "app": "svc-display", "version": self.version, "schema_version": 12,
                "uptime_seconds": 3600, "display_power": self.power_state}

    def power(self) -> dict:
        return {"state": self.power_state, "reason": self.power_reason, "backend": "none",
                "backend_available": False, "panel_state": "unknown", "next_change_at_ms": None, "schedule": [],
                "override": None}

    def _handler(self) -> type:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def date_time_string(self, timestamp: float | None = None) -> str:
                return email.utils.formatdate(time.time() + fake.clock_offset_s + fake.date_skew_s, usegmt=True)

            def _send(self, status: int, body: bytes, content_type: str = "application/json",
                      length: int | None = None, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                fake.requests += 1
                self.close_connection = True
                mode = fake.mode
                try:
                    if mode == "hang":
                        fake._release.wait()
                        return
                    if mode == "close":
                        return
                    if mode == "garbage":
                        return self._send(200, b"\x00\xff<html>not json{{", "text/html")
                    if mode == "deep":  # JSON nested deeper than Python's parser goes (RecursionError)
                        return self._send(200, b"[" * 100_000 + b"]" * 100_000)
                    if mode == "trickle":  # a valid answer, one byte a second (a read timeout never fires)
                        body = json.dumps(fake.health()).encode()
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        for index in range(len(body)):
                            if fake._release.wait(1):
                                return
                            self.wfile.write(body[index:index + 1])
                            self.wfile.flush()
                        return
                    if mode == "huge":
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(FIVE_GB))
                        self.end_headers()
                        chunk = b"[" * 65536
                        for _ in range(FIVE_GB // len(chunk)):
                            if fake._release.is_set():
                                return
                            self.wfile.write(chunk)
                        return
                    path = self.path.split("?", 1)[0]
                    if path == "/v1/telemetry/plays" and fake.plays is not None:
                        with fake.gauge or Gauge():
                            fake._release.wait(fake.plays_hold_s)
                        return self._send(200, json.dumps({"items": fake.plays, "next_cursor": None}).encode())
                    if path == "/v1/health":
                        clock = ({CLOCK_HEADER: str(int((time.time() + fake.clock_offset_s) * 1000))}
                                 if fake.sends_clock_ms else None)
                        return self._send(200, json.dumps(fake.health()).encode(), headers=clock)
                    if path in ("/v1/display/power", "/v1/display/screen"):
                        if fake.key is not None and self.headers.get("Authorization") != f"Bearer {fake.key}":
                            return self._send(401, json.dumps({"code": "unauthorized",
                                                               "message": "a valid key is required"}).encode())
                        if path == "/v1/display/power":
                            return self._send(200, json.dumps(fake.power()).encode())
                        if fake.screen is not None:
                            return self._send(200, json.dumps(fake.screen).encode())
                    self._send(404, json.dumps({"code": "not_found", "message": "no such resource"}).encode())
                except OSError:
                    pass

            def _misbehaves(self) -> bool:
                """A hung display hangs on writes too; a closing one closes."""
                self.close_connection = True
                if fake.mode == "hang":
                    fake._release.wait()
                return fake.mode in ("hang", "close")

            def do_PUT(self) -> None:  # noqa: N802
                if self._misbehaves():
                    return
                self._send(404, b'{"code":"not_found","message":"no such resource"}')

            do_PATCH = do_DELETE = do_PUT

            def do_POST(self) -> None:  # noqa: N802
                if self._misbehaves():
                    return
                path = self.path.split("?", 1)[0]
                if path == "/v1/alerts":  # a bulk action's alert: kept in ``alerts``
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                    fake.alerts.append(body)
                    return self._send(201, json.dumps({"id": len(fake.alerts), **body}).encode())
                if not path.endswith("/v1/display/backup/jobs"):
                    return self._send(404, b'{"code":"not_found","message":"no such resource"}')
                prefix = path[: -len("/v1/display/backup/jobs")]
                with fake._jobs_guard:
                    fake.jobs[prefix] = fake.jobs.get(prefix, 0) + 1
                    fake.jobs_in_flight += 1
                    fake.jobs_peak = max(fake.jobs_peak, fake.jobs_in_flight)
                try:
                    fake._release.wait(fake.job_hold_s)
                finally:
                    # counted out before the answer, as ``Gauge`` does: the controller may start its
                    # next pull the moment it has the answer, before this thread runs again (a
                    # loaded CI run counted 3 in flight against a bound of 2)
                    with fake._jobs_guard:
                        fake.jobs_in_flight -= 1
                try:
                    self._send(503, b'{"code":"busy","message":"the display is busy"}')
                except OSError:
                    pass

        return Handler
