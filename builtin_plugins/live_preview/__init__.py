"""Live preview (spec 4.9, 1.1): a view-only JPEG stream of the canvas over a WebSocket.

- ``GET /v1/display/live-preview`` (``navigation.control``): ``{configured, enabled, fps,
  width, quality}``; ``configured`` is true when a canvas runs (window or offscreen).
- ``POST /v1/display/live-preview/session`` (``navigation.control``): ``{ticket,
  expires_at_ms}``; the ticket is single use and lives :data:`TICKET_LIFETIME_MS` (30 s).
  503 ``live_preview_unavailable`` when preview is disabled or no canvas runs.
- WebSocket ``/v1/display/live-preview/ws?ticket=...``: needs ``Authorization: Bearer``
  (or, from a browser, the subprotocol ``bearer.<key>``, echoed on accept) (a key holding
  ``navigation.control``; the same client that took the ticket) and an
  unused, unexpired ticket; a request with an ``Origin`` header must name an allowed
  origin. Each message is binary: a 4-byte big-endian length, then one JPEG. Capture
  runs while at least one viewer is connected.

The display's own origins (``scheme://host:port`` of how the socket reached it, when the
host names this machine on its port) are always allowed. Other origins: the check is
``host.services[ORIGIN_ALLOWED](origin) -> bool`` when a plugin
(the CORS origin store) publishes one; otherwise the origins of
``SVC_DISPLAY_HTTP_CORS_ORIGINS`` are allowed.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
import socket
import struct
import threading
from typing import Any
from urllib.parse import urlparse

from marshmallow import fields

from hookspecs import Feature, Operation, Route, Setting, WebSocketRoute, hookimpl
from svc_host.kit.rest import ApiError
from hookspecs.permissions import NAVIGATION_CONTROL, declare
from svc_host.kit.network import local_ipv4_addresses
from hookspecs.services import CAPTURE_REQUEST, DISPLAY_CAPTURE, LIVE_PREVIEW_TICKETS, ORIGIN_ALLOWED, CaptureRequest
from hookspecs.records import record

log = logging.getLogger("builtin_plugins.live_preview")

TICKET_LIFETIME_MS = 30_000
MAX_OUTSTANDING_TICKETS = 256
QUEUE_FRAMES = 2


StatusResponse = record("StatusResponse", configured=fields.Boolean, enabled=fields.Boolean, fps=fields.Integer,
                        width=fields.Integer, quality=fields.Integer)


SessionResponse = record("SessionResponse", ticket=fields.String, expires_at_ms=fields.Integer)


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode("utf-8")).hexdigest()


class TicketBook:
    """Single-use tickets, stored by SHA-256 digest, bound to the client that took them."""

    def __init__(self, clock: Any):
        self.clock = clock
        self._tickets: dict[str, tuple[str, int]] = {}
        self._lock = threading.Lock()

    def issue(self, identifier: str) -> tuple[str, int]:
        ticket = secrets.token_urlsafe(32)
        expires = self.clock.now_ms() + TICKET_LIFETIME_MS
        with self._lock:
            now = self.clock.now_ms()
            for key in [k for k, (_who, exp) in self._tickets.items() if exp <= now]:
                del self._tickets[key]
            while len(self._tickets) >= MAX_OUTSTANDING_TICKETS:
                del self._tickets[min(self._tickets, key=lambda k: self._tickets[k][1])]
            self._tickets[_digest(ticket)] = (identifier, expires)
        return ticket, expires

    def redeem(self, ticket: str, identifier: str) -> bool:
        """True once for a valid ticket of ``identifier``; the ticket is spent either way."""
        if not ticket or len(ticket) > 200:
            return False
        with self._lock:
            entry = self._tickets.pop(_digest(ticket), None)
        if entry is None:
            return False
        owner, expires = entry
        return hmac.compare_digest(owner.encode(), identifier.encode()) and self.clock.now_ms() < expires


def normalise_origin(origin: str) -> str | None:
    parsed = urlparse(origin.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return None
    return f"{parsed.scheme}://{parsed.netloc.lower()}"


def own_origins(host: Any, req: Any) -> set[str]:
    """The display's own origins as this request reached it: ``scheme://host:port`` of its
    ``Host`` header, when that names this machine (localhost, its hostname, one of its
    addresses) and the port it serves on. A page the display serves, or a client such as
    ``websocket-client``, sends exactly this origin. Names of other machines are not
    taken from ``Host``: a rebound DNS name must still be a stored origin."""
    reached = (req.get_header("Host") or "").strip().lower()
    parsed = urlparse("//" + reached)
    try:
        port = parsed.port or (443 if req.scheme in ("https", "wss") else 80)
    except ValueError:
        return set()
    names = {"localhost", "127.0.0.1", "[::1]", socket.gethostname().lower(), *local_ipv4_addresses()}
    if not parsed.hostname or port != host.settings.http_port:
        return set()
    if parsed.hostname not in names and f"[{parsed.hostname}]" not in names:
        return set()
    scheme = "https" if req.scheme in ("https", "wss") else "http"
    return {f"{scheme}://{parsed.netloc}"}


def origin_allowed(host: Any, origin: str | None, req: Any = None) -> bool:
    """No Origin header (a non-browser client): allowed; the display's own origins (of how
    ``req`` reached it): allowed. Otherwise ask the origin store."""
    if origin is None:
        return True
    if req is not None and normalise_origin(origin) in own_origins(host, req):
        return True
    checker = host.services.get(ORIGIN_ALLOWED)
    if checker is not None:
        try:
            return bool(checker(origin))
        except Exception:
            log.exception("live preview: origin check failed; refusing")
            return False
    return normalise_origin(origin) in set(host.settings.http_cors_origins)


def _available(host: Any) -> bool:
    return host.settings.plugin_values("live_preview").live_preview_enabled and host.display_bus is not None


class StatusResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        s = self.host.settings.plugin_values("live_preview")
        resp.media = {"configured": self.host.display_bus is not None, "enabled": s.live_preview_enabled,
                      "fps": s.live_preview_fps, "width": s.live_preview_width, "quality": s.live_preview_quality}


class SessionResource:
    def __init__(self, host: Any, book: TicketBook):
        self.host = host
        self.book = book

    def on_post(self, req: Any, resp: Any) -> None:
        if not _available(self.host):
            raise ApiError(503, "live_preview_unavailable",
                           "live preview is disabled or the display has no canvas")
        ticket, expires = self.book.issue(req.context.principal.identifier)
        resp.media = {"ticket": ticket, "expires_at_ms": expires}


SUBPROTOCOL_PREFIX = "bearer."


def bearer_token(req: Any) -> str | None:
    """``Authorization: Bearer <key>``, or, for browsers (which cannot set headers on a
    WebSocket), the subprotocol ``bearer.<key>`` in ``Sec-WebSocket-Protocol``."""
    header = req.get_header("Authorization")
    if header:
        scheme, _, token = header.partition(" ")
        token = token.strip()
        return token if scheme.lower() == "bearer" and token and len(token) <= 512 else None
    for item in (req.get_header("Sec-WebSocket-Protocol") or "").split(","):
        item = item.strip()
        if item.startswith(SUBPROTOCOL_PREFIX) and 0 < len(item) - len(SUBPROTOCOL_PREFIX) <= 512:
            return item[len(SUBPROTOCOL_PREFIX):]
    return None


class PreviewSocket:
    """``falcon.asgi`` WebSocket resource streaming length-prefixed JPEG frames."""

    def __init__(self, host: Any, book: TicketBook):
        self.host = host
        self.book = book

    def _authorise(self, req: Any) -> str | None:
        """None when allowed, else the reason (logged, never sent)."""
        if not _available(self.host) or self.host.services.get(DISPLAY_CAPTURE) is None:
            return "live preview unavailable"
        if not origin_allowed(self.host, req.get_header("Origin"), req):
            return "origin not allowed"
        token = bearer_token(req)
        if not token:
            return "missing bearer key"
        principal = self.host.authenticate(token)
        if principal is None:
            return "invalid bearer key"
        if not principal.has(NAVIGATION_CONTROL):
            return "key lacks navigation.control"
        if not self.book.redeem(req.get_param("ticket") or "", principal.identifier):
            return "invalid, expired or used ticket"
        return None

    async def on_websocket(self, req: Any, ws: Any) -> None:
        loop = asyncio.get_running_loop()
        reason = await loop.run_in_executor(None, self._authorise, req)
        if reason is not None:
            log.info("live preview: refused a viewer: %s", reason)
            await ws.close(code=4403)
            return
        offered = [p for p in (ws.subprotocols or ()) if p.startswith(SUBPROTOCOL_PREFIX)]
        await ws.accept(subprotocol=offered[0] if offered and not req.get_header("Authorization") else None)
        frames: asyncio.Queue[bytes] = asyncio.Queue(maxsize=QUEUE_FRAMES)

        def deliver(jpeg: bytes) -> None:  # encoder thread
            def put() -> None:
                if frames.full():
                    frames.get_nowait()
                frames.put_nowait(jpeg)

            loop.call_soon_threadsafe(put)

        capture = self.host.services[DISPLAY_CAPTURE]
        handle = capture.add_viewer(deliver)
        log.info("live preview: viewer connected (%d watching)", capture.viewer_count)

        async def drain_client() -> None:
            while True:
                await ws.receive_data()  # view-only: input is read and ignored

        reader = asyncio.ensure_future(drain_client())
        try:
            while not reader.done():
                getter = asyncio.ensure_future(frames.get())
                done, _pending = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                jpeg = getter.result()
                await ws.send_data(struct.pack(">I", len(jpeg)) + jpeg)
        except Exception:  # disconnects end the stream
            pass
        finally:
            reader.cancel()
            capture.remove_viewer(handle)
            log.info("live preview: viewer left (%d watching)", capture.viewer_count)
            try:
                await ws.close()
            except Exception:
                pass




_TICKET_IN_TEXT = re.compile(r"(ticket=)[^&\s\"']+")


class RedactTickets(logging.Filter):
    """Tickets are credentials: uvicorn logs WebSocket paths with their query; hide them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, str) and "ticket=" in a for a in record.args):
            record.args = tuple(_TICKET_IN_TEXT.sub(r"\1<redacted>", a) if isinstance(a, str) else a
                                for a in record.args)
        if isinstance(record.msg, str) and "ticket=" in record.msg:
            record.msg = _TICKET_IN_TEXT.sub(r"\1<redacted>", record.msg)
        return True


def _book(host: Any) -> TicketBook:
    book = host.services.get(LIVE_PREVIEW_TICKETS)
    if book is None:
        book = host.services[LIVE_PREVIEW_TICKETS] = TicketBook(host.clock)
    return book


@hookimpl
def startup(host: Any) -> None:
    """Ask the canvas for frames (the display runtime makes the capture once a canvas runs)."""
    values = host.settings.plugin_values("live_preview")
    if values.live_preview_enabled:
        host.services[CAPTURE_REQUEST] = CaptureRequest(values.live_preview_width, values.live_preview_fps,
                                                        values.live_preview_quality)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    book = _book(host)
    return [
        Route("/v1/display/live-preview", StatusResource(host), {
            "GET": Operation(NAVIGATION_CONTROL, "live-preview configuration", response=StatusResponse,
                             tags=["display"]),
        }, db_session=False),
        Route("/v1/display/live-preview/session", SessionResource(host, book), {
            "POST": Operation(NAVIGATION_CONTROL, "a single-use ticket for the live-preview WebSocket",
                              response=SessionResponse, tags=["display"]),
        }, db_session=False),
    ]


@hookimpl
def register_websocket_routes(host: Any) -> list[WebSocketRoute]:
    if not host.settings.plugin_values("live_preview").live_preview_enabled:
        return []
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTickets) for f in logger.filters):
            logger.addFilter(RedactTickets())
    return [WebSocketRoute("/v1/display/live-preview/ws", PreviewSocket(host, _book(host)))]


FEATURE = Feature(
    permissions=declare(NAVIGATION_CONTROL),
    settings=[
        Setting("SVC_DISPLAY_LIVE_PREVIEW_ENABLED", bool, True, "1: the live-preview WebSocket is offered"),
        Setting("SVC_DISPLAY_LIVE_PREVIEW_FPS", int, 10, "live-preview frames per second", low=1, high=60),
        Setting("SVC_DISPLAY_LIVE_PREVIEW_WIDTH", int, 720, "live-preview frame width in pixels", low=64, high=3840),
        Setting("SVC_DISPLAY_LIVE_PREVIEW_QUALITY", int, 50, "live-preview JPEG quality", low=1, high=100),
    ],
)
