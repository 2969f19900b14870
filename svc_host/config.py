"""Runtime configuration: the environment of spec 1.1 and CONTRACT, read once.

``load_settings()`` returns one frozen :class:`Settings`; a bad value raises
:class:`ConfigError` whose message is one line naming the variable and what was expected.
"""
from __future__ import annotations

import ipaddress
import logging
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import urlparse

import platformdirs

log = logging.getLogger(__name__)

# Per-provider key variables of older releases: read by nobody, warned about once each.
DEPRECATED_KEY_VARIABLES = (
    "SVC_DISPLAY_OPENAI_API_KEY",
    "SVC_DISPLAY_OPENWEATHER_API_KEY",
    "SVC_DISPLAY_PEXELS_API_KEY",
    "SVC_DISPLAY_ALPHAVANTAGE_API_KEY",
    "SVC_DISPLAY_FLICKR_API_KEY",
)

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
SAAS_VARIABLES = ("SVC_SAAS_API_URL", "SVC_SAAS_DISPLAY_ID", "SVC_SAAS_API_KEY")


class ConfigError(ValueError):
    """One invalid environment value; ``str()`` is the one-line message."""

    def __init__(self, variable: str, expected: str, value: str | None = None):
        shown = "" if value is None else f" (got {value!r})"
        super().__init__(f"{variable}: expected {expected}{shown}")
        self.variable = variable


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    http_port: int = 8787
    http_bind_ip: str = "0.0.0.0"
    http_tls: bool = True
    http_tls_dir: Path | None = None
    http_tls_cert: Path | None = None
    http_tls_key: Path | None = None
    http_cors_origins: tuple[str, ...] = ()
    http_server: str = "uvicorn"
    http_body_timeout_seconds: int = 30
    http_header_timeout_seconds: int = 10
    http_max_pending_bodies_per_address: int = 32
    http_max_connections_per_address: int = 128
    http_max_connections: int = 2048
    list_cache_bytes: int = 16 * 1024 * 1024
    controller_public_url: str | None = None
    database_url: str | None = None
    plugins_dir: Path | None = None
    plugin_start_timeout_seconds: int = 30
    disable_plugins: frozenset[str] = frozenset()
    upgrade_script: Path | None = None
    upgrade_any_arch: bool = False
    upgrade_ca_file: Path | None = None
    upgrade_public_key: Path | None = None
    upgrade_timeout_seconds: int = 1800
    upgrade_max_bytes: int = 1024 ** 3
    live_preview_enabled: bool = True
    live_preview_fps: int = 10
    live_preview_width: int = 720
    live_preview_quality: int = 50
    display_refresh_seconds: int = 10
    window_xid: str | None = None
    google_client_id: str | None = None
    microsoft_client_id: str | None = None
    saas_mode: bool = False
    saas_api_url: str | None = None
    saas_display_id: str | None = None
    saas_api_key: str | None = field(default=None, repr=False)
    saas_reconnect_min_ms: int = 1000
    headless: bool = False
    log_level: str = "INFO"
    adoption_rate_per_min: int = 10
    test_clock_file: Path | None = None
    access_log: bool = False
    deprecated_variables_seen: tuple[str, ...] = ()

    @property
    def tls_dir(self) -> Path:
        return self.http_tls_dir or self.data_dir / "tls"

    @property
    def media_dir(self) -> Path:
        return self.data_dir / "media"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "svc_display.sqlite3"

    @property
    def uses_external_database(self) -> bool:
        return bool(self.database_url)


# Every variable load_settings() reads: (name, Settings field, what it sets). ``svc-display
# serve --help`` prints this table with each field's default; tests/host/test_config.py
# checks that it names every variable read here and that the defaults are the real ones.
ENVIRONMENT: tuple[tuple[str, str, str], ...] = (
    ("SVC_DISPLAY_DATA_DIR", "data_dir", "database, media, TLS certificate, secrets"),
    ("SVC_DISPLAY_HTTP_PORT", "http_port", "port of the REST API and live preview"),
    ("SVC_DISPLAY_HTTP_BIND_IP", "http_bind_ip", "address to listen on (127.0.0.1: this machine only)"),
    ("SVC_DISPLAY_HTTP_TLS", "http_tls", "1: HTTPS with a self-signed certificate; 0: plain HTTP"),
    ("SVC_DISPLAY_HTTP_TLS_DIR", "http_tls_dir", "folder of the generated certificate (default: <data dir>/tls)"),
    ("SVC_DISPLAY_HTTP_TLS_CERT", "http_tls_cert", "your own certificate (PEM), with SVC_DISPLAY_HTTP_TLS_KEY"),
    ("SVC_DISPLAY_HTTP_TLS_KEY", "http_tls_key", "your own private key (PEM), with SVC_DISPLAY_HTTP_TLS_CERT"),
    ("SVC_DISPLAY_HTTP_CORS_ORIGINS", "http_cors_origins", "comma-separated browser origins allowed by CORS"),
    ("SVC_DISPLAY_HTTP_SERVER", "http_server", "uvicorn, or waitress (plain HTTP behind a proxy)"),
    ("SVC_DISPLAY_HTTP_BODY_TIMEOUT_SECONDS", "http_body_timeout_seconds", "a request body must arrive within"),
    ("SVC_DISPLAY_HTTP_HEADER_TIMEOUT_SECONDS", "http_header_timeout_seconds",
     "a request line and headers must arrive within"),
    ("SVC_DISPLAY_HTTP_MAX_PENDING_BODIES_PER_ADDRESS", "http_max_pending_bodies_per_address",
     "requests one address may have still sending their body"),
    ("SVC_DISPLAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "http_max_connections_per_address",
     "connections one client address may hold open (TLS handshakes included)"),
    ("SVC_DISPLAY_HTTP_MAX_CONNECTIONS", "http_max_connections", "connections the server holds open in all"),
    ("SVC_DISPLAY_LIST_CACHE_BYTES", "list_cache_bytes",
     "memory cap of cached list responses (svc_host/rest/listcache.py); 0: no cache"),
    ("SVC_DISPLAY_ACCESS_LOG", "access_log", "1: log one line per HTTP request"),
    ("SVC_DISPLAY_HEADLESS", "headless", "1: no canvas (the console shows adoption codes)"),
    ("SVC_DISPLAY_LOG_LEVEL", "log_level", "DEBUG, INFO, WARNING, ERROR or CRITICAL"),
    ("SVC_DISPLAY_DATABASE_URL", "database_url", "postgresql://... instead of the SQLite file"),
    ("SVC_DISPLAY_PLUGINS_DIR", "plugins_dir", "folder of extra plugins"),
    ("SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS", "plugin_start_timeout_seconds",
     "a folder plugin's sidecar must answer its health path within (else it is restarted)"),
    ("SVC_DISPLAY_DISABLE_PLUGINS", "disable_plugins",
     "comma-separated plugin names not to load (entry points or folder plugins; others are refused)"),
    ("SVC_DISPLAY_CONTROLLER_PUBLIC_URL", "controller_public_url", "URL of the controller app (invite QR code)"),
    ("SVC_DISPLAY_UPGRADE_SCRIPT", "upgrade_script", "script run by the upgrade route"),
    ("SVC_DISPLAY_UPGRADE_ANY_ARCH", "upgrade_any_arch", "1: upgrades on any architecture, not only arm64"),
    ("SVC_DISPLAY_UPGRADE_CA_FILE", "upgrade_ca_file", "PEM bundle trusted for upgrade downloads (else system CAs)"),
    ("SVC_DISPLAY_UPGRADE_PUBLIC_KEY", "upgrade_public_key", "Ed25519 public key (PEM): upgrades need a valid .sig"),
    ("SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS", "upgrade_timeout_seconds", "time limit of the upgrade script"),
    ("SVC_DISPLAY_UPGRADE_MAX_BYTES", "upgrade_max_bytes", "largest upgrade download"),
    ("SVC_DISPLAY_LIVE_PREVIEW_ENABLED", "live_preview_enabled", "1: the live-preview WebSocket is offered"),
    ("SVC_DISPLAY_LIVE_PREVIEW_FPS", "live_preview_fps", "live-preview frames per second"),
    ("SVC_DISPLAY_LIVE_PREVIEW_WIDTH", "live_preview_width", "live-preview frame width in pixels"),
    ("SVC_DISPLAY_LIVE_PREVIEW_QUALITY", "live_preview_quality", "live-preview JPEG quality"),
    ("SVC_DISPLAY_REFRESH_SECONDS", "display_refresh_seconds",
     "the canvas re-reads everything this often as a safety net (change events show at once)"),
    ("SVC_DISPLAY_WINDOW_XID", "window_xid",
     "ignored (spec: the X11 window to capture): the live preview reads the canvas's own pixels"),
    ("SVC_DISPLAY_GOOGLE_CLIENT_ID", "google_client_id", "OAuth client id for Google accounts"),
    ("SVC_DISPLAY_MICROSOFT_CLIENT_ID", "microsoft_client_id", "OAuth client id for Microsoft accounts"),
    ("SVC_DISPLAY_ADOPTION_RATE_PER_MIN", "adoption_rate_per_min", "adoption requests per minute (0: no limit)"),
    ("SVC_SAAS_MODE", "saas_mode", "1: managed by a SaaS controller (needs the three below)"),
    ("SVC_SAAS_API_URL", "saas_api_url", "the SaaS controller's URL"),
    ("SVC_SAAS_DISPLAY_ID", "saas_display_id", "this display's id at the controller"),
    ("SVC_SAAS_API_KEY", "saas_api_key", "this display's key at the controller"),
    ("SVC_SAAS_RECONNECT_MIN_MS", "saas_reconnect_min_ms", "cloud feed reconnect backoff floor in ms (10-60000)"),
    ("SVC_DISPLAY_TEST_CLOCK_FILE", "test_clock_file", "tests only: a file holding a clock offset in ms"),
)


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("svc-display"))


def environment_help(table: Sequence[tuple[str, str, str]] = ENVIRONMENT, settings_class: type | None = None,
                     shown: Mapping[str, Any] | None = None) -> str:
    """A table of ``(variable, settings field, summary)`` with each variable's default (the
    settings class's field default, or ``shown[field]`` for defaults computed at start), for
    ``serve --help``: the display's by default, the controller's from svc_controller/config.py."""
    defaults = {f.name: f.default for f in fields(settings_class or Settings)}
    defaults.update(shown if shown is not None else {"data_dir": default_data_dir()})
    lines = ["environment variables (default in brackets):"]
    for name, field_name, summary in table:
        value = defaults[field_name]
        if isinstance(value, bool):
            shown = "1" if value else "0"
        elif value in (None, (), frozenset()):
            shown = "unset"
        else:
            shown = str(value)
        lines.append(f"  {name} [{shown}]\n      {summary}")
    return "\n".join(lines)


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _text(env, name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(name, "1 or 0", value)


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    value = _text(env, name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(name, f"an integer from {low} to {high}", value) from None
    if not low <= number <= high:
        raise ConfigError(name, f"an integer from {low} to {high}", value)
    return number


def _path(env: Mapping[str, str], name: str) -> Path | None:
    value = _text(env, name)
    return Path(value).expanduser() if value else None


def _url(env: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str | None:
    value = _text(env, name)
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes or not parsed.netloc:
        raise ConfigError(name, f"a {' or '.join(s + '://' for s in schemes)} URL", value)
    return value


def _origin(name: str, value: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or "*" in value:
        raise ConfigError(name, "comma-separated exact http(s) origins without wildcards", value)
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ConfigError(name, "origins without a path", value)
    return f"{parsed.scheme}://{parsed.netloc.lower()}"


def connection_settings(env: Mapping[str, str], prefix: str) -> dict[str, int]:
    """The connection layer's settings (svc_host/http/connection.py) from ``<prefix>HTTP_*``:
    the display's (``SVC_DISPLAY_``) and the controller's (``SVC_CONTROLLER_``)."""
    return {
        "http_body_timeout_seconds": _int(env, f"{prefix}HTTP_BODY_TIMEOUT_SECONDS", 30, 1, 3600),
        "http_header_timeout_seconds": _int(env, f"{prefix}HTTP_HEADER_TIMEOUT_SECONDS", 10, 1, 3600),
        "http_max_pending_bodies_per_address": _int(env, f"{prefix}HTTP_MAX_PENDING_BODIES_PER_ADDRESS", 32, 1,
                                                    100000),
        "http_max_connections_per_address": _int(env, f"{prefix}HTTP_MAX_CONNECTIONS_PER_ADDRESS", 128, 1, 100000),
        "http_max_connections": _int(env, f"{prefix}HTTP_MAX_CONNECTIONS", 2048, 1, 1000000),
    }


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Parse the environment into :class:`Settings`; raise :class:`ConfigError` on a bad value."""
    env = os.environ if environ is None else environ

    bind_ip = _text(env, "SVC_DISPLAY_HTTP_BIND_IP") or "0.0.0.0"
    try:
        ipaddress.ip_address(bind_ip)
    except ValueError:
        raise ConfigError("SVC_DISPLAY_HTTP_BIND_IP", "an IPv4 or IPv6 address", bind_ip) from None

    server = (_text(env, "SVC_DISPLAY_HTTP_SERVER") or "uvicorn").lower()
    if server not in ("uvicorn", "waitress"):
        raise ConfigError("SVC_DISPLAY_HTTP_SERVER", "uvicorn or waitress", server)

    log_level = (_text(env, "SVC_DISPLAY_LOG_LEVEL") or "INFO").upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError("SVC_DISPLAY_LOG_LEVEL", "one of " + ", ".join(LOG_LEVELS), log_level)

    cors = tuple(
        _origin("SVC_DISPLAY_HTTP_CORS_ORIGINS", part.strip())
        for part in (_text(env, "SVC_DISPLAY_HTTP_CORS_ORIGINS") or "").split(",")
        if part.strip()
    )

    cert, key = _path(env, "SVC_DISPLAY_HTTP_TLS_CERT"), _path(env, "SVC_DISPLAY_HTTP_TLS_KEY")
    if bool(cert) != bool(key):
        missing = "SVC_DISPLAY_HTTP_TLS_KEY" if cert else "SVC_DISPLAY_HTTP_TLS_CERT"
        raise ConfigError(missing, "to be set together with its certificate/key counterpart")

    saas_mode = _bool(env, "SVC_SAAS_MODE", False)
    saas = {name: _text(env, name) for name in SAAS_VARIABLES}
    if saas_mode:
        for name in SAAS_VARIABLES:
            if not saas[name]:
                raise ConfigError(name, "a value because SVC_SAAS_MODE=1")
        _url(env, "SVC_SAAS_API_URL", ("http", "https"))

    if env.get("SVC_DISPLAY_DATA_DIR") is not None and not env["SVC_DISPLAY_DATA_DIR"].strip():
        # set but empty: a typo or an unset shell variable, not a wish for the default dir
        raise ConfigError("SVC_DISPLAY_DATA_DIR", "a folder path (unset the variable for the default "
                          f"{default_data_dir()})", env["SVC_DISPLAY_DATA_DIR"])
    data_dir = _path(env, "SVC_DISPLAY_DATA_DIR") or default_data_dir()
    disabled = frozenset(
        part.strip() for part in (_text(env, "SVC_DISPLAY_DISABLE_PLUGINS") or "").split(",") if part.strip()
    )

    return Settings(
        data_dir=data_dir,
        http_port=_int(env, "SVC_DISPLAY_HTTP_PORT", 8787, 1, 65535),
        http_bind_ip=bind_ip,
        http_tls=_bool(env, "SVC_DISPLAY_HTTP_TLS", True),
        http_tls_dir=_path(env, "SVC_DISPLAY_HTTP_TLS_DIR"),
        http_tls_cert=cert,
        http_tls_key=key,
        http_cors_origins=cors,
        http_server=server,
        **connection_settings(env, "SVC_DISPLAY_"),
        list_cache_bytes=_int(env, "SVC_DISPLAY_LIST_CACHE_BYTES", 16 * 1024 * 1024, 0, 1 << 40),
        controller_public_url=_url(env, "SVC_DISPLAY_CONTROLLER_PUBLIC_URL", ("http", "https")),
        database_url=_url(env, "SVC_DISPLAY_DATABASE_URL", ("postgres", "postgresql")),
        plugins_dir=_path(env, "SVC_DISPLAY_PLUGINS_DIR"),
        plugin_start_timeout_seconds=_int(env, "SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS", 30, 1, 600),
        disable_plugins=disabled,
        upgrade_script=_path(env, "SVC_DISPLAY_UPGRADE_SCRIPT"),
        upgrade_any_arch=_bool(env, "SVC_DISPLAY_UPGRADE_ANY_ARCH", False),
        upgrade_ca_file=_path(env, "SVC_DISPLAY_UPGRADE_CA_FILE"),
        upgrade_public_key=_path(env, "SVC_DISPLAY_UPGRADE_PUBLIC_KEY"),
        # Both only ever lower the contract's limits (30 min, 1 GiB): tests and small boards.
        upgrade_timeout_seconds=_int(env, "SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS", 1800, 1, 1800),
        upgrade_max_bytes=_int(env, "SVC_DISPLAY_UPGRADE_MAX_BYTES", 1024 ** 3, 1, 1024 ** 3),
        live_preview_enabled=_bool(env, "SVC_DISPLAY_LIVE_PREVIEW_ENABLED", True),
        live_preview_fps=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_FPS", 10, 1, 60),
        live_preview_width=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_WIDTH", 720, 64, 3840),
        live_preview_quality=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_QUALITY", 50, 1, 100),
        display_refresh_seconds=_int(env, "SVC_DISPLAY_REFRESH_SECONDS", 10, 1, 86400),
        window_xid=_text(env, "SVC_DISPLAY_WINDOW_XID"),
        google_client_id=_text(env, "SVC_DISPLAY_GOOGLE_CLIENT_ID"),
        microsoft_client_id=_text(env, "SVC_DISPLAY_MICROSOFT_CLIENT_ID"),
        saas_mode=saas_mode,
        saas_api_url=saas["SVC_SAAS_API_URL"],
        saas_display_id=saas["SVC_SAAS_DISPLAY_ID"],
        saas_api_key=saas["SVC_SAAS_API_KEY"],
        saas_reconnect_min_ms=_int(env, "SVC_SAAS_RECONNECT_MIN_MS", 1000, 10, 60000),
        headless=_bool(env, "SVC_DISPLAY_HEADLESS", False),
        log_level=log_level,
        adoption_rate_per_min=_int(env, "SVC_DISPLAY_ADOPTION_RATE_PER_MIN", 10, 0, 100000),
        test_clock_file=_path(env, "SVC_DISPLAY_TEST_CLOCK_FILE"),
        access_log=_bool(env, "SVC_DISPLAY_ACCESS_LOG", False),
        deprecated_variables_seen=tuple(n for n in DEPRECATED_KEY_VARIABLES if _text(env, n)),
    )


def make_data_dir(settings: Settings) -> None:
    """Create the data dir (0700) before any plugin uses it; one that cannot be created is the
    variable's fault (a path under a file, no permission), said as a :class:`ConfigError`."""
    try:
        settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not settings.data_dir.is_dir():
            raise NotADirectoryError(20, "Not a directory", str(settings.data_dir))
    except OSError as exc:
        reason = f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc.strerror or exc)
        raise ConfigError("SVC_DISPLAY_DATA_DIR", f"a folder this user can create ({reason})",
                          str(settings.data_dir)) from None


def warn_deprecated(settings: Settings) -> None:
    """Log one warning per deprecated provider-key variable that is set (never its value)."""
    for name in settings.deprecated_variables_seen:
        log.warning("%s is deprecated and ignored: enter provider keys through the integrations API", name)
    if settings.window_xid:
        # The spec names the window an external tool would capture for the live preview; here the
        # preview is drawn from the canvas's own render context (svc_host/display/capture.py), so
        # no window is captured, and Kivy's SDL2 window cannot draw into a foreign X window.
        log.warning("SVC_DISPLAY_WINDOW_XID is ignored: the live preview is read from the canvas itself, "
                    "no X window is captured")
