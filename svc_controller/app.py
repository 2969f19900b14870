"""The controller process: storage, gate, backups, scheduler, and its ASGI app.

Built on the display's host kit: the Falcon app factory (``svc_host.http.app``: error
shape, body validation, OpenAPI), the TLS certificate helper and the uvicorn runner.

::

    uvicorn (TLS) → TlsGate / GuardedHttpToolsProtocol (the display's connection layer,
      │              svc_host/http/connection/: connections counted, heads bounded)
      └─ ControllerDispatcher
           ├─ /bff/v1/proxy/* (HTTP, WebSocket) → ProxyApp (ASGI, streaming, per-display budget)
           ├─ /bff/v1/fleet/events              → EventsApp (ASGI, server-sent events)
           ├─ pull-now, restore, fleet/actions,
           │  fleet/plays                       → CompleteRequests → WsgiBridge (4 threads)  ─┐
           └─ everything else (HTTP)            → CompleteRequests → WsgiBridge (16 threads) ─┴→
                falcon.App: /bff/v1 routes, then the web app's static files at /

Bodies are read whole on the event loop, with a deadline, before a worker thread sees the
request (a slow client costs a socket, never a worker); routes that wait on a display run on
their own threads, so a hung display never holds the workers of the other routes.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import falcon
from pony import orm

from svc_controller.auth import COOKIE_NAME, CSRF_HEADER, Gate
from svc_controller.backups import Backups, Scheduler
from svc_controller.config import ControllerSettings
from svc_controller.fleet import EventsApp, Fleet, Poller
from svc_controller.proxy import PREFIX as PROXY_PREFIX
from svc_controller.proxy import ProxyApp
from svc_controller.releases import Releases
from svc_controller.routes import routes
from svc_controller.storage import open_database
from svc_controller.targets import TargetPolicy
from svc_host.clock import Clock
from svc_host.http.app import create_app
from svc_host.http.errors import ApiError
from svc_host.server import Operations, body_rules, complete_requests
from svc_host.storage import private_dir

log = logging.getLogger("svc_controller")

# Routes that wait on a display (a pull's job and download, a restore's upload): served on
# threads of their own, so displays that never answer hold these and nothing else.
DISPLAY_BOUND_ROUTES = ("/bff/v1/backup-targets/{id}/pull-now", "/bff/v1/backup-snapshots/{id}/restore",
                        "/bff/v1/fleet/actions", "/bff/v1/fleet/plays")
DISPLAY_BOUND_WORKERS = 4
# The controller web app (docs/webapp.md): static files shipped as package data; `/` serves them.
WEB_DIR = Path(__file__).resolve().parent / "web"
OPENAPI_INFO = {
    "title": "svc-controller",
    "description": "The controller BFF: proxy to displays, backup targets and snapshots, releases.",
    "security_scheme": ("sessionCookie", {"type": "apiKey", "in": "cookie", "name": COOKIE_NAME}),
}


@dataclass
class Controller:
    """What the host kit's app factory needs (``routes``, ``middleware``) plus the services."""

    settings: ControllerSettings
    db: orm.Database
    clock: Clock
    gate: Gate
    backups: Backups
    fleet: Fleet
    releases: Releases
    policy: TargetPolicy
    schema_version: int
    started_at: float = field(default_factory=time.monotonic)
    routes: list = field(default_factory=list)  # the factory's plugin routes: none, all are core routes
    middleware: list = field(default_factory=list)
    operations: dict = field(default_factory=dict)
    openapi: dict | None = None
    scheduler: Scheduler | None = None
    poller: Poller | None = None

    def authenticate(self, token: str) -> None:  # the factory's Bearer default; the controller has none
        return None

    def principal_of(self, req: falcon.Request) -> Any:
        return self.gate.principal_for_cookie(req.cookies.get(COOKIE_NAME))

    def close(self) -> None:
        if self.poller is not None:
            self.poller.stop()
        if self.scheduler is not None:
            self.scheduler.stop()
        self.db.disconnect()
        if self.db.provider is not None:
            self.db.provider.disconnect()


class CsrfMiddleware:
    """With auth on, a state-changing request needs ``X-Requested-With: svc-controller``."""

    def __init__(self, gate: Gate):
        self.gate = gate

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource: Any, params: dict) -> None:
        if resource is not None and not self.gate.csrf_ok(req.method, req.get_header(CSRF_HEADER)):
            raise ApiError(403, "csrf_required", "state-changing requests need X-Requested-With: svc-controller")


def build_controller(settings: ControllerSettings) -> Controller:
    private_dir(settings.data_dir)
    clock = Clock(settings.test_clock_file)
    db, applied = open_database(settings, clock.now_ms())
    policy = TargetPolicy(settings.proxy_allowed_hosts)
    gate = Gate(settings, db, clock)
    backups = Backups(settings, db, clock, policy)
    ctl = Controller(settings=settings, db=db, clock=clock, gate=gate, policy=policy, backups=backups,
                     fleet=Fleet(db, clock, policy, backups.secrets),
                     releases=Releases(settings.releases_url, clock.now_ms), schema_version=applied)
    ctl.middleware = [("svc_controller", CsrfMiddleware(gate))]
    return ctl


def create_wsgi_app(ctl: Controller) -> falcon.App:
    app = create_app(ctl, core_routes=routes(ctl), principal_of=ctl.principal_of,
                     unauthorized_message="sign in first (POST /bff/v1/auth/login)", openapi_info=OPENAPI_INFO)
    _document_proxy(ctl.openapi)
    _document_events(ctl.openapi)
    if (WEB_DIR / "index.html").is_file():
        # Sinks run before static routes: unknown /bff paths stay JSON 404s, never the app's page.
        app.add_sink(_no_such_route, r"/bff(/|$)")
        app.add_static_route("/", str(WEB_DIR), fallback_filename="index.html")
    return app


def _document_proxy(doc: dict) -> None:
    """The proxy is served on the ASGI side, outside the Falcon app: describe it by hand."""
    error = {"description": "error in the CONTRACT shape", "content": {"application/json": {"schema": {
        "$ref": "#/components/schemas/Error"}}}}
    header = {"in": "header", "name": "X-Svc-Display-Url", "required": False,
              "schema": {"type": "string", "format": "uri"},
              "description": "the display's base URL (a WebSocket upgrade may use the query parameter "
                             "svc_display_url instead); this or X-Svc-Display-Id"}
    by_id = {"in": "header", "name": "X-Svc-Display-Id", "required": False, "schema": {"type": "string"},
             "description": "a registered display's id (GET /bff/v1/displays): its stored baseUrl is used and "
                            "its stored key sent as Authorization (WebSocket: query parameter svc_display_id)"}
    path = {"in": "path", "name": "path", "required": True, "schema": {"type": "string"},
            "description": "the display's path, e.g. v1/screens"}
    responses = {"default": {"description": "the display's answer, streamed"},
                 "400": {**error, "description": "validation_failed (no or a malformed URL, or both headers)"},
                 "403": {**error, "description": "proxy_target_forbidden or csrf_required"},
                 "404": {**error, "description": "not_found (X-Svc-Display-Id names no registered display)"},
                 "409": {**error, "description": "display_key_missing (registered without a key)"},
                 "502": {**error, "description": "upstream_unreachable"},
                 "504": {**error, "description": "upstream_timeout"}}
    doc["paths"]["/bff/v1/proxy/{path}"] = {
        method: {"summary": "forward to the display (bodies streamed, Authorization passed through)",
                 "operationId": f"{method}_bff_v1_proxy", "tags": ["controller"], "parameters": [path, header, by_id],
                 "responses": responses, "security": [{"sessionCookie": []}]}
        for method in ("get", "post", "put", "patch", "delete")
    }


def _document_events(doc: dict) -> None:
    """The fleet's event stream is served on the ASGI side too (svc_controller/fleet.py)."""
    doc["paths"][EventsApp.PATH] = {"get": {
        "summary": "server-sent events: one `status` event per display on connect, then one per status change "
                   "(data: the display item)",
        "operationId": "get_bff_v1_fleet_events", "tags": ["controller"], "security": [{"sessionCookie": []}],
        "responses": {"200": {"description": "the stream", "content": {"text/event-stream": {"schema": {
            "type": "string"}}}},
                      "401": {"description": "unauthorized", "content": {"application/json": {"schema": {
                          "$ref": "#/components/schemas/Error"}}}}}}}


def _no_such_route(req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
    raise ApiError(404, "not_found", "no such resource")


def _signed_in(ctl: Controller, headers: list[tuple[str, str]]) -> None:
    if ctl.gate.principal_for_headers(headers) is None:
        raise ApiError(401, "unauthorized", "sign in first (POST /bff/v1/auth/login)")


class ControllerDispatcher:
    def __init__(self, ctl: Controller):
        self.proxy = ProxyApp(ctl.settings, ctl.gate, ctl.policy, ctl.fleet)
        self.events = EventsApp(ctl.fleet, lambda headers: _signed_in(ctl, headers))
        app = create_wsgi_app(ctl)
        rules = body_rules(ctl, principal_of_headers=lambda headers: ctl.gate.principal_for_headers(
            [(n.decode("latin-1"), v.decode("latin-1")) for n, v in headers]),
            unauthorized_message="sign in first (POST /bff/v1/auth/login)")
        self.http = complete_requests(app, ctl.settings, rules)
        self.display_bound = complete_requests(app, ctl.settings, rules, workers=DISPLAY_BOUND_WORKERS)
        self.display_routes = Operations({key: op for key, op in ctl.operations.items()
                                          if key[0] in DISPLAY_BOUND_ROUTES})

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        kind = scope["type"]
        path = scope.get("path", "")
        proxied = path == PROXY_PREFIX or path.startswith(PROXY_PREFIX + "/")
        if kind == "http":
            if proxied:
                await self.proxy(scope, receive, send)
            elif path == EventsApp.PATH:
                await self.events(scope, receive, send)
            elif self.display_routes.find(scope["method"], path) is not None:
                await self.display_bound(scope, receive, send)
            else:
                await self.http(scope, receive, send)
        elif kind == "websocket":
            if proxied:
                await self.proxy(scope, receive, send)
            else:
                await receive()
                await send({"type": "websocket.close", "code": 4404})
        elif kind == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self.proxy.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
