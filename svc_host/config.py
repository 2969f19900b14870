"""Runtime configuration: the environment of spec 1.1 and CONTRACT, read once.

``load_settings()`` returns one frozen :class:`Settings`; a bad value raises
:class:`ConfigError` whose message is one line naming the variable and what was expected.
"""
from __future__ import annotations

import ipaddress
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
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
    controller_public_url: str | None = None
    database_url: str | None = None
    plugins_dir: Path | None = None
    disable_plugins: frozenset[str] = frozenset()
    upgrade_script: Path | None = None
    live_preview_enabled: bool = True
    live_preview_fps: int = 10
    live_preview_width: int = 720
    live_preview_quality: int = 50
    window_xid: str | None = None
    google_client_id: str | None = None
    microsoft_client_id: str | None = None
    saas_mode: bool = False
    saas_api_url: str | None = None
    saas_display_id: str | None = None
    saas_api_key: str | None = field(default=None, repr=False)
    headless: bool = False
    log_level: str = "INFO"
    adoption_rate_per_min: int = 10
    test_clock_file: Path | None = None
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

    data_dir = _path(env, "SVC_DISPLAY_DATA_DIR") or Path(platformdirs.user_data_dir("svc-display"))
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
        controller_public_url=_url(env, "SVC_DISPLAY_CONTROLLER_PUBLIC_URL", ("http", "https")),
        database_url=_url(env, "SVC_DISPLAY_DATABASE_URL", ("postgres", "postgresql")),
        plugins_dir=_path(env, "SVC_DISPLAY_PLUGINS_DIR"),
        disable_plugins=disabled,
        upgrade_script=_path(env, "SVC_DISPLAY_UPGRADE_SCRIPT"),
        live_preview_enabled=_bool(env, "SVC_DISPLAY_LIVE_PREVIEW_ENABLED", True),
        live_preview_fps=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_FPS", 10, 1, 60),
        live_preview_width=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_WIDTH", 720, 64, 3840),
        live_preview_quality=_int(env, "SVC_DISPLAY_LIVE_PREVIEW_QUALITY", 50, 1, 100),
        window_xid=_text(env, "SVC_DISPLAY_WINDOW_XID"),
        google_client_id=_text(env, "SVC_DISPLAY_GOOGLE_CLIENT_ID"),
        microsoft_client_id=_text(env, "SVC_DISPLAY_MICROSOFT_CLIENT_ID"),
        saas_mode=saas_mode,
        saas_api_url=saas["SVC_SAAS_API_URL"],
        saas_display_id=saas["SVC_SAAS_DISPLAY_ID"],
        saas_api_key=saas["SVC_SAAS_API_KEY"],
        headless=_bool(env, "SVC_DISPLAY_HEADLESS", False),
        log_level=log_level,
        adoption_rate_per_min=_int(env, "SVC_DISPLAY_ADOPTION_RATE_PER_MIN", 10, 0, 100000),
        test_clock_file=_path(env, "SVC_DISPLAY_TEST_CLOCK_FILE"),
        deprecated_variables_seen=tuple(n for n in DEPRECATED_KEY_VARIABLES if _text(env, n)),
    )


def warn_deprecated(settings: Settings) -> None:
    """Log one warning per deprecated provider-key variable that is set (never its value)."""
    for name in settings.deprecated_variables_seen:
        log.warning("%s is deprecated and ignored: enter provider keys through the integrations API", name)
