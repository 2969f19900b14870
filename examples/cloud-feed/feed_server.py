#!/usr/bin/env python3
"""A small reference cloud feed server (standard library only): serves a script of events as
server-sent events at ``GET /v1/displays/<display id>/feed``.

    python3 examples/cloud-feed/feed_server.py --script examples/cloud-feed/sample.jsonl \
        --port 8765 --display-id lobby --api-key secret

The script is JSON Lines, one entry per line, re-read while a client is connected (append
lines to push more events). Entries:

- ``{"event": "upsert", "data": {...}}``: one event; its id is its line number (1-based);
- ``{"event": "upsert", "raw": "not json"}``: ``data`` sent as written (to test bad input);
- ``{"drop": true}``: the first time a connection reaches this line, the server closes it
  (a dropped stream; later connections pass it).

``Last-Event-ID`` is honoured: a reconnecting client gets only the entries after that id.
``GET /requests`` answers the log of feed requests (path, Last-Event-ID, authorized) as JSON.
With ``--api-key`` the Bearer key must match (compared in constant time), else 401.
"""

from __future__ import annotations

import argparse
import hmac
import json
import mimetypes
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


class FeedState:
    def __init__(self, script: Path, display_id: str, api_key: str | None, heartbeat_s: float,
                 media_dir: Path | None = None):
        self.script = script
        self.media_dir = media_dir
        self.display_id = display_id
        self.api_key = api_key
        self.heartbeat_s = heartbeat_s
        self.dropped: set[int] = set()
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def entries(self) -> list[tuple[int, dict]]:
        out = []
        try:
            lines = self.script.read_text(encoding="utf-8").splitlines()
        except OSError:
            return out
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    out.append((number, json.loads(line)))
                except ValueError:
                    pass  # a line being appended right now; it is read again on the next pass
        return out


def make_handler(state: FeedState) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args) -> None:  # quiet; the request log is /requests
            pass

        def _json(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorized(self) -> bool:
            given = self.headers.get("Authorization", "")
            return state.api_key is None or hmac.compare_digest(given.encode(), f"Bearer {state.api_key}".encode())

        def _blob(self, key: str) -> None:
            """A file of --media-dir named by a feed item's blob key (the display fetches it)."""
            root = state.media_dir.resolve() if state.media_dir else None
            path = (root / unquote(key)).resolve() if root else None
            with state.lock:
                state.requests.append({"path": self.path, "authorized": self._authorized()})
            if not self._authorized():
                return self._json(401, {"code": "unauthorized", "message": "bad key"})
            if path is None or root not in path.parents or not path.is_file():
                return self._json(404, {"code": "not_found", "message": "no such blob"})
            data = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", mimetypes.guess_type(path.name)[0] or "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            if self.path == "/requests":
                with state.lock:
                    return self._json(200, list(state.requests))
            blobs = f"/v1/displays/{state.display_id}/blobs/"
            if self.path.startswith(blobs):
                return self._blob(self.path[len(blobs):])
            if self.path != f"/v1/displays/{state.display_id}/feed":
                return self._json(404, {"code": "not_found", "message": "no such feed"})
            authorized = self._authorized()
            last = self.headers.get("Last-Event-ID")
            with state.lock:
                state.requests.append({"path": self.path, "last_event_id": last, "authorized": authorized,
                                       "accept": self.headers.get("Accept")})
            if not authorized:
                return self._json(401, {"code": "unauthorized", "message": "bad key"})
            try:
                after = int(last) if last else 0
            except ValueError:
                after = 0
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self._stream(after)

        def _stream(self, after: int) -> None:
            quiet_since = time.monotonic()
            try:
                while True:
                    for number, entry in state.entries():
                        if number <= after:
                            continue
                        after = number
                        if entry.get("drop"):
                            with state.lock:
                                first = number not in state.dropped
                                state.dropped.add(number)
                            if first:
                                return  # the connection closes mid-stream
                            continue
                        data = entry["raw"] if "raw" in entry else json.dumps(entry.get("data"))
                        frame = f"id: {number}\nevent: {entry.get('event', 'message')}\n"
                        frame += "".join(f"data: {line}\n" for line in str(data).split("\n")) + "\n"
                        self.wfile.write(frame.encode())
                        self.wfile.flush()
                        quiet_since = time.monotonic()
                    if time.monotonic() - quiet_since >= state.heartbeat_s:
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                        quiet_since = time.monotonic()
                    time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", type=Path, required=True, help="JSON Lines file of events")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port (printed)")
    parser.add_argument("--display-id", default="demo")
    parser.add_argument("--api-key", default=None, help="required Bearer key (default: none)")
    parser.add_argument("--heartbeat", type=float, default=15.0, help="seconds between keep-alive comments")
    parser.add_argument("--media-dir", type=Path, help="files served at /v1/displays/ID/blobs/KEY (KEY: a path in it)")
    args = parser.parse_args(argv)
    state = FeedState(args.script, args.display_id, args.api_key, args.heartbeat, args.media_dir)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(state))
    server.daemon_threads = True
    print(f"feed server on http://{args.host}:{server.server_address[1]}"
          f"/v1/displays/{args.display_id}/feed", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
