"""Typed keys and small Protocols for the services plugins share through ``host.services``.

A plugin publishes a service in its ``startup`` hook and others reach it by key, never by
importing the owner's modules (pytest's ``stash.py`` and devpi's ``interfaces.py`` do the
same)::

    from hookspecs.services import SETTINGS, service

    @hookimpl
    def startup(host):
        host.services[SETTINGS] = SettingsService(host)      # the owner

    prefs = service(host, SETTINGS)                          # anyone: a SettingsService or None

A :class:`ServiceKey` is an object, not a string (pytest's ``StashKey``): ``host.services``
refuses ``"settings"``, refuses a key nobody declared, and lets only the key's owner publish
under it. :data:`SERVICE_KEYS` lists the builtin keys with their owning plugin and Protocol; a
third-party plugin declares its own in its own module and returns them from the
``register_service_keys`` hook. ``docs/hooks.md`` documents each builtin key and
``tests/host/test_contract.py`` fails when one is missing there.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Generic, Mapping, Protocol, Sequence, TypeVar,
                    runtime_checkable)

from hookspecs.content import ContentIngest

if TYPE_CHECKING:  # pragma: no cover
    from zoneinfo import ZoneInfo

    from hookspecs.host import Host
    from hookspecs.render import Preferences

T = TypeVar("T")


class ServiceKey(Generic[T]):
    """The key of a shared service: its name, the plugin that owns (publishes) it, what it is,
    and the Protocol (or class) its value satisfies.

    Like pytest's ``StashKey``, a key is an object compared and hashed by identity, not a
    string: ``host.services`` refuses ``"settings"`` and accepts only keys declared here (the
    builtins') or returned by a plugin's ``register_service_keys`` hook (a third party's own,
    declared in its own module). Only ``owner`` may publish a value under the key.
    """

    __slots__ = ("name", "protocol", "owner", "doc")

    def __init__(self, name: str, protocol: Any, owner: str, doc: str = "") -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a service key needs a name, not {name!r}")
        if protocol is Any or protocol is None or protocol is object:
            raise TypeError(f"service key {name!r} needs the Protocol its value satisfies, not {protocol!r}")
        if not isinstance(owner, str) or not owner:
            raise ValueError(f"service key {name!r} needs its owning plugin's name")
        self.name = name
        self.protocol = protocol
        self.owner = owner
        self.doc = doc

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"ServiceKey({self.name!r}, owner={self.owner!r})"


@runtime_checkable
class ServiceRegistry(Protocol):
    """``host.services``: shared services by :class:`ServiceKey` (a mapping that refuses any
    other key). ``registry[KEY] = value`` publishes (only ``KEY.owner`` may); ``get``,
    ``[]``, ``in`` read; ``setdefault`` publishes once; ``pop`` withdraws (the owner again).
    Use :func:`service` and :func:`require` to read."""

    def __getitem__(self, key: ServiceKey[T]) -> T: ...
    def __setitem__(self, key: ServiceKey[T], value: T) -> None: ...
    def __contains__(self, key: object) -> bool: ...
    def get(self, key: ServiceKey[T], default: Any = None) -> T | None: ...
    def setdefault(self, key: ServiceKey[T], value: T) -> T: ...
    def pop(self, key: ServiceKey[T], default: Any = None) -> T | None: ...


def service(host: "Host", key: "ServiceKey[T]") -> T | None:
    """The service published under ``key``, or None when its plugin is disabled or not started."""
    return host.services.get(key)


def require(host: "Host", key: "ServiceKey[T]") -> T:
    """The service published under ``key``; raises ``LookupError`` naming the key and its owner."""
    value = host.services.get(key)
    if value is None:
        raise LookupError(f"service {str(key)!r} is not available (provided by the {key.owner!r} plugin)")
    return value


# -- Protocols ------------------------------------------------------------------------------

@runtime_checkable
class SettingsService(Protocol):
    """Display settings (spec 2.11) with their documented defaults; ``set``/``delete`` need a
    ``db_session``. ``display_zone()`` is the one reader of ``display_timezone``.

    Key-values (``{key, value}`` strings, ``/v1/config/key-values``) are the settings
    plugin's table, which no other plugin touches: ``key_value(key)`` reads one (None when
    absent), ``key_values(prefix)`` every ``(key, value)`` under a prefix;
    ``put_key_value(key, value)`` creates or replaces one (the value cut to 8192 characters,
    ``ValueError`` for an empty key or one over 256) and ``delete_key_value(key)`` removes
    one (False when absent). Both writers join the caller's ``db_session`` when there is one
    (so a key-value commits with the rows it describes) and open their own otherwise; they
    publish nothing (a collector's run publishes ``catalog``, see :func:`publish`)."""

    def get(self, key: str) -> Any: ...
    def is_stored(self, key: str) -> bool: ...
    def set(self, key: str, value: Any) -> None: ...
    def delete(self, key: str) -> None: ...
    def key_value(self, key: str) -> str | None: ...
    def key_values(self, prefix: str) -> list[tuple[str, str]]: ...
    def put_key_value(self, key: str, value: str) -> None: ...
    def delete_key_value(self, key: str) -> bool: ...
    def display_zone(self) -> "ZoneInfo": ...


@runtime_checkable
class ClientKeys(Protocol):
    """API keys of adopted clients. ``issue`` creates the client ``identifier`` with ``role``
    (or rotates its key) and returns the key once; only its hash is stored. A bad identifier
    or role raises ``ValueError``. Running servers of the same data dir accept the key at once.
    ``any_client()`` says whether any client is adopted (joins the caller's ``db_session``)."""

    def issue(self, identifier: str, role: str) -> str: ...
    def any_client(self) -> bool: ...


@runtime_checkable
class DisplayPreferences(Protocol):
    """The display's preferences (theme id and resolved theme, text scales, time format, date
    order, timezone, temperature unit) as one :class:`hookspecs.render.Preferences`. The
    settings plugin owns the keys behind them; the compositor, layers and renderers read
    only this (through :func:`preferences`)."""

    def current(self) -> "Preferences": ...


@runtime_checkable
class ThemesService(Protocol):
    """Theme previews by id (builtin and custom themes, spec 2.11); ``builtin_ids`` lists the
    builtin themes in their fixed order."""

    def preview(self, theme_id: str) -> dict[str, Any] | None: ...
    def builtin_ids(self) -> list[str]: ...


ALERT_SEVERITIES: tuple[str, ...] = ("info", "warning", "critical")
"""An alert's ``severity``, least to most severe."""


@runtime_checkable
class AlertsService(Protocol):
    """Raise, refresh and dismiss alerts; ``active(now_ms)`` is what the screen shows."""

    def raise_alert(self, *, title: str, body: str, severity: str = "info", priority: int = 0, source: str,
                    expires_at_ms: int | None = None, icon: str | None = None, qr_payload: str | None = None,
                    display_only: dict | None = None) -> str: ...
    def dismiss(self, alert_id: str) -> bool: ...
    def upsert_source_alert(self, *, source: str, key: str, title: str, body: str = "", severity: str = "warning",
                            priority: int = 0, icon: str | None = None) -> str | None: ...
    def clear_source_alerts(self, *, source: str, keep_keys: list[str]) -> int: ...
    def active(self, now_ms: int | None = None) -> list[dict[str, Any]]: ...


@runtime_checkable
class OverlaysService(Protocol):
    """Which overlay rows are active: the one owner of overlay windows and the global switch.
    ``enabled()`` is every enabled overlay row (whatever its window), in id order."""

    def globally_enabled(self) -> bool: ...
    def enabled(self) -> list[dict[str, Any]]: ...
    def is_active(self, row: Mapping[str, Any], now: Any = None) -> bool: ...
    def active(self, now: Any = None) -> list[dict[str, Any]]: ...
    def next_change_ms(self, now: Any = None) -> int | None: ...


@runtime_checkable
class ScreensService(Protocol):
    """The slides (spec 2.6): ``enabled()`` is every enabled screen row, ``config_json`` decoded,
    in ``(sort_order, id)`` order; ``program()`` the ones the slide program cycles (the curator's
    members, a weight of at least one appearance); ``sync_group()`` the display's ``sync_group``
    setting; ``sync()`` is ``GET /v1/display/screen``'s ``{group, program_hash, cycle_ms}``
    (displays in step)."""

    def enabled(self) -> list[dict[str, Any]]: ...
    def program(self) -> list[dict[str, Any]]: ...
    def sync_group(self) -> str: ...
    def sync(self) -> dict[str, Any]: ...


@runtime_checkable
class TickerService(Protocol):
    """The one meaning of a tape's ``frequency_weight``: ``cycle(tapes)`` is the tape order of
    one marquee cycle (each enabled tape repeated per its weight, spread by the smooth
    weighted round-robin of ``svc_host.kit.weights``), the same order ``GET /v1/ticker/items``
    lists. ``enabled()`` is every enabled tape row,
    ``config_json`` decoded, in ``(sort_order, id)`` order."""

    def cycle(self, tapes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]: ...
    def enabled(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class CuratorService(Protocol):
    """The curator's active view (which screens the schedule rules select now);
    ``next_change_ms()`` is when the view may next change with the clock alone (None when
    only edits change it)."""

    def active_view(self) -> dict: ...
    def next_change_ms(self) -> int | None: ...


@runtime_checkable
class CategoriesService(Protocol):
    """The content category vocabulary (curator categories, spec 2.10), inside the caller's ``db_session``."""

    def exists(self, category_id: str) -> bool: ...
    def label(self, category_id: str) -> str | None:
        """The category's label, ``None`` when no category has this id (or its label is empty)."""
        ...


@runtime_checkable
class CuratorRuntime(Protocol):
    """Runtime state predicates read (``motion_detected`` ...): fed by plugins with ``set``, and
    overridden by the boolean runtime signal of the same id when one is set; ``signals()`` is
    every live runtime signal (the ``runtime_signal`` predicate reads it)."""

    def set(self, name: str, value: bool) -> None: ...
    def snapshot(self, db: Any) -> dict[str, bool]: ...
    def signals(self) -> dict[str, Any]: ...


@runtime_checkable
class SearchService(Protocol):
    """The RSS article word index; ``sync_terms()`` after writing articles."""

    def sync_terms(self) -> None: ...


@runtime_checkable
class AccountsService(Protocol):
    """Linked integration accounts and their tokens (encrypted at rest). ``account(id)`` is
    ``{id, account_type, integration_id, config}`` (``config``: its integration's
    ``config_json``) or None; ``access_token``/``bearer`` raise
    :class:`hookspecs.collect.AccountError` (``code``, ``status``) when there is no usable token."""

    def account(self, account_id: str) -> dict[str, Any] | None: ...
    def access_token(self, account_id: str) -> dict[str, Any]: ...
    def bearer(self, account_id: str) -> dict[str, str]: ...
    def save_token(self, account_id: str, token: dict[str, Any]) -> None: ...
    def load_token(self, account_id: str) -> dict[str, Any] | None: ...
    def unlink(self, account_id: str) -> bool: ...


@runtime_checkable
class AdoptionService(Protocol):
    """Pending adoption challenges, newest first (``[{identifier, role, challenge, created_at_ms,
    expires_at_ms}]``, for the adoption plugin's own layer; nothing else draws them)."""

    def pending_challenges(self) -> list[dict]: ...
    def pending_count(self) -> int: ...
    def oldest_expiry_ms(self) -> int | None: ...


@runtime_checkable
class ChangeEvents(Protocol):
    """The host's change events: a write path publishes a topic (``"screens"``, ``"alerts"`` ...)
    once its change is committed; subscribers (the canvas) react. Thread-safe. Inside a
    request, or a ``batch()``, events wait until it ends without an error (after its
    transaction committed) and are dropped when it fails. Handlers run on the publishing
    thread and must not block."""

    def publish(self, topic: str) -> None: ...
    def subscribe(self, handler: Callable[[str], None]) -> Callable[[], None]: ...
    def batch(self) -> ContextManager[None]: ...


@runtime_checkable
class ProgramTelemetry(Protocol):
    """The canvas's program telemetry (spec 4.8): a line per slide change and per marquee cycle."""

    def record_program(self, reason: str, slides: list[dict[str, Any]], at_ms: int | None = None) -> None: ...
    def record_ticker(self, items: list[dict[str, Any]]) -> None: ...


@runtime_checkable
class PlayLog(Protocol):
    """Proof of play (CONTRACT "Displays in step, and proof of play"): what the canvas showed,
    each ``kind`` (``slide``, ``alert``, ``overlay``) on its own. The layers call it on the UI
    thread; it never blocks (a play is queued when it ends, a thread of its own writes them in
    batches). An item is ``{id, type, label}``.

    - ``replace(kind, items, complete, at_ms=None)``: every open play of ``kind`` ends now (or at
      ``at_ms``: a change scheduled for that instant, displays in step; ``complete``: it stayed its
      whole dwell) and each of ``items`` starts a play (the slide program: each change is a play,
      the same slide again too);
    - ``show(kind, items, complete=True)``: ``kind``'s items on screen are now ``items``: one that
      left ends (``complete``: it left because its row said so, not cut short), a new one starts;
    - ``suspend()`` / ``resume()``: the canvas went dark (open plays end, not complete; calls while
      dark change what is open, recording nothing) and lit again (what is open then starts)."""

    def replace(self, kind: str, items: list[dict[str, Any]], complete: bool, at_ms: int | None = None) -> None: ...
    def show(self, kind: str, items: list[dict[str, Any]], complete: bool = True) -> None: ...
    def suspend(self) -> None: ...
    def resume(self) -> None: ...


@runtime_checkable
class TelemetryLog(Protocol):
    """Integration telemetry lines (``channel``, message, type)."""

    def add(self, channel: str, message: str, integration_type: str | None = None) -> dict[str, Any]: ...
    def lines(self, limit: int = 200, since_ms: int | None = None) -> list[dict[str, Any]]: ...
    def clear(self) -> None: ...


@runtime_checkable
class IntegrationsEngine(Protocol):
    """The collector engine: ``run_now(integration_id)`` runs one collection synchronously;
    ``ensure_row`` adds an integration row of a registered type under an id of its own (a
    folder plugin's ``plugin_http.<id>``) and never changes an existing one; ``run_soon``
    queues a run of an enabled integration as its schedule would (nothing when the engine
    does not run, e.g. in SaaS mode). ``http`` is its :class:`hookspecs.collect.HttpClient`
    (for a feature's own upstream calls outside a collection, e.g. the Google calendar list)."""

    http: Any

    def run_now(self, integration_id: str, force: bool = True) -> Any: ...
    def ensure_row(self, integration_id: str, integration_type: str, config: dict[str, Any],
                   enabled: bool = False) -> bool: ...
    def run_soon(self, integration_id: str) -> None: ...


@runtime_checkable
class OriginStore(Protocol):
    """Allowed browser origins for CORS."""

    def is_allowed(self, origin: str) -> bool: ...
    def list(self) -> list[dict]: ...
    def remember(self, origin: str | None, source: str) -> str | None: ...


RUNTIME_SIGNAL_ID = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
"""What a runtime signal id looks like (CONTRACT "Runtime signals")."""


@runtime_checkable
class RuntimeSignals(Protocol):
    """Runtime signals (CONTRACT "Runtime signals"): values by id, in memory, gone once expired.
    ``put`` raises ``ValueError`` for a bad id, value or TTL; ``values()`` maps every live id to
    its value (the curator's runtime inputs read it)."""

    def put(self, signal_id: str, value: Any, ttl_seconds: int | None = None) -> dict[str, Any]: ...
    def get(self, signal_id: str) -> dict[str, Any] | None: ...
    def delete(self, signal_id: str) -> bool: ...
    def items(self) -> list[dict[str, Any]]: ...
    def values(self) -> dict[str, Any]: ...
    def next_expiry_ms(self) -> int | None: ...


@runtime_checkable
class FolderPlugins(Protocol):
    """The folder plugins of ``SVC_DISPLAY_PLUGINS_DIR`` and their sidecars: ``rows()`` as
    ``GET /v1/plugins`` lists them (``row(plugin_id)`` one folder plugin's, the accepted one
    when a refused folder claimed the same id); ``sidecar_url(plugin_id)`` is a running
    sidecar's loopback base URL (None when it has none or it is not running);
    ``template(plugin_id, name)`` is ``(the plugin's folder, its template name)``, validated at
    startup, raising ``ValueError`` saying why there is none."""

    def rows(self) -> list[dict[str, Any]]: ...
    def row(self, plugin_id: str) -> dict[str, Any] | None: ...
    def sidecar_url(self, plugin_id: str) -> str | None: ...
    def template(self, plugin_id: str, name: str) -> tuple[Any, dict[str, Any]]: ...


@runtime_checkable
class CanvasBlank(Protocol):
    """Whether the canvas must be dark now (the panel is off). The display runtime asks it at
    start and whenever the change event :data:`BLANK_TOPIC` is published; while ``blank()`` is
    True the canvas draws nothing (no layers, no frames, no animation timers) and shows black.
    ``blank()`` is called on the UI thread: it must answer from memory, at once."""

    def blank(self) -> bool: ...


BLANK_TOPIC = "canvas_blank"
"""The change event the owner of :data:`CANVAS_BLANK` publishes when ``blank()`` changes."""


@runtime_checkable
class DisplayPower(Protocol):
    """The display's power state (CONTRACT "Display power"): ``status()`` is the body of
    ``GET /v1/display/power``; ``state()`` is ``on`` or ``off`` now."""

    def status(self) -> dict[str, Any]: ...
    def state(self) -> str: ...


@dataclass(frozen=True)
class Listening:
    """What the HTTP server announced on the console once it listened: the URLs clients reach it
    on and, over HTTPS, its certificate's SHA-256 fingerprint (``AB:CD:...``; None for plain HTTP)."""

    urls: tuple[str, ...]
    fingerprint: str | None = None


@runtime_checkable
class CorsPolicy(Protocol):
    """The private-network origin policy: ``allows(origin)`` for a normalised
    ``scheme://host[:port]`` on a private address (or a name resolving to one)."""

    def allows(self, origin: str) -> bool: ...


@runtime_checkable
class DisplayRuntime(Protocol):
    """The running canvas (only while one runs): its ``mode`` (see :data:`DISPLAY_MODE`), its
    Kivy ``app`` and ``compositor`` (None until built), ``started`` (an Event set once the first
    frame can be drawn) and ``stop()``."""

    mode: str
    app: Any
    compositor: Any
    started: Any

    def stop(self) -> None: ...


@runtime_checkable
class ScreenReport(Protocol):
    """What the screen shows (CONTRACT "What the screen shows"), published by the canvas's
    compositor (``svc_host.display.truth``); read from any thread, never touching Kivy.

    ``snapshot()`` is ``GET /v1/display/screen``'s ``{state, current, skipped, failing}``;
    ``degraded()`` maps a plugin whose renderer is failing now to why (``GET /v1/plugins``)."""

    def snapshot(self) -> dict[str, Any]: ...
    def degraded(self) -> dict[str, str]: ...


@runtime_checkable
class FrameCapture(Protocol):
    """Live-preview frames of the canvas: a viewer callback gets each encoded frame."""

    def add_viewer(self, callback: Callable[[bytes], Any]) -> int: ...
    def remove_viewer(self, handle: int) -> None: ...

    @property
    def viewer_count(self) -> int: ...


@dataclass(frozen=True)
class CaptureRequest:
    """What the live-preview plugin asks the canvas to capture (its settings): frames ``width`` px
    wide, ``fps`` a second, JPEG ``quality``. The display runtime makes its ``DISPLAY_CAPTURE`` from
    it once the canvas runs; without it (the plugin disabled or switched off) nothing is captured."""

    width: int
    fps: int
    quality: int


@runtime_checkable
class PreviewTickets(Protocol):
    """One-use WebSocket tickets of the live preview: ``issue(identifier)`` is
    ``(ticket, expires_in_seconds)``; ``redeem`` spends one."""

    def issue(self, identifier: str) -> tuple[str, int]: ...
    def redeem(self, ticket: str, identifier: str) -> bool: ...


@runtime_checkable
class CloudFeed(Protocol):
    """The SaaS feed consumer (``SVC_SAAS_MODE=1``): ``health()`` is its ``GET /v1/health`` block."""

    last_event_at_ms: int | None

    def health(self) -> dict[str, Any]: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...


@runtime_checkable
class DbReader(Protocol):
    """The host's raw database reader (per-thread connections beside Pony's, for the hot paths:
    API-key lookup and list-cache table versions)."""

    def fetchone(self, sql: str, params: tuple) -> tuple | None: ...
    def transaction(self, statements: list[tuple[str, tuple]]) -> None: ...
    def close(self) -> None: ...


@runtime_checkable
class ListCache(Protocol):
    """The host's cache of list responses, valid while its tables' versions are unchanged."""

    def versions(self, tables: Sequence[str]) -> tuple | None: ...
    def get(self, key: tuple, versions: tuple) -> bytes | None: ...
    def put(self, key: tuple, versions: tuple, body: bytes) -> None: ...
    def clear(self) -> None: ...


@runtime_checkable
class BackupJobs(Protocol):
    """The maintenance plugin's backup jobs and their worker (its own, made on first use)."""

    def status(self) -> dict[str, Any]: ...
    def get(self, job_id: str) -> Any: ...
    def stop(self) -> None: ...


# -- Keys ---------------------------------------------------------------------------------------
# Each with the Protocol (or class) its value satisfies and its owner, the one plugin that may
# publish it ("host": svc_host itself). A third-party plugin declares its own keys in its own
# module and returns them from ``register_service_keys`` (docs/plugins.md).

SETTINGS: ServiceKey[SettingsService] = ServiceKey(
    "settings", SettingsService, "settings", "display settings and preferences")
CLIENT_KEYS: ServiceKey[ClientKeys] = ServiceKey("client_keys", ClientKeys, "clients", "issues API keys (hashed)")
API_KEY_PRINCIPALS: ServiceKey[dict] = ServiceKey(
    "api_key_principals", dict, "clients", "principals of recently seen API-key rows (the clients plugin's cache)")
DISPLAY_PREFERENCES: ServiceKey[DisplayPreferences] = ServiceKey(
    "display_preferences", DisplayPreferences, "settings", "theme, text scales and formats of the display")
THEMES: ServiceKey[ThemesService] = ServiceKey("themes", ThemesService, "settings", "theme previews")
SCREENS: ServiceKey[ScreensService] = ServiceKey("screens", ScreensService, "screens", "the enabled slides")
ALERTS: ServiceKey[AlertsService] = ServiceKey("alerts", AlertsService, "alerts", "alerts shown on screen")
OVERLAYS: ServiceKey[OverlaysService] = ServiceKey("overlays", OverlaysService, "overlays", "active overlays")
TICKER: ServiceKey[TickerService] = ServiceKey("ticker", TickerService, "ticker", "the tapes and the marquee cycle")
CURATOR: ServiceKey[CuratorService] = ServiceKey("curator", CuratorService, "curator", "the curator's active view")
CURATOR_RUNTIME: ServiceKey[CuratorRuntime] = ServiceKey(
    "curator_runtime", CuratorRuntime, "curator", "runtime predicate state")
CATEGORIES: ServiceKey[CategoriesService] = ServiceKey(
    "categories", CategoriesService, "curator", "content category vocabulary")
SEARCH: ServiceKey[SearchService] = ServiceKey("rss_search", SearchService, "news", "article word index")
ACCOUNTS: ServiceKey[AccountsService] = ServiceKey(
    "integration_accounts", AccountsService, "integrations", "linked accounts")
ADOPTION: ServiceKey[AdoptionService] = ServiceKey("adoption", AdoptionService, "adoption", "adoption challenges")
ADOPTION_BASE_URL: ServiceKey[str] = ServiceKey(
    "adoption_base_url", str, "host", "URL the adoption QR code names (the server's scheme, address and port)")
INTEGRATIONS: ServiceKey[IntegrationsEngine] = ServiceKey(
    "integrations", IntegrationsEngine, "integrations", "the collector engine")
INTEGRATION_TELEMETRY: ServiceKey[TelemetryLog] = ServiceKey(
    "integration_telemetry", TelemetryLog, "integrations", "collector telemetry")
CORS: ServiceKey[OriginStore] = ServiceKey("cors", OriginStore, "cors", "allowed origins")
CORS_POLICY: ServiceKey[CorsPolicy] = ServiceKey("cors_policy", CorsPolicy, "cors", "private-network origin policy")
ORIGIN_ALLOWED: ServiceKey[Callable[[str], bool]] = ServiceKey(
    "origin_allowed", Callable, "cors", "origin check for WebSocket handshakes")
EVENTS: ServiceKey[ChangeEvents] = ServiceKey("events", ChangeEvents, "host", "change events of the write paths")
DISPLAY: ServiceKey[DisplayRuntime] = ServiceKey(
    "display", DisplayRuntime, "host", "the display runtime (when a canvas runs)")
DISPLAY_MODE: ServiceKey[str] = ServiceKey(
    "display_mode", str, "host", "how the canvas shows: window, offscreen or headless (set when the display starts)")
PROGRAM_TELEMETRY: ServiceKey[ProgramTelemetry] = ServiceKey(
    "program_telemetry", ProgramTelemetry, "display_program", "slide and marquee program lines")
SCREEN_TOPIC = "display_screen"
"""The change event the canvas publishes when what the screen shows, skips or fails at changes."""
SCREEN_REPORT: ServiceKey[ScreenReport] = ServiceKey(
    "screen_report", ScreenReport, "host", "what the screen shows, what is skipped and which renderers fail")
PLAYS: ServiceKey[PlayLog] = ServiceKey(
    "plays", PlayLog, "plays", "proof of play: every slide, alert and overlay shown, persisted")
DISPLAY_CAPTURE: ServiceKey[FrameCapture] = ServiceKey(
    "display_capture", FrameCapture, "host", "live-preview frame capture of the canvas")
CAPTURE_REQUEST: ServiceKey[CaptureRequest] = ServiceKey(
    "capture_request", CaptureRequest, "live_preview", "the live preview's capture size, rate and quality")
LIVE_PREVIEW_TICKETS: ServiceKey[PreviewTickets] = ServiceKey(
    "live_preview_tickets", PreviewTickets, "live_preview", "WebSocket tickets")
HTTP_SERVER_STOP: ServiceKey[Callable[[], None]] = ServiceKey(
    "http_server_stop", Callable, "host", "stops the HTTP server")
HEALTH_SECTIONS: ServiceKey[dict[str, Callable[[], dict[str, Any]]]] = ServiceKey(
    "health_sections", dict, "host",
    "extra GET /v1/health blocks: name -> callable returning a JSON object (plugins add entries)")
CLOUD_FEED: ServiceKey[CloudFeed] = ServiceKey(
    "cloud_feed", CloudFeed, "cloud_feed", "the SaaS feed consumer (SVC_SAAS_MODE=1)")
RUNTIME_SIGNALS: ServiceKey[RuntimeSignals] = ServiceKey(
    "runtime_signals", RuntimeSignals, "runtime_signals", "runtime signals (curator inputs)")
FOLDER_PLUGINS: ServiceKey[FolderPlugins] = ServiceKey(
    "folder_plugins", FolderPlugins, "folder_plugins", "folder plugins and their sidecars")
CANVAS_BLANK: ServiceKey[CanvasBlank] = ServiceKey(
    "canvas_blank", CanvasBlank, "power", "whether the canvas must be dark")
DISPLAY_POWER: ServiceKey[DisplayPower] = ServiceKey(
    "display_power", DisplayPower, "power", "the display's power state")
LISTENING: ServiceKey[Listening] = ServiceKey(
    "listening", Listening, "host", "the URLs and certificate the server announced")
CONTENT_INGEST: ServiceKey[ContentIngest] = ServiceKey(
    "content_ingest", ContentIngest, "host", "item kind -> the writer its owning feature added (hookspecs.content)")
DB_READER: ServiceKey[DbReader] = ServiceKey(
    "db_reader", DbReader, "host", "raw per-thread database reader (API keys, list-cache versions)")
LIST_CACHE: ServiceKey[ListCache] = ServiceKey("list_cache", ListCache, "host", "cached list responses")
BACKUP_JOBS: ServiceKey[BackupJobs] = ServiceKey(
    "maintenance.backup_jobs", BackupJobs, "maintenance", "backup jobs and their worker")

SERVICE_KEYS: tuple[ServiceKey[Any], ...] = (
    SETTINGS, CLIENT_KEYS, API_KEY_PRINCIPALS, DISPLAY_PREFERENCES, THEMES, SCREENS, ALERTS, OVERLAYS, TICKER,
    CURATOR, CURATOR_RUNTIME, SEARCH, ACCOUNTS, ADOPTION, ADOPTION_BASE_URL, INTEGRATIONS, INTEGRATION_TELEMETRY,
    CORS, CORS_POLICY, ORIGIN_ALLOWED, EVENTS, DISPLAY, DISPLAY_MODE, PROGRAM_TELEMETRY, SCREEN_REPORT, PLAYS,
    DISPLAY_CAPTURE, CAPTURE_REQUEST, LIVE_PREVIEW_TICKETS, HTTP_SERVER_STOP, HEALTH_SECTIONS, CLOUD_FEED, CATEGORIES,
    RUNTIME_SIGNALS, FOLDER_PLUGINS, LISTENING, CANVAS_BLANK, DISPLAY_POWER, CONTENT_INGEST,
    DB_READER, LIST_CACHE, BACKUP_JOBS,
)
"""Every builtin service key, each with its owning plugin (``key.owner``) and its type (``key.protocol``)."""


MARQUEE_PREFIX = "ticker.marquee."
"""Plugin marquee lines live in key-value ``ticker.marquee.<plugin id>`` (one line per item): a
``plugin`` ticker tape shows one plugin's, and the ticker lists those no tape claims."""
