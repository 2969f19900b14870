"""The collector contract: what ``IntegrationType.collect(context)`` receives and may raise.

A collector runs on the scheduler in its own thread with a deadline. It fetches upstream
data through ``context.http`` (bound to the run's cancellation), writes rows inside short
``orm.db_session`` blocks (never around network calls) and returns nothing; a summary for
telemetry goes in ``context.summary``. An expected failure raises :class:`CollectorError`
(its message goes to telemetry as is); anything else is caught, logged with the plugin's
name and backed off. The integrations plugin implements :class:`CollectorContext`; the host's
``svc_host.http_client`` implements :class:`HttpClient` and raises the :class:`HttpFailure`
family below. :mod:`svc_host.kit.collecting` holds the helpers every collector uses.
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable


class CollectorError(Exception):
    """Raise from a collector for an expected failure; the message goes to telemetry as is."""


class AccountError(Exception):
    """A sign-in or token problem of a linked account (raised by the ``AccountsService``);
    ``code`` is the API error code, ``status`` its HTTP status, the message is safe to show."""

    def __init__(self, code: str, message: str, status: int = 409):
        super().__init__(message)
        self.code = code
        self.status = status


class HttpFailure(Exception):
    """Any failed upstream exchange through :class:`HttpClient`; the message is safe to log
    (no query string, no secret). Collectors catch it per unit (a feed, a location)."""


class UpstreamStatus(HttpFailure):
    """The upstream answered 4xx/5xx (``status``)."""

    def __init__(self, status: int, url: str):
        super().__init__(f"upstream answered HTTP {status} for {url}")
        self.status = status


class ResponseTooLarge(HttpFailure):
    """The body passed the request's ``max_bytes``."""


class Cancelled(Exception):
    """The run that owns the client was abandoned (timeout or shutdown); never catch it in a collector."""


@runtime_checkable
class HttpResponse(Protocol):
    """One upstream answer (``status``, headers, bytes)."""

    status: int
    body: bytes

    @property
    def etag(self) -> str | None: ...
    @property
    def last_modified(self) -> str | None: ...
    @property
    def content_type(self) -> str: ...
    def text(self) -> str: ...
    def json(self) -> Any: ...


@runtime_checkable
class HttpClient(Protocol):
    """The shared HTTP client: size and time limits, redirects checked, cancellation between steps."""

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                headers: Mapping[str, str] | None = None, json_body: Any = None, data: Any = None,
                etag: str | None = None, last_modified: str | None = None, max_bytes: int | None = None,
                accept: str | None = None, allow_error_status: bool = False) -> HttpResponse: ...
    def get(self, url: str, **kwargs: Any) -> HttpResponse: ...
    def get_json(self, url: str, **kwargs: Any) -> Any: ...
    def post_json(self, url: str, body: Any, **kwargs: Any) -> Any: ...


@runtime_checkable
class CollectorContext(Protocol):
    """What a collector's ``collect(context)`` receives.

    - ``host``, ``db``, ``blobs``: the host and its storage;
    - ``integration_id``, ``integration_type``, ``config`` (decoded ``config_json``),
      ``secrets`` (decrypted, by field name), ``accounts`` (linked accounts), ``force``
      (a manual run: per-row schedules such as RSS feed poll times are ignored);
    - ``http``: the shared :class:`HttpClient`, bound to this run's cancellation;
    - ``summary``: set it to a one-line result for telemetry.
    """

    host: Any
    db: Any
    blobs: Any
    integration_id: str
    integration_type: str
    config: dict[str, Any]
    secrets: dict[str, str]
    accounts: list[dict[str, Any]]
    force: bool
    http: HttpClient
    summary: str

    def base_url(self, default: str) -> str:
        """``config["baseUrl"]`` when set (tests point collectors at loopback), else ``default``."""
    def secret(self, name: str) -> str:
        """The secret ``name``; a run without it fails with ``the <name> secret is not
        configured`` (:class:`CollectorError`)."""
    def setting(self, key: str, what: str = "") -> Any:
        """``config[key]``; a run without it fails with ``config_json.<key> (<what>) is not set``."""
    def log(self, message: str, channel: str = "info") -> None:
        """A telemetry line (secrets scrubbed)."""
    def now_ms(self) -> int:
        """The host clock."""
    def backoff_ms(self, failures: int, base_seconds: float = 30) -> int:
        """The engine's backoff delay after ``failures`` consecutive failures (per-row schedules)."""
    def checkpoint(self) -> None:
        """Raise when the run was abandoned (call between long steps)."""
    def account_token(self, account_id: str) -> dict[str, Any] | None:
        """A fresh access token of a linked account, or None without the accounts service."""
