"""``ANY /bff/v1/proxy/<path>``: forward a request to a display, streaming both ways.

An ASGI app (not the WSGI side), so neither body is ever held whole in memory: the
request body is handed to httpx as an async iterator of the client's chunks, and the
display's answer is relayed chunk by chunk (``aiter_raw``: content encodings untouched).
WebSocket upgrades (the live preview) are forwarded with the ``websockets`` client.

- The display's base URL is ``X-Svc-Display-Url``. Browsers cannot set headers on a
  WebSocket, so an upgrade may name it in the query parameter ``svc_display_url``
  instead (removed before forwarding).
- Or a registered display (the fleet, svc_controller/fleet.py) by its id in
  ``X-Svc-Display-Id`` (on a WebSocket also the query parameter ``svc_display_id``): its
  stored base URL is used and ``Authorization: Bearer <its stored key>`` replaces whatever the
  client sent (the key is decrypted here only, and never logged nor returned). Unknown or
  malformed id: 404 ``not_found``; a display without a stored key: 409
  ``display_key_missing``; both headers at once: 400 ``validation_failed``.
- ``Authorization`` passes through (URL mode); hop-by-hop headers, ``Host``, ``Cookie`` (the
  controller's session is not the display's business), ``X-Svc-Display-Url`` and
  ``X-Svc-Display-Id`` do not.
- Certificate checks are relaxed (displays have self-signed certificates).
- The target must pass :class:`svc_controller.targets.TargetPolicy`; the connection goes
  to the checked address (the original host name stays in ``Host`` and TLS SNI).
- Unreachable: 502 ``upstream_unreachable``; no answer within
  ``SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS``: 504 ``upstream_timeout``.

Bounds (docs/controller.md, "Proxy bounds"; issue 26):

- **Per-display budget**: at most :data:`PER_DISPLAY_REQUESTS` requests in flight to one
  display (scheme, address, port); more wait their turn, within their deadline. The shared
  connection pool has no global cap of its own, so displays that never answer hold their own
  budget and nothing that another display's requests need.
- **Total deadline** (:mod:`svc_controller.deadline`, shared with the backup pulls and
  restores): a request gets ``SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS``, plus the time its
  bytes so far need at :data:`svc_host.http.connection.bodies.MIN_BODY_RATE` (a large archive on a
  working link finishes; a display trickling a byte a second does not), for everything:
  its turn, the connection, the request body, the answer's head and body. Past it: 504
  ``upstream_timeout`` when nothing was sent to the client yet, else the answer is cut short
  (the connection closed, so the client sees an incomplete body, never a complete one).
- **Never reported failed when the display did it** (issue 27): only a GET, HEAD or OPTIONS
  without a body goes on a pooled keep-alive connection, and is retried once on a fresh
  connection when that one breaks before an answer (a display restarted, or closed the idle
  connection as the request left: harmless to repeat). Any other request goes on a fresh
  connection and is never retried: a break there may mean the display did it. Pooled
  connections idle for :data:`KEEPALIVE_EXPIRY_S` are dropped, before the display's own 5 s.
"""
from __future__ import annotations

import asyncio
import json
import logging
import ssl
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

from svc_controller.deadline import Deadline
from svc_controller.storage import valid_display_id
from svc_controller.targets import HEADER, DisplayUrl, TargetPolicy, parse_display_url, pinned_url
from svc_host.http.errors import ApiError, error_body

log = logging.getLogger("svc_controller.proxy")

PREFIX = "/bff/v1/proxy"
WS_QUERY_PARAM = "svc_display_url"
ID_HEADER = "X-Svc-Display-Id"
WS_ID_QUERY_PARAM = "svc_display_id"
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
                        "trailer", "trailers", "transfer-encoding", "upgrade", "proxy-connection"})
DROP_UPSTREAM = HOP_BY_HOP | {"host", "cookie", HEADER.lower(), ID_HEADER.lower()}
DROP_DOWNSTREAM = HOP_BY_HOP | {"set-cookie", "date"}  # uvicorn writes its own Date
# A refused WebSocket closes with 4000 + the HTTP status it would have had (4400 for the rest).
WS_CLOSE = {403: 4403, 404: 4404, 409: 4409}
PER_DISPLAY_REQUESTS = 16  # in flight to one display at once (the display's own worker count)
POOLED_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # safe: repeated once if a pooled connection broke
KEEPALIVE_EXPIRY_S = 2.0  # below uvicorn's 5 s keep-alive, so the display is not the one closing it
# Errors of a connection that broke before any answer arrived (a reused connection the
# display had closed): worth one try on a fresh connection for a safe request.
STALE_CONNECTION = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


def _unverified_ssl() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _connection_tokens(headers: list[tuple[str, str]]) -> set[str]:
    """Headers named in ``Connection`` are hop-by-hop too (RFC 9110 7.6.1)."""
    return {token.strip().lower() for name, value in headers if name == "connection" for token in value.split(",")}


def forward_headers(headers: list[tuple[str, str]], drop: frozenset[str]) -> list[tuple[str, str]]:
    named = _connection_tokens(headers)
    return [(name, value) for name, value in headers if name not in drop and name not in named]


async def send_error(send: Any, error: ApiError) -> None:
    body = json.dumps(error_body(error.code, error.message, error.details)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _Budgets:
    """One semaphore per display, made on first use and dropped when nobody holds or awaits it."""

    def __init__(self, size: int):
        self.size = size
        self.by_display: dict[tuple[str, str, int], tuple[asyncio.Semaphore, int]] = {}

    async def acquire(self, display: tuple[str, str, int], timeout: float) -> None:
        semaphore, users = self.by_display.get(display) or (asyncio.Semaphore(self.size), 0)
        self.by_display[display] = (semaphore, users + 1)
        try:
            await asyncio.wait_for(semaphore.acquire(), timeout)
        except BaseException:
            self._leave(display)
            raise

    def release(self, display: tuple[str, str, int]) -> None:
        self.by_display[display][0].release()
        self._leave(display)

    def _leave(self, display: tuple[str, str, int]) -> None:
        semaphore, users = self.by_display[display]
        if users <= 1:
            del self.by_display[display]
        else:
            self.by_display[display] = (semaphore, users - 1)


class ProxyApp:
    def __init__(self, settings: Any, gate: Any, policy: TargetPolicy, fleet: Any = None):
        self.settings = settings
        self.gate = gate
        self.policy = policy
        self.fleet = fleet  # svc_controller.fleet.Fleet: the registered displays (X-Svc-Display-Id)
        self.timeout_s = settings.proxy_upstream_timeout_ms / 1000
        self.budgets = _Budgets(PER_DISPLAY_REQUESTS)
        self._pooled: httpx.AsyncClient | None = None
        self._fresh: httpx.AsyncClient | None = None

    def _client(self, keepalive: bool) -> httpx.AsyncClient:
        # made inside the server's event loop; no global connection cap (the per-display
        # budgets bound what each display holds, the connection layer what clients can ask)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64 if keepalive else 0,
                              keepalive_expiry=KEEPALIVE_EXPIRY_S)
        return httpx.AsyncClient(verify=False, timeout=httpx.Timeout(self.timeout_s), follow_redirects=False,
                                 trust_env=False, limits=limits)

    @property
    def pooled(self) -> httpx.AsyncClient:
        if self._pooled is None:
            self._pooled = self._client(keepalive=True)
        return self._pooled

    @property
    def fresh(self) -> httpx.AsyncClient:
        if self._fresh is None:
            self._fresh = self._client(keepalive=False)
        return self._fresh

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        else:
            await self.http(scope, receive, send)

    # -- shared checks --------------------------------------------------------------
    async def _target(self, scope: dict, headers: list[tuple[str, str]], display_url: str | None,
                      display_id: str | None, method: str) -> tuple[DisplayUrl, str, str, str | None]:
        """(display URL, address to connect to, path and query, the stored key in id mode), or an
        ApiError."""
        principal = self.gate.principal_for_headers(headers)
        if principal is None:
            raise ApiError(401, "unauthorized", "sign in first (POST /bff/v1/auth/login)")
        if not self.gate.csrf_ok(method, dict(headers).get("x-requested-with")):
            raise ApiError(403, "csrf_required", "state-changing requests need X-Requested-With: svc-controller")
        loop = asyncio.get_running_loop()
        key = None
        if display_id is not None:
            if display_url is not None:
                raise ApiError(400, "validation_failed", f"give {HEADER} or {ID_HEADER}, not both",
                               {ID_HEADER: ["cannot be combined with " + HEADER]})
            display_url, key = await loop.run_in_executor(None, self._registered, display_id)
        url = parse_display_url(display_url)
        address = await loop.run_in_executor(None, self.policy.address_for, url.host)
        raw_path = scope.get("raw_path") or scope["path"].encode()
        path = raw_path.decode("latin-1")[len(PREFIX):] or "/"
        return url, address, path, key

    def _registered(self, display_id: str) -> tuple[str, str]:
        """(baseUrl, apiKey) of the registered display ``display_id`` (runs in a worker thread)."""
        found = self.fleet.connection(display_id) if self.fleet is not None and valid_display_id(display_id) else None
        if found is None:
            raise ApiError(404, "not_found", "no registered display has this id")
        base_url, key = found
        if not key:
            raise ApiError(409, "display_key_missing",
                           "the controller holds no API key for this display: pair it again, or send its URL and key")
        return base_url, key

    # -- HTTP ------------------------------------------------------------------------
    async def http(self, scope: dict, receive: Any, send: Any) -> None:
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        method = scope["method"]
        try:
            url, address, path, key = await self._target(scope, headers, dict(headers).get(HEADER.lower()),
                                                         dict(headers).get(ID_HEADER.lower()), method)
        except ApiError as error:
            await send_error(send, error)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        target = pinned_url(url, address, path + (f"?{query}" if query else ""))
        upstream_headers = forward_headers(headers, DROP_UPSTREAM | ({"authorization"} if key else set()))
        upstream_headers += [("host", url.netloc)] + ([("authorization", f"Bearer {key}")] if key else [])
        has_body = any(n == "transfer-encoding" for n, _ in headers) or any(
            n == "content-length" and v.strip() not in ("", "0") for n, v in headers)

        async def body() -> Any:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise httpx.ReadError("client went away")
                chunk = message.get("body", b"")
                if chunk:
                    yield chunk
                if not message.get("more_body", False):
                    return

        extensions = {"sni_hostname": url.host} if url.scheme == "https" and address != url.host else {}
        display = (url.scheme, address, url.port)
        deadline = Deadline(self.timeout_s)
        pooled = method in POOLED_METHODS and not has_body
        try:
            request = (self.pooled if pooled else self.fresh).build_request(
                method, target, headers=upstream_headers, content=counted(body(), deadline) if has_body else None,
                extensions=extensions)
        except (httpx.InvalidURL, ValueError) as exc:
            await send_error(send, ApiError(400, "validation_failed", f"cannot forward to this URL: {exc}",
                                            {HEADER: ["cannot be combined with this path into a URL"]}))
            return
        try:
            await self.budgets.acquire(display, deadline.left())
        except TimeoutError:
            await send_error(send, self._timed_out())
            return
        try:
            await self._exchange(request, pooled, deadline, send, method, url)
        finally:
            self.budgets.release(display)

    def _timed_out(self) -> ApiError:
        return ApiError(504, "upstream_timeout", f"the display did not answer within {self.timeout_s:g} s")

    async def _send_upstream(self, request: httpx.Request, pooled: bool, deadline: Deadline) -> httpx.Response:
        if pooled:
            try:
                return await asyncio.wait_for(self.pooled.send(request, stream=True), deadline.left())
            except STALE_CONNECTION as exc:
                log.info("proxy: a pooled connection to %s broke before an answer (%s): once more on a fresh one",
                         request.url.netloc.decode("latin-1"), type(exc).__name__)
        return await asyncio.wait_for(self.fresh.send(request, stream=True), deadline.left())

    async def _exchange(self, request: httpx.Request, pooled: bool, deadline: Deadline, send: Any, method: str,
                        url: DisplayUrl) -> None:
        try:
            response = await self._send_upstream(request, pooled, deadline)
        except (TimeoutError, httpx.TimeoutException):
            await send_error(send, self._timed_out())
            return
        except httpx.HTTPError as exc:
            log.info("proxy: %s %s unreachable: %s", method, url.netloc, type(exc).__name__)
            await send_error(send, ApiError(502, "upstream_unreachable", f"the display at {url.netloc} is unreachable"))
            return
        try:
            out = forward_headers([(k.decode("latin-1").lower(), v.decode("latin-1"))
                                   for k, v in response.headers.raw], DROP_DOWNSTREAM)
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in out]})
            chunks = response.aiter_raw()
            while True:
                try:
                    chunk = await asyncio.wait_for(anext(chunks), deadline.left())
                except StopAsyncIteration:
                    break
                deadline.transferred += len(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except (TimeoutError, httpx.HTTPError) as exc:
            # Headers are gone already: all that is left is to cut the connection short
            # (uvicorn closes it when the app returns with the answer unfinished).
            log.info("proxy: %s %s broke off mid-answer: %s", method, url.netloc,
                     "past its deadline" if isinstance(exc, TimeoutError) else type(exc).__name__)
        finally:
            await response.aclose()

    # -- WebSocket -------------------------------------------------------------------
    async def websocket(self, scope: dict, receive: Any, send: Any) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        message = await receive()
        if message["type"] != "websocket.connect":
            return
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        display_url = dict(headers).get(HEADER.lower()) or dict(query).get(WS_QUERY_PARAM)
        display_id = dict(headers).get(ID_HEADER.lower()) or dict(query).get(WS_ID_QUERY_PARAM)
        try:
            url, address, path, key = await self._target(scope, headers, display_url, display_id, "GET")
        except ApiError as error:
            log.info("proxy: refused a WebSocket: %s", error.code)
            await send({"type": "websocket.close", "code": WS_CLOSE.get(error.status, 4400)})
            return
        rest = urlencode([(k, v) for k, v in query if k not in (WS_QUERY_PARAM, WS_ID_QUERY_PARAM)])
        ws_scheme = "wss" if url.scheme == "https" else "ws"
        uri = f"{ws_scheme}://{url.netloc}{url.base_path}{path}" + (f"?{rest}" if rest else "")
        passed = {name: value for name, value in headers if name in ("authorization",)}
        if key:
            passed = {"authorization": f"Bearer {key}"}
        origin = dict(headers).get("origin")
        subprotocols = [p.strip() for n, v in headers if n == "sec-websocket-protocol" for p in v.split(",")
                        if p.strip()]
        kwargs: dict[str, Any] = {"host": address, "port": url.port}
        if url.scheme == "https":
            kwargs.update(ssl=_unverified_ssl(), server_hostname=url.host)
        try:
            upstream = await connect(uri, additional_headers=passed, origin=origin, max_size=None,
                                     subprotocols=subprotocols or None, open_timeout=self.timeout_s,
                                     proxy=None, **kwargs)
        except (InvalidHandshake, OSError, asyncio.TimeoutError) as exc:
            log.info("proxy: WebSocket to %s refused or unreachable: %s", url.netloc, type(exc).__name__)
            await send({"type": "websocket.close", "code": 1011})
            return
        await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})

        async def client_to_upstream() -> None:
            while True:
                msg = await receive()
                if msg["type"] == "websocket.disconnect":
                    return
                if msg.get("bytes") is not None:
                    await upstream.send(msg["bytes"])
                elif msg.get("text") is not None:
                    await upstream.send(msg["text"])

        async def upstream_to_client() -> None:
            async for data in upstream:
                if isinstance(data, bytes):
                    await send({"type": "websocket.send", "bytes": data})
                else:
                    await send({"type": "websocket.send", "text": data})

        tasks = [asyncio.ensure_future(client_to_upstream()), asyncio.ensure_future(upstream_to_client())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await upstream.close()
            try:
                await send({"type": "websocket.close", "code": 1000})
            except (RuntimeError, ConnectionClosed, OSError):
                pass

    async def aclose(self) -> None:
        for client in (self._pooled, self._fresh):
            if client is not None:
                await client.aclose()


async def counted(chunks: Any, deadline: Deadline) -> Any:
    """The request body's chunks, each counted towards the deadline's allowance."""
    async for chunk in chunks:
        deadline.transferred += len(chunk)
        yield chunk
