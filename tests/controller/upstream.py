"""A loopback HTTP server that the proxy tests start, to watch what the proxy sends and when.

- ``GET /v1/echo``: 200 JSON ``{method, path, headers}`` of what arrived, with hop-by-hop
  headers of its own (``Connection: X-Resp-Drop``, ``X-Resp-Drop``, ``Keep-Alive``).
- ``GET /v1/stream``: a chunked answer whose first chunk is sent at once and the rest only
  after ``release_stream`` is set (so a buffering proxy would never show the first chunk).
- ``POST /v1/upload``: reads a chunked request body; sets ``first_chunk_seen`` as soon as
  :data:`FIRST_CHUNK` bytes have arrived, answers ``{bytes}`` at the end.
- ``GET /v1/hang``: never answers (until the server stops).
- ``GET /v1/trickle``: a chunked answer of :data:`TRICKLE_BYTES` bytes, one a second (a
  display that answers, but too slowly to be worth waiting for).
- ``POST /v1/display/backup/jobs``: counts itself in ``jobs_created``, sets ``job_waiting``
  and holds the answer until ``release_jobs`` is set, then answers 503 (a pull that stays
  busy for as long as the test wants). With ``Upstream(trickle_backups=True)``, a display
  whose backups trickle: the job is created (202) and ready at once, its download trickles
  like ``/v1/trickle``, and ``POST /v1/display/backup/restore`` reads the archive and
  trickles its answer.
"""
from __future__ import annotations

import json
import socket
import socketserver
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

FIRST_CHUNK = 64 * 1024
TRICKLE_BYTES = 60
JOB = "/v1/display/backup/jobs/trickle"
DOWNLOAD = JOB + "/download"


class _Served:
    """A threading server on a free loopback port (``url``), serving from a thread inside ``with``."""

    def _serve(self, server_class: type[socketserver.ThreadingMixIn], handler: type) -> None:
        self.server = server_class(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Upstream(_Served):
    def __init__(self, trickle_backups: bool = False) -> None:
        self.trickle_backups = trickle_backups
        self.release_stream = threading.Event()
        self.first_chunk_seen = threading.Event()
        self.stopping = threading.Event()
        self.job_waiting = threading.Event()
        self.release_jobs = threading.Event()
        self.jobs_created = 0
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

            def _json(self, status: int, body: dict, extra: dict | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/v1/echo"):
                    self._json(200, {"method": "GET", "path": self.path,
                                     "headers": {k.lower(): v for k, v in self.headers.items()}},
                               {"Connection": "X-Resp-Drop", "X-Resp-Drop": "1", "Keep-Alive": "timeout=5",
                                "X-Kept": "yes"})
                elif self.path == "/v1/stream":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self._chunk(b"first-" + b"x" * 1000)
                    # a proxy that buffers never shows the first chunk: the test then never
                    # releases the rest, and the answer ends with "-late" instead of "-rest"
                    self._chunk(b"-rest" if upstream.release_stream.wait(20) else b"-late")
                    self.wfile.write(b"0\r\n\r\n")
                elif self.path == "/v1/hang":
                    upstream.stopping.wait(120)
                elif self.path == "/v1/trickle" or (upstream.trickle_backups and self.path == DOWNLOAD):
                    self._trickle()
                elif upstream.trickle_backups and self.path == JOB:
                    self._json(200, {"job_id": "trickle", "status": "ready"})
                else:
                    self._json(404, {"code": "not_found", "message": "no such resource"})

            def do_DELETE(self) -> None:  # noqa: N802
                self.send_response(204)
                self.end_headers()

            def _trickle(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for _ in range(TRICKLE_BYTES):
                    self._chunk(b"t")
                    if upstream.stopping.wait(1):
                        return
                self.wfile.write(b"0\r\n\r\n")

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def do_POST(self) -> None:  # noqa: N802
                if upstream.trickle_backups and self.path.startswith("/v1/display/backup/jobs"):
                    self._json(202, {"job_id": "trickle", "status": "pending"})
                    return
                if upstream.trickle_backups and self.path.startswith("/v1/display/backup/restore"):
                    self.rfile.read(int(self.headers.get("Content-Length") or 0))
                    self._trickle()
                    return
                if self.path.startswith("/v1/display/backup/jobs"):
                    upstream.jobs_created += 1
                    upstream.job_waiting.set()
                    upstream.release_jobs.wait(60)
                    self._json(503, {"code": "busy", "message": "held by the test"})
                    return
                total = 0
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        total += len(self.rfile.read(size))
                        self.rfile.readline()
                        if total >= FIRST_CHUNK:
                            upstream.first_chunk_seen.set()
                else:
                    total = len(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self._json(200, {"bytes": total, "chunked": "Transfer-Encoding" in self.headers})

        self._serve(ThreadingHTTPServer, Handler)

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.release_stream.set()
        super().__exit__(*exc)


class RestartingUpstream(_Served):
    """A raw HTTP/1.1 display whose process can "restart" under the proxy's pooled connections.

    Every request is answered 200 ``{"n": ...}`` on a kept-alive connection and counted in
    ``seen`` as ``"METHOD /path"``. After :meth:`restart`, a connection opened before it still
    looks open (no FIN: the old process's socket, or the display closing it just as a request
    leaves), but its next request is read and dropped with a reset, uncounted: what a reused
    connection to a display that restarted meets. ``POST /v1/write-then-die`` is counted, then
    reset unanswered (a display that may have done the write).
    """

    def __init__(self) -> None:
        self.generation = 0
        self.seen: list[str] = []
        upstream = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                born = upstream.generation
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    method, path, _ = line.decode("latin-1").split(" ", 2)
                    length = 0
                    while (header := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                        name, _, value = header.decode("latin-1").partition(":")
                        if name.strip().lower() == "content-length":
                            length = int(value)
                    self.rfile.read(length)
                    if born != upstream.generation:
                        return self._reset()
                    upstream.seen.append(f"{method} {path}")
                    if path == "/v1/write-then-die":
                        return self._reset()
                    body = json.dumps({"n": len(upstream.seen)}).encode()
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

            def _reset(self) -> None:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

        self._serve(socketserver.ThreadingTCPServer, Handler)

    def restart(self) -> None:
        self.generation += 1
