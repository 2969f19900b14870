"""A real loopback web server for the ``plugin_web`` tests, and a look at running browsers.

:class:`ColourPage` serves ``/page``: an HTML page whose body is one solid colour
(``colour``, changeable while it runs), ``/hang``: a request answered only when the
server closes, and 404 for anything else.
"""
from __future__ import annotations

import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class ColourPage:
    def __init__(self, colour: tuple[int, int, int]):
        self.colour = colour
        self.served = 0
        self._release = threading.Event()
        page = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/hang":
                    page._release.wait(120)
                    self.send_error(503)
                    return
                if self.path != "/page":
                    self.send_error(404)
                    return
                r, g, b = page.colour
                body = (f"<!doctype html><html><head><style>html, body {{ margin: 0; height: 100%; "
                        f"background: rgb({r}, {g}, {b}); }}</style></head><body></body></html>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
                page.served += 1

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="colour-page", daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/page"

    def start(self) -> "ColourPage":
        self.thread.start()
        return self

    def close(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A loopback port nobody listens on (bound and released just now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def live_processes(marker: str = "", group: int | None = None) -> list[int]:
    """Pids of running (not zombie) processes whose command line contains ``marker`` and,
    with ``group``, that belong to that process group."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state, _ppid, pgrp = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if marker in cmdline and state != "Z" and (group is None or int(pgrp) == group):
            found.append(int(entry.name))
    return found
