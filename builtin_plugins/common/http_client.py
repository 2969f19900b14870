"""The one outbound HTTP helper of collectors: timeouts, a User-Agent, a size cap, conditional GETs.

Every collector reaches upstream services through :class:`HttpClient` (the integrations
engine hands one to each run as ``context.http``), so the limits below hold everywhere:

- connect and read timeouts on every request, plus a total deadline for the body;
- at most ``max_redirects`` redirects (a loop ends in :class:`HttpFailure`);
- the body is streamed and cut at ``max_bytes`` (:class:`ResponseTooLarge`);
- ``etag`` / ``last_modified`` become ``If-None-Match`` / ``If-Modified-Since`` and a 304
  comes back as ``not_modified=True`` instead of an error;
- only ``http``/``https`` URLs; error messages never carry the query string (API keys
  of some providers travel there).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

import requests

DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 20.0
DEFAULT_TOTAL_TIMEOUT = 60.0
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5
CHUNK = 64 * 1024


class HttpFailure(Exception):
    """Any failed upstream exchange; the message is safe to log (no query string, no secret)."""


class UpstreamStatus(HttpFailure):
    def __init__(self, status: int, url: str):
        super().__init__(f"upstream answered HTTP {status} for {url}")
        self.status = status


class ResponseTooLarge(HttpFailure):
    pass


class Cancelled(Exception):
    """The run that owns this client was abandoned (timeout or shutdown)."""


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
    headers: Mapping[str, str]
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
                session = requests.Session()
                session.max_redirects = self.max_redirects
                session.trust_env = False  # no proxies or netrc credentials picked up silently
                self.session = session
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
        started = time.monotonic()
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
            raise HttpFailure(f"too many redirects (more than {self.max_redirects}) from {shown}") from None
        except requests.Timeout:
            raise HttpFailure(f"timed out waiting for {shown}") from None
        except requests.RequestException as exc:
            raise HttpFailure(f"request to {shown} failed: {type(exc).__name__}") from None
        try:
            if response.status_code == 304:
                return HttpResponse(304, response.url, dict(response.headers), b"", True)
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
                    if time.monotonic() - started > self.total_timeout:
                        raise HttpFailure(f"timed out reading {shown} (over {self.total_timeout:g} s)")
                    chunks.append(chunk)
            except requests.RequestException as exc:
                raise HttpFailure(f"reading {shown} failed: {type(exc).__name__}") from None
            return HttpResponse(response.status_code, response.url, dict(response.headers), b"".join(chunks))
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
