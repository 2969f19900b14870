"""Serving: uvicorn (TLS, HTTP/1.1, WebSocket) or waitress (plain HTTP behind a proxy).

::

    uvicorn
      └─ TlsGate (HTTPS) / GuardedHttpToolsProtocol: connections counted per address, heads bounded
           └─ ASGI dispatcher
                ├─ websocket scope → small falcon.asgi.App (routes from register_websocket_routes)
                └─ http scope      → CompleteRequests (whole body, with a deadline, on the event loop;
                                      the route's own body cap, a key before more than the default)
                                      → WsgiBridge (16 worker threads) → falcon.App (every REST route)

The WSGI worker threads are fed only complete requests (svc_host/http/connection/).
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import resource
import signal
import socket
import ssl as ssl_module
import tempfile
import threading
from pathlib import Path
from typing import Any, MutableMapping

import falcon
import falcon.asgi
from falcon.routing import CompiledRouter

from hookspecs.services import ADOPTION_BASE_URL, HTTP_SERVER_STOP, LISTENING, Listening
from svc_host.http.bridge import WsgiBridge
from svc_host.http.connection.bodies import BodyRules, CompleteRequests
from svc_host.http.connection.limits import ConnectionLimits
from svc_host.http.connection.protocol import GuardedHttpToolsProtocol
from svc_host.live_state import remove_state_file, write_state_file
from svc_host.tls import certificate_fingerprint, ensure_certificate, first_non_loopback_ipv4, listening_urls
from svc_host.watchdog import watchdog

log = logging.getLogger(__name__)

WSGI_WORKERS = 16
# TLS 1.2 offers only forward-secret AEAD suites (TLS 1.3's are all AEAD); no CBC. Python's
# server contexts refuse anything older than TLS 1.2 by default.
TLS12_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL:!eNULL"
# File descriptors kept free of connections for the database, media, the spool and logs.
RESERVED_FDS = 256


class Operations:
    """The host's operations found by request path the way Falcon routes them (its own
    router over the same templates): the connection layer's view of the route table."""

    def __init__(self, operations: dict[tuple[str, str], Any]):
        self.router = CompiledRouter()
        by_path: dict[str, dict[str, Any]] = {}
        for (path, method), operation in operations.items():
            by_path.setdefault(path, {})[method] = operation
        for path, methods in by_path.items():
            self.router.add_route(path, _Methods(methods))

    def find(self, method: str, path: str) -> Any:
        if len(path) > 1:
            path = path.rstrip("/")  # the app strips a trailing slash too (strip_url_path_trailing_slash)
        found = self.router.find(path)
        return found[0].operations.get(method) if found else None


class _Methods:
    def __init__(self, operations: dict[str, Any]):
        self.operations = operations


def body_rules(host: Any, principal_of_headers: Any = None, unauthorized_message: str | None = None) -> BodyRules:
    """Each operation's own body cap (the default elsewhere), and bodies past the default cap
    only from a caller the operation would accept (svc_host/http/connection/bodies.py).

    The caller is the ``Authorization: Bearer`` key's principal (the display), or what
    ``principal_of_headers(headers)`` (ASGI scope headers) says (the controller's session)."""
    from svc_host.http.app import BEARER_REQUIRED, DEFAULT_MAX_BODY, bearer_principal, permission_refusal

    operations = Operations(getattr(host, "operations", {}))

    def cap(method: str, path: str) -> int:
        operation = operations.find(method, path)
        return (operation.max_body or DEFAULT_MAX_BODY) if operation is not None else DEFAULT_MAX_BODY

    def principal(headers: list[tuple[bytes, bytes]]) -> Any:
        if principal_of_headers is not None:
            return principal_of_headers(headers)
        authorization = next((v for n, v in headers if n == b"authorization"), None)
        return bearer_principal(host, authorization.decode("latin-1") if authorization is not None else None)

    def refusal(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, str, str] | None:
        operation = operations.find(method, path)
        if operation is None:
            return None
        refused = permission_refusal(operation, principal(headers), unauthorized_message or BEARER_REQUIRED)
        return (refused.status, refused.code, refused.message) if refused is not None else None

    return BodyRules(DEFAULT_MAX_BODY, cap, refusal)


def complete_requests(wsgi_app: Any, settings: Any, rules: BodyRules, workers: int = WSGI_WORKERS
                      ) -> CompleteRequests:
    """``wsgi_app`` on ``workers`` threads, fed only complete requests (bodies read on the event
    loop with the deadline and per-address bound of ``settings.http_*``; spooled to
    ``<data dir>/spool``): the display's and the controller's HTTP side."""
    return CompleteRequests(WsgiBridge(wsgi_app, workers=workers), rules=rules,
                            body_timeout=settings.http_body_timeout_seconds,
                            max_pending_per_address=settings.http_max_pending_bodies_per_address,
                            spool_dir=settings.data_dir / "spool")


def connection_limits(settings: Any) -> ConnectionLimits:
    return ConnectionLimits(settings.http_max_connections_per_address, settings.http_max_connections)


class Dispatcher:
    """Routes ASGI scopes: WebSockets to the small ASGI app, HTTP to the WSGI app."""

    def __init__(self, wsgi_app: Any, websocket_app: Any, settings: Any, rules: BodyRules):
        self.http = complete_requests(wsgi_app, settings, rules)
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


PORT_FILE = "http-port"  # <data dir>/http-port: the port a server asked for port 0 listens on


def serve(host: Any, wsgi_app: Any) -> None:
    """Serve until SIGTERM/SIGINT; in-flight requests finish, then the host closes.

    ``SVC_DISPLAY_HTTP_PORT=0``: the OS chooses the port at the bind; the host then uses that
    port wherever it says its own (``host.settings.http_port``: the adoption URL, the sidecars'
    URL of the display, the live preview's origin check), the "listening on" line names it and
    ``<data dir>/http-port`` holds it from the bind until the server stops (how the test kit
    finds its server)."""
    sock = None
    if host.settings.http_port == 0:
        sock = listen_on_any_port(host.settings.http_bind_ip, host.settings.data_dir)
        host.settings = dataclasses.replace(host.settings, http_port=sock.getsockname()[1])
    settings = host.settings
    scheme = "https" if settings.http_tls else "http"
    adoption_ip = first_non_loopback_ipv4()
    host.services[ADOPTION_BASE_URL] = f"{scheme}://{adoption_ip or '127.0.0.1'}:{settings.http_port}"
    try:
        if settings.http_server == "waitress":
            _serve_waitress(host, wsgi_app, sock)
        else:
            _serve_uvicorn(host, wsgi_app, sock)
    finally:
        watchdog().stop()
        host.close()
        remove_state_file(settings.data_dir)
        forget_port(settings.data_dir, sock, settings.http_port)
        log.info("stopped")


def listening_socket(bind: str) -> socket.socket:
    """A socket listening on ``bind`` on a port the OS chooses (for ``run_uvicorn(sock=...)``).

    It listens at once: on Linux a socket that is only bound leaves its port open to another
    program's ``SO_REUSEADDR`` bind (uvicorn's, a test's guessed port) until it listens, and
    both would then hold the port (a CI run's server whose health requests went elsewhere)."""
    family = socket.getaddrinfo(bind, 0, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind, 0))
        sock.listen(2048)  # uvicorn's backlog; it listens again with its own
    except BaseException:
        sock.close()
        raise
    return sock


def listen_on_any_port(bind: str, data_dir: Path) -> socket.socket:
    """:func:`listening_socket`, its port named in ``<data dir>/http-port`` (the display's and
    the controller's port 0; :func:`forget_port` removes the file at the stop)."""
    sock = listening_socket(bind)
    try:
        _write_port_file(data_dir, sock.getsockname()[1])  # listening: clients wait for health
    except BaseException:
        sock.close()
        raise
    return sock


def forget_port(data_dir: Path, sock: socket.socket | None, port: int) -> None:
    """The stop of a server that :func:`listen_on_any_port` started: its port file goes."""
    if sock is not None:
        _remove_port_file(data_dir, port)


def _write_port_file(data_dir: Path, port: int) -> None:
    """``<data dir>/http-port`` holds ``port`` (replaced whole: a reader never sees half of it)."""
    fd, tmp = tempfile.mkstemp(prefix=".http-port-", dir=data_dir)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(f"{port}\n")
        os.replace(tmp, Path(data_dir) / PORT_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove_port_file(data_dir: Path, port: int) -> None:
    path = Path(data_dir) / PORT_FILE
    try:
        if path.read_text().strip() == str(port):  # (not another server's of the same data dir)
            path.unlink()
    except OSError:
        pass


def _serving(host: Any, server_probe: Any = None) -> None:
    """The server accepts connections now: publish the entry points' states for
    ``svc-display plugins list`` (another process; ``folder_plugins`` rewrites the file with
    its sidecars' rows whenever they change), then the ``serving`` hook (each plugin's
    failure is logged), then tell systemd (``READY=1``, svc_host/watchdog.py; ``server_probe``
    makes the server's loop stamp its sign of life)."""
    try:
        write_state_file(host.settings.data_dir, host.plugins.states(loaded="running"))
    except OSError as exc:
        log.warning("plugins state file not written: %s", exc)
    host.plugins.call_quietly("serving", host=host)
    watchdog().ready(server_probe)


def _uvicorn_serving(host: Any) -> None:
    """``_serving`` from uvicorn's event loop, whose callbacks are the server's sign of life."""
    loop = asyncio.get_running_loop()
    _serving(host, lambda: loop.call_soon_threadsafe(watchdog().beat, "server"))


def _serve_uvicorn(host: Any, wsgi_app: Any, sock: socket.socket | None = None) -> None:
    settings = host.settings
    tls_files = ensure_certificate(settings) if settings.http_tls else None
    run_uvicorn(Dispatcher(wsgi_app, create_websocket_app(host), settings, body_rules(host)),
                settings.http_bind_ip, settings.http_port, tls_files, host.services,
                header_timeout=settings.http_header_timeout_seconds, access_log=settings.access_log,
                limits=connection_limits(settings),
                on_started=lambda: _uvicorn_serving(host), sock=sock)


def run_uvicorn(asgi_app: Any, bind: str, port: int, tls_files: tuple[Any, Any] | None,
                services: MutableMapping[Any, Any], header_timeout: float = 10.0, access_log: bool = False,
                limits: ConnectionLimits | None = None, on_started: Any = None,
                sock: socket.socket | None = None) -> None:
    """Serve ``asgi_app`` with uvicorn until SIGTERM/SIGINT (shared by the display and the controller).

    ``tls_files`` is ``(cert, key)`` or None for plain HTTP; ``services[HTTP_SERVER_STOP]``
    is set to a callable that stops the server. Request heads (and TLS handshakes) are bounded
    and must arrive within ``header_timeout`` seconds; connections are counted per client
    address and in all against ``limits`` (default: 128 and 2,048; svc_host/http/connection/limits.py).
    ``on_started()`` runs on the event loop once the socket listens. ``sock``: a socket already
    bound to ``bind``:``port`` (the port the OS chose for port 0) to listen on.
    """
    import uvicorn
    from uvicorn.config import create_ssl_context

    limits = _fit_to_open_files(limits or ConnectionLimits(128, 2048))
    tls_context = None
    if tls_files:
        # TLS is terminated by the connection layer's TlsGate (counted before the handshake,
        # handshake bounded), with the context uvicorn would have built.
        tls_context = create_ssl_context(certfile=str(tls_files[0]), keyfile=str(tls_files[1]), password=None,
                                         ssl_version=uvicorn.config.SSL_PROTOCOL_VERSION,
                                         cert_reqs=ssl_module.CERT_NONE, ca_certs=None, ciphers=TLS12_CIPHERS)
    config = uvicorn.Config(
        asgi_app,
        http=GuardedHttpToolsProtocol.configured(header_timeout, limits, tls_context),
        host=bind,
        port=port,
        lifespan="off",
        log_config=None,
        access_log=access_log,  # SVC_DISPLAY_ACCESS_LOG=1: one console line per request
        server_header=False,
        timeout_graceful_shutdown=30,
        ws_max_size=1024 * 1024,
    )
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal with the handler
    # that was installed before it ran: make that handler a clean exit so the host closes.
    if threading.current_thread() is threading.main_thread():  # else the display runtime owns signals
        signal.signal(signal.SIGTERM, _exit_cleanly)
        signal.signal(signal.SIGINT, _exit_cleanly)

    class Server(uvicorn.Server):
        def _log_started_message(self, listeners: Any) -> None:
            """Said by _log_listening below, with the right scheme (uvicorn has no TLS settings of
            its own here, the connection layer terminates TLS: it would say http://)."""

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)  # a port taken: uvicorn logs it, exit status 3
            if self.started and not self.should_exit:
                # only once bound: a port in use must not be announced as listening
                services[LISTENING] = _log_listening("https" if tls_files else "http", bind, port, "uvicorn",
                                                     tls_files[0] if tls_files else None)
                if on_started is not None:
                    on_started()

    server = Server(config)
    # The display runtime runs this on a background thread and stops it through this hook.
    services[HTTP_SERVER_STOP] = lambda: setattr(server, "should_exit", True)
    server.run(sockets=[sock] if sock is not None else None)


def _log_listening(scheme: str, bind: str, port: int, server: str, cert: Any = None) -> Listening:
    """Where clients reach this server, and (HTTPS) the certificate fingerprint to check: said on
    the console and returned (``host.services[LISTENING]``: the display's welcome slide shows it)."""
    announced = Listening(tuple(listening_urls(scheme, bind, port)),
                          certificate_fingerprint(cert) if cert is not None else None)
    urls = ", ".join(announced.urls)
    if announced.fingerprint is not None:
        log.info("listening on %s (%s; certificate SHA-256 fingerprint %s)", urls, server, announced.fingerprint)
    else:
        log.info("listening on %s (%s)", urls, server)
    return announced


def _fit_to_open_files(limits: ConnectionLimits) -> ConnectionLimits:
    """Raise the soft limit on open files to what ``limits.total`` connections need (up to the
    hard limit), or lower ``total`` to what the hard limit leaves, keeping RESERVED_FDS free."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = limits.total + RESERVED_FDS
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < wanted:
        total = max(1, soft - RESERVED_FDS)
        log.warning("at most %d open files allowed: serving at most %d connections instead of %d",
                    soft, total, limits.total)
        limits.total = total
    return limits


def _exit_cleanly(signum: int, _frame: Any) -> None:
    raise SystemExit(0)


def _serve_waitress(host: Any, wsgi_app: Any, sock: socket.socket | None = None) -> None:
    import threading

    import waitress
    from waitress import wasyncore
    from waitress.channel import HTTPChannel

    settings = host.settings
    if settings.http_tls:
        log.warning("waitress serves plain HTTP only: put a TLS-terminating proxy in front of it")
    where = {"sockets": [sock]} if sock is not None else {"host": settings.http_bind_ip, "port": settings.http_port}
    server = waitress.create_server(wsgi_app, threads=8, clear_untrusted_proxy_headers=True, **where)
    stopping = threading.Event()

    def stop(signum: int, _frame: Any) -> None:
        log.info("signal %d: stopping after in-flight requests", signum)
        stopping.set()

    host.services[HTTP_SERVER_STOP] = stopping.set
    if threading.current_thread() is threading.main_thread():  # else the display runtime owns signals
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
    host.services[LISTENING] = _log_listening("http", settings.http_bind_ip, settings.http_port, "waitress")
    _serving(host)
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
        watchdog().beat("server")
    server.task_dispatcher.shutdown()
