"""Serving: uvicorn (TLS, HTTP/1.1, WebSocket) or waitress (plain HTTP behind a proxy).

::

    uvicorn
      └─ ASGI dispatcher
           ├─ websocket scope → small falcon.asgi.App (routes from register_websocket_routes)
           └─ http scope      → a2wsgi.WSGIMiddleware → falcon.App (every REST route)
"""
from __future__ import annotations

import logging
import signal
import threading
from typing import Any

import falcon
import falcon.asgi
from a2wsgi import WSGIMiddleware

from svc_host.tls import ensure_certificate, first_non_loopback_ipv4

log = logging.getLogger(__name__)

WSGI_WORKERS = 16


class Dispatcher:
    """Routes ASGI scopes: WebSockets to the small ASGI app, HTTP to the WSGI app."""

    def __init__(self, wsgi_app: Any, websocket_app: Any):
        self.http = WSGIMiddleware(wsgi_app, workers=WSGI_WORKERS)
        self.websocket = websocket_app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self.http(scope, receive, send)
        elif scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return


def create_websocket_app(host: Any) -> falcon.asgi.App:
    app = falcon.asgi.App()
    for _plugin, route in host.websocket_routes:
        app.add_route(route.path, route.resource)
    return app


def serve(host: Any, wsgi_app: Any) -> None:
    """Serve until SIGTERM/SIGINT; in-flight requests finish, then the host closes."""
    settings = host.settings
    scheme = "https" if settings.http_tls else "http"
    adoption_ip = first_non_loopback_ipv4()
    host.services["adoption_base_url"] = f"{scheme}://{adoption_ip or '127.0.0.1'}:{settings.http_port}"
    try:
        if settings.http_server == "waitress":
            _serve_waitress(host, wsgi_app)
        else:
            _serve_uvicorn(host, wsgi_app)
    finally:
        host.close()
        log.info("stopped")


def _serve_uvicorn(host: Any, wsgi_app: Any) -> None:
    import uvicorn

    settings = host.settings
    ssl: dict[str, str] = {}
    if settings.http_tls:
        cert, key = ensure_certificate(settings)
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
    config = uvicorn.Config(
        Dispatcher(wsgi_app, create_websocket_app(host)),
        host=settings.http_bind_ip,
        port=settings.http_port,
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=30,
        ws_max_size=1024 * 1024,
        **ssl,
    )
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal with the handler
    # that was installed before it ran: make that handler a clean exit so the host closes.
    if threading.current_thread() is threading.main_thread():  # else the display runtime owns signals
        signal.signal(signal.SIGTERM, _exit_cleanly)
        signal.signal(signal.SIGINT, _exit_cleanly)
    log.info("serving %s://%s:%d (uvicorn)", "https" if ssl else "http", settings.http_bind_ip, settings.http_port)
    server = uvicorn.Server(config)
    # The display runtime runs this on a background thread and stops it through this hook.
    host.services["http_server_stop"] = lambda: setattr(server, "should_exit", True)
    server.run()


def _exit_cleanly(signum: int, _frame: Any) -> None:
    raise SystemExit(0)


def _serve_waitress(host: Any, wsgi_app: Any) -> None:
    import threading

    import waitress
    from waitress import wasyncore
    from waitress.channel import HTTPChannel

    settings = host.settings
    if settings.http_tls:
        log.warning("waitress serves plain HTTP only: put a TLS-terminating proxy in front of it")
    server = waitress.create_server(wsgi_app, host=settings.http_bind_ip, port=settings.http_port, threads=8,
                                    clear_untrusted_proxy_headers=True)
    stopping = threading.Event()

    def stop(signum: int, _frame: Any) -> None:
        log.info("signal %d: stopping after in-flight requests", signum)
        stopping.set()

    host.services["http_server_stop"] = stopping.set
    if threading.current_thread() is threading.main_thread():  # else the display runtime owns signals
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
    log.info("serving http://%s:%d (waitress)", settings.http_bind_ip, settings.http_port)
    # waitress's own run() has no graceful stop: drive its loop, stop accepting on the
    # signal, and leave once no channel is mid-request.
    listening = True
    while True:
        if stopping.is_set():
            if listening:
                server.del_channel()
                server.socket.close()
                listening = False
            if not any(isinstance(c, HTTPChannel) and (c.requests or c.total_outbufs_len)
                       for c in list(server._map.values())):
                break
        wasyncore.loop(timeout=0.2, map=server._map, use_poll=True, count=1)
    server.task_dispatcher.shutdown()
