"""``ANY /bff/v1/proxy/<path>``: forward a request to a display, streaming both ways.

An ASGI app (not the WSGI side), so neither body is ever held whole in memory: the
request body is handed to httpx as an async iterator of the client's chunks, and the
display's answer is relayed chunk by chunk (``aiter_raw``: content encodings untouched).
WebSocket upgrades (the live preview) are forwarded with the ``websockets`` client.

- The display's base URL is ``X-Svc-Display-Url``. Browsers cannot set headers on a
  WebSocket, so an upgrade may name it in the query parameter ``svc_display_url``
  instead (removed before forwarding).
- ``Authorization`` passes through; hop-by-hop headers, ``Host``, ``Cookie`` (the
  controller's session is not the display's business) and ``X-Svc-Display-Url`` do not.
- Certificate checks are relaxed (displays have self-signed certificates).
- The target must pass :class:`svc_controller.targets.TargetPolicy`; the connection goes
  to the checked address (the original host name stays in ``Host`` and TLS SNI).
- Unreachable: 502 ``upstream_unreachable``; no answer within
  ``SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS``: 504 ``upstream_timeout``.
"""
from __future__ import annotations

import asyncio
import json
import logging
import ssl
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

from svc_controller.targets import HEADER, DisplayUrl, TargetPolicy, parse_display_url, pinned_url
from svc_host.http.errors import ApiError, error_body

log = logging.getLogger("svc_controller.proxy")

PREFIX = "/bff/v1/proxy"
WS_QUERY_PARAM = "svc_display_url"
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
                        "trailer", "trailers", "transfer-encoding", "upgrade", "proxy-connection"})
DROP_UPSTREAM = HOP_BY_HOP | {"host", "cookie", HEADER.lower()}
DROP_DOWNSTREAM = HOP_BY_HOP | {"set-cookie", "date"}  # uvicorn writes its own Date


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


class ProxyApp:
    def __init__(self, settings: Any, gate: Any, policy: TargetPolicy):
        self.settings = settings
        self.gate = gate
        self.policy = policy
        self.timeout_s = settings.proxy_upstream_timeout_ms / 1000
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # created inside the server's event loop
            self._client = httpx.AsyncClient(verify=False, timeout=httpx.Timeout(self.timeout_s),
                                             follow_redirects=False, trust_env=False,
                                             limits=httpx.Limits(max_connections=200))
        return self._client

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        else:
            await self.http(scope, receive, send)

    # -- shared checks --------------------------------------------------------------
    async def _target(self, scope: dict, headers: list[tuple[str, str]], display_url: str | None,
                      method: str) -> tuple[DisplayUrl, str, str]:
        """(display URL, address to connect to, path and query), or an ApiError."""
        principal = self.gate.principal_for_headers(headers)
        if principal is None:
            raise ApiError(401, "unauthorized", "sign in first (POST /bff/v1/auth/login)")
        if not self.gate.csrf_ok(method, dict(headers).get("x-requested-with")):
            raise ApiError(403, "csrf_required", "state-changing requests need X-Requested-With: svc-controller")
        url = parse_display_url(display_url)
        loop = asyncio.get_running_loop()
        address = await loop.run_in_executor(None, self.policy.address_for, url.host)
        raw_path = scope.get("raw_path") or scope["path"].encode()
        path = raw_path.decode("latin-1")[len(PREFIX):] or "/"
        return url, address, path

    # -- HTTP ------------------------------------------------------------------------
    async def http(self, scope: dict, receive: Any, send: Any) -> None:
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        method = scope["method"]
        try:
            url, address, path = await self._target(scope, headers, dict(headers).get(HEADER.lower()), method)
        except ApiError as error:
            await send_error(send, error)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        target = pinned_url(url, address, path + (f"?{query}" if query else ""))
        upstream_headers = forward_headers(headers, DROP_UPSTREAM) + [("host", url.netloc)]
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
        try:
            request = self.client.build_request(method, target, headers=upstream_headers,
                                                content=body() if has_body else None, extensions=extensions)
        except (httpx.InvalidURL, ValueError) as exc:
            await send_error(send, ApiError(400, "validation_failed", f"cannot forward to this URL: {exc}",
                                            {HEADER: ["cannot be combined with this path into a URL"]}))
            return
        try:
            response = await self.client.send(request, stream=True)
        except httpx.TimeoutException:
            await send_error(send, ApiError(504, "upstream_timeout",
                                            f"the display did not answer within {self.timeout_s:g} s"))
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
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except httpx.HTTPError as exc:
            # Headers are gone already: all that is left is to cut the connection short.
            log.info("proxy: %s %s broke off mid-answer: %s", method, url.netloc, type(exc).__name__)
            raise
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
        try:
            url, address, path = await self._target(scope, headers, display_url, "GET")
        except ApiError as error:
            log.info("proxy: refused a WebSocket: %s", error.code)
            await send({"type": "websocket.close", "code": 4403 if error.status == 403 else 4400})
            return
        rest = urlencode([(k, v) for k, v in query if k != WS_QUERY_PARAM])
        ws_scheme = "wss" if url.scheme == "https" else "ws"
        uri = f"{ws_scheme}://{url.netloc}{url.base_path}{path}" + (f"?{rest}" if rest else "")
        passed = {name: value for name, value in headers if name in ("authorization",)}
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
        if self._client is not None:
            await self._client.aclose()
