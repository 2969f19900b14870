"""The one outbound HTTP helper of collectors: timeouts, a User-Agent, a size cap, conditional GETs.

Every collector reaches upstream services through :class:`HttpClient`, the host's
implementation of :class:`hookspecs.collect.HttpClient` (the integrations engine hands one
to each run as ``context.http``), so the limits below hold everywhere:

- connect and read timeouts on every request, plus a total deadline from before the
  request is sent that a trickling upstream cannot outlive, in its status line, headers or
  body (a watchdog shuts the sockets down when it passes: a read timeout restarts with
  every byte, so it alone cannot bound a one-byte-a-second answer);
- at most ``max_redirects`` redirects (a loop ends in :class:`HttpFailure`);
- the body is streamed and cut at ``max_bytes`` (:class:`ResponseTooLarge`);
- ``etag`` / ``last_modified`` become ``If-None-Match`` / ``If-Modified-Since`` and a 304
  comes back as ``not_modified=True`` instead of an error;
- only ``http``/``https`` URLs; error messages never carry the query string (API keys
  of some providers travel there).
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.structures import CaseInsensitiveDict
import requests.adapters
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from hookspecs.collect import Cancelled, HttpFailure, ResponseTooLarge, UpstreamStatus  # noqa: F401

DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 20.0
DEFAULT_TOTAL_TIMEOUT = 60.0
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5
CHUNK = 64 * 1024


def redact_url(url: str) -> str:
    """``scheme://host/path`` without user info, query or fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return "<invalid url>"


@dataclass
class HttpResponse:
    status: int
    url: str
    headers: Mapping[str, str]  # requests' CaseInsensitiveDict: HTTP header names have no case
    content: bytes = b""
    not_modified: bool = False

    @property
    def etag(self) -> str | None:
        return self.headers.get("ETag")

    @property
    def last_modified(self) -> str | None:
        return self.headers.get("Last-Modified")

    @property
    def content_type(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        try:
            return json.loads(self.content)
        except (ValueError, UnicodeDecodeError) as exc:
            raise HttpFailure(f"malformed JSON from {redact_url(self.url)}: {type(exc).__name__}") from None


_watching = threading.local()  # the watchdog of the exchange running on this thread, if any


class _Watchdog:
    """Shuts down every socket of one exchange once ``seconds`` pass, ending any blocked
    connect, handshake or read: started before the request is sent, so a trickling status
    line or header is bounded like a trickling body. The sockets are those of the
    connections the session's pools hand out on this thread meanwhile (:class:`_WatchedPool`),
    redirects included; a connection still inside ``connect()`` when it fires has the connect
    timeout. urllib3 has no total deadline of its own (its read timeout restarts with every
    byte): hence this."""

    def __init__(self, seconds: float):
        self.fired = False
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> "_Watchdog":
        _watching.current = self
        self._timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._timer.cancel()
        _watching.current = None

    def watch(self, target: Any) -> None:
        """Shut ``target`` (a connection or a response) down too when the time is up."""
        with self._lock:
            self._connections.append(target)
            fired = self.fired
        if fired:
            self._shut(target)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            connections = list(self._connections)
        for connection in connections:
            self._shut(connection)

    @staticmethod
    def _shut(target: Any) -> None:
        """Shut the socket of a pooled connection or of a response down."""
        if isinstance(target, requests.Response):
            raw = target.raw
            sock = getattr(getattr(raw, "connection", None), "sock", None)
            if sock is None:  # http.client hands a closing connection's socket to the response's file
                fp = getattr(getattr(raw, "_fp", None), "fp", None)
                sock = getattr(getattr(fp, "raw", None), "_sock", None)
        else:
            sock = getattr(target, "sock", None)
        if sock is not None:
            try:
                # The plain socket's shutdown (an SSLSocket's would also drop its TLS state
                # under the reading thread): the blocked recv returns, the read fails.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass


class _WatchedPool(HTTPConnectionPool):
    """A connection pool that shows each connection it hands out to this thread's watchdog."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        connection = super()._get_conn(timeout)
        watchdog = getattr(_watching, "current", None)
        if watchdog is not None:
            watchdog.watch(connection)
        return connection


class _WatchedHTTPSPool(_WatchedPool, HTTPSConnectionPool):
    pass


def _watched_session(max_redirects: int) -> requests.Session:
    session = requests.Session()
    session.max_redirects = max_redirects
    session.trust_env = False  # no proxies or netrc credentials picked up silently
    adapter = requests.adapters.HTTPAdapter()
    adapter.poolmanager.pool_classes_by_scheme = {"http": _WatchedPool, "https": _WatchedHTTPSPool}
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


@dataclass
class HttpClient:
    """A shared ``requests.Session`` with the limits of the module docstring.

    ``cancelled`` is checked before each request and between body chunks, so an abandoned
    run stops at its next network step.
    """

    user_agent: str = "svc-display"
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    cancelled: Callable[[], bool] = field(default=lambda: False)
    session: requests.Session | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _session(self) -> requests.Session:
        with self._lock:
            if self.session is None:
                self.session = _watched_session(self.max_redirects)
            return self.session

    def bound(self, cancelled: Callable[[], bool]) -> "HttpClient":
        """A view on the same session with its own cancellation check (one per run)."""
        return HttpClient(
            self.user_agent,
            self.connect_timeout,
            self.read_timeout,
            self.total_timeout,
            self.max_bytes,
            self.max_redirects,
            cancelled,
            self._session(),
            self._lock,
        )

    def close(self) -> None:
        with self._lock:
            if self.session is not None:
                self.session.close()
                self.session = None

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        json_body: Any = None,
        data: Any = None,
        etag: str | None = None,
        last_modified: str | None = None,
        max_bytes: int | None = None,
        accept: str | None = None,
        allow_error_status: bool = False,
    ) -> HttpResponse:
        """One exchange. 4xx/5xx raise :class:`UpstreamStatus` unless ``allow_error_status``
        (OAuth token endpoints answer 400 with a JSON error the caller must read)."""
        if self.cancelled():
            raise Cancelled("run abandoned")
        shown = redact_url(url)
        if urlsplit(url).scheme not in ("http", "https"):
            raise HttpFailure(f"only http and https URLs are fetched, not {shown}")
        all_headers = {"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"}
        if accept:
            all_headers["Accept"] = accept
        if etag:
            all_headers["If-None-Match"] = etag
        if last_modified:
            all_headers["If-Modified-Since"] = last_modified
        all_headers.update(headers or {})
        cap = max_bytes or self.max_bytes
        timed_out = f"timed out reading {shown} (over {self.total_timeout:g} s)"
        with _Watchdog(self.total_timeout) as watchdog:
            try:
                response = self._session().request(
                    method,
                    url,
                    params=params,
                    headers=all_headers,
                    json=json_body,
                    data=data,
                    stream=True,
                    timeout=(self.connect_timeout, self.read_timeout),
                    allow_redirects=True,
                )
            except requests.TooManyRedirects:
                raise HttpFailure(f"too many redirects (more than {self.max_redirects}) from {shown}") \
                    from None
            except requests.Timeout:
                raise HttpFailure(f"timed out waiting for {shown}") from None
            except requests.RequestException as exc:
                if watchdog.fired:
                    raise HttpFailure(timed_out) from None
                raise HttpFailure(f"request to {shown} failed: {type(exc).__name__}") from None
            watchdog.watch(response)  # a closing connection has handed its socket to the response
            try:
                if response.status_code == 304:
                    return HttpResponse(304, response.url, CaseInsensitiveDict(response.headers), b"", True)
                if response.status_code >= 400 and not allow_error_status:
                    raise UpstreamStatus(response.status_code, shown)
                declared = response.headers.get("Content-Length")
                if declared and declared.isdigit() and int(declared) > cap:
                    raise ResponseTooLarge(f"response from {shown} is larger than {cap} bytes")
                chunks: list[bytes] = []
                size = 0
                try:
                    for chunk in response.iter_content(CHUNK):
                        if self.cancelled():
                            raise Cancelled("run abandoned")
                        size += len(chunk)
                        if size > cap:
                            raise ResponseTooLarge(f"response from {shown} is larger than {cap} bytes")
                        if watchdog.fired:
                            raise HttpFailure(timed_out)
                        chunks.append(chunk)
                except (requests.RequestException, OSError, ValueError, AttributeError) as exc:
                    if watchdog.fired:
                        raise HttpFailure(timed_out) from None
                    if not isinstance(exc, requests.RequestException):
                        raise
                    raise HttpFailure(f"reading {shown} failed: {type(exc).__name__}") from None
                if watchdog.fired:
                    raise HttpFailure(timed_out)
                return HttpResponse(response.status_code, response.url, CaseInsensitiveDict(response.headers),
                                    b"".join(chunks))
            finally:
                response.close()

    def get(self, url: str, **kwargs: Any) -> HttpResponse:
        return self.request("GET", url, **kwargs)

    def get_json(self, url: str, **kwargs: Any) -> Any:
        kwargs.setdefault("accept", "application/json")
        return self.request("GET", url, **kwargs).json()

    def post_json(self, url: str, body: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("accept", "application/json")
        return self.request("POST", url, json_body=body, **kwargs).json()
