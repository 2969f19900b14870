"""The controller's environment (spec 1.1 "Controller BFF variables", CONTRACT "The controller").

``load_controller_settings()`` returns one frozen :class:`ControllerSettings`; a bad value
raises :class:`svc_host.config.ConfigError` (one line naming the variable), exactly as the
display's settings do, with the same parsers.
"""
from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from zoneinfo import ZoneInfo

from svc_host.config import connection_environment, connection_settings
from svc_host.env_values import (ConfigError, env_bool, env_int, env_items, env_log_level, env_path, env_text,
                                 env_tls_pair, env_url)

SESSION_SECRET_MIN = 32
_HOST_NAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$")


@dataclass(frozen=True)
class ControllerSettings:
    data_dir: Path
    auth_enabled: bool = False
    session_secret: str | None = field(default=None, repr=False)
    database_url: str | None = None
    bind: str = "127.0.0.1"
    port: int = 5199
    tls: bool = True
    proxy_upstream_timeout_ms: int = 180_000
    proxy_allowed_hosts: frozenset[str] = frozenset()
    releases_url: str | None = None
    timezone: str = "UTC"
    log_level: str = "INFO"
    login_rate_per_min: int = 10
    scheduler_tick_ms: int = 1000
    fleet_poll_seconds: int = 15
    fleet_concurrency: int = 16
    backup_concurrency: int = 4
    webhook_url: str | None = None
    webhook_secret: str | None = field(default=None, repr=False)
    alert_after_seconds: int = 300
    # the connection layer (svc_host/http/connection/), with the display's defaults
    http_body_timeout_seconds: int = 30
    http_header_timeout_seconds: int = 10
    http_max_pending_bodies_per_address: int = 32
    http_max_connections_per_address: int = 128
    http_max_connections: int = 2048
    test_clock_file: Path | None = None
    # what svc_host.tls.ensure_certificate reads
    http_tls_cert: Path | None = None
    http_tls_key: Path | None = None

    @property
    def tls_dir(self) -> Path:
        return self.data_dir / "tls"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "svc_controller.sqlite3"

    @property
    def backups_dir(self) -> Path:
        return self.data_dir / "backups"


# (variable, ControllerSettings field, summary): every variable the controller reads. ``svc-controller
# serve --help`` prints it, and a set SVC_CONTROLLER_* variable not in it is warned about at start
# (svc_host.config.unknown_variables): a new variable is declared here. docs/controller.md has the
# longer table.
ENVIRONMENT: tuple[tuple[str, str, str], ...] = (
    ("SVC_CONTROLLER_AUTH_ENABLED", "auth_enabled", "1: sign-in required"),
    ("SVC_CONTROLLER_SESSION_SECRET", "session_secret",
     f"signs session cookies; required (at least {SESSION_SECRET_MIN} characters) when auth is on"),
    ("SVC_CONTROLLER_DATA_DIR", "data_dir", "database, tls/, backups/, controller secrets"),
    ("SVC_CONTROLLER_DATABASE_URL", "database_url", "postgres:// URL instead of SQLite in the data dir"),
    ("SVC_CONTROLLER_BIND", "bind", "listen address"),
    ("SVC_CONTROLLER_PORT", "port", "listen port (0: one the OS chooses, written to http-port in the data dir while serving)"),
    ("SVC_CONTROLLER_TLS", "tls", "0: plain HTTP (behind a TLS-terminating proxy only)"),
    ("SVC_CONTROLLER_TLS_CERT", "http_tls_cert", "PEM certificate instead of the generated one (with _KEY)"),
    ("SVC_CONTROLLER_TLS_KEY", "http_tls_key", "PEM key of SVC_CONTROLLER_TLS_CERT"),
    ("SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS", "proxy_upstream_timeout_ms",
     "how long the proxy (and a pull) waits for a display"),
    ("SVC_CONTROLLER_PROXY_ALLOWED_HOSTS", "proxy_allowed_hosts", "comma-separated extra hosts the proxy may reach"),
    ("SVC_CONTROLLER_RELEASES_URL", "releases_url", "URL of the JSON release list"),
    ("SVC_CONTROLLER_TIMEZONE", "timezone", "IANA zone of default backup schedules"),
    ("SVC_CONTROLLER_LOG_LEVEL", "log_level", "log level"),
    ("SVC_CONTROLLER_LOGIN_RATE_PER_MIN", "login_rate_per_min", "sign-in attempts per client address per minute"),
    ("SVC_CONTROLLER_SCHEDULER_TICK_MS", "scheduler_tick_ms", "how often the backup scheduler looks for due targets"),
    ("SVC_CONTROLLER_FLEET_POLL_SECONDS", "fleet_poll_seconds", "how often every display of the fleet is polled"),
    ("SVC_CONTROLLER_FLEET_CONCURRENCY", "fleet_concurrency", "fleet polls at most at once"),
    ("SVC_CONTROLLER_BACKUP_CONCURRENCY", "backup_concurrency", "backup pulls (scheduled and manual) at most at once"),
    ("SVC_CONTROLLER_WEBHOOK_URL", "webhook_url", "POSTed to when a display goes dark and when it recovers"),
    ("SVC_CONTROLLER_WEBHOOK_SECRET", "webhook_secret", "signs webhook bodies (X-Svc-Signature, HMAC-SHA256)"),
    ("SVC_CONTROLLER_ALERT_AFTER_SECONDS", "alert_after_seconds",
     "how long a display is unreachable or degraded before the webhook"),
    *connection_environment("SVC_CONTROLLER_"),
    ("SVC_CONTROLLER_TEST_CLOCK_FILE", "test_clock_file", "tests only: a file holding a clock offset in ms"),
)


def local_zone_name(env: Mapping[str, str]) -> str:
    """The machine's IANA zone: ``TZ``, ``/etc/timezone``, the ``/etc/localtime`` link; else UTC."""
    candidates = [env.get("TZ", "").lstrip(":")]
    try:
        candidates.append(Path("/etc/timezone").read_text().strip())
    except OSError:
        pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if name and valid_zone(name):
            return name
    return "UTC"


def valid_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
        return True
    except (ValueError, OSError, KeyError):
        return False


def _host(name: str, value: str) -> str:
    value = value.strip().lower().rstrip(".")
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    if not _HOST_NAME.match(value):
        raise ConfigError(name, "comma-separated host names or IP addresses", value)
    return value


def load_controller_settings(environ: Mapping[str, str] | None = None) -> ControllerSettings:
    env = os.environ if environ is None else environ

    bind = env_text(env, "SVC_CONTROLLER_BIND") or "127.0.0.1"
    if bind != "localhost":
        try:
            ipaddress.ip_address(bind)
        except ValueError:
            raise ConfigError("SVC_CONTROLLER_BIND", "an IPv4 or IPv6 address (or localhost)", bind) from None

    auth = env_bool(env, "SVC_CONTROLLER_AUTH_ENABLED", False)
    secret = env_text(env, "SVC_CONTROLLER_SESSION_SECRET")
    if auth and not secret:
        raise ConfigError("SVC_CONTROLLER_SESSION_SECRET", "a secret because SVC_CONTROLLER_AUTH_ENABLED=1")
    if secret and len(secret) < SESSION_SECRET_MIN:
        raise ConfigError("SVC_CONTROLLER_SESSION_SECRET", f"at least {SESSION_SECRET_MIN} characters")

    zone = env_text(env, "SVC_CONTROLLER_TIMEZONE")
    if zone is not None and not valid_zone(zone):
        raise ConfigError("SVC_CONTROLLER_TIMEZONE", "an IANA time zone such as Europe/Paris", zone)

    cert, key = env_tls_pair(env, "SVC_CONTROLLER_TLS_CERT", "SVC_CONTROLLER_TLS_KEY")
    allowed = frozenset(_host("SVC_CONTROLLER_PROXY_ALLOWED_HOSTS", part)
                        for part in env_items(env, "SVC_CONTROLLER_PROXY_ALLOWED_HOSTS"))

    return ControllerSettings(
        data_dir=(env_path(env, "SVC_CONTROLLER_DATA_DIR") or Path("data")).absolute(),
        auth_enabled=auth,
        session_secret=secret,
        database_url=env_url(env, "SVC_CONTROLLER_DATABASE_URL", ("postgres", "postgresql")),
        bind=bind,
        port=env_int(env, "SVC_CONTROLLER_PORT", 5199, 0, 65535),
        tls=env_bool(env, "SVC_CONTROLLER_TLS", True),
        proxy_upstream_timeout_ms=env_int(env, "SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS", 180_000, 1, 86_400_000),
        proxy_allowed_hosts=allowed,
        releases_url=env_url(env, "SVC_CONTROLLER_RELEASES_URL", ("http", "https")),
        timezone=zone or local_zone_name(env),
        log_level=env_log_level(env, "SVC_CONTROLLER_LOG_LEVEL"),
        login_rate_per_min=env_int(env, "SVC_CONTROLLER_LOGIN_RATE_PER_MIN", 10, 0, 100_000),
        scheduler_tick_ms=env_int(env, "SVC_CONTROLLER_SCHEDULER_TICK_MS", 1000, 50, 3_600_000),
        fleet_poll_seconds=env_int(env, "SVC_CONTROLLER_FLEET_POLL_SECONDS", 15, 1, 86_400),
        fleet_concurrency=env_int(env, "SVC_CONTROLLER_FLEET_CONCURRENCY", 16, 1, 1024),
        backup_concurrency=env_int(env, "SVC_CONTROLLER_BACKUP_CONCURRENCY", 4, 1, 256),
        webhook_url=env_url(env, "SVC_CONTROLLER_WEBHOOK_URL", ("http", "https")),
        webhook_secret=env_text(env, "SVC_CONTROLLER_WEBHOOK_SECRET"),
        alert_after_seconds=env_int(env, "SVC_CONTROLLER_ALERT_AFTER_SECONDS", 300, 0, 7 * 86_400),
        **connection_settings(env, "SVC_CONTROLLER_"),
        test_clock_file=env_path(env, "SVC_CONTROLLER_TEST_CLOCK_FILE"),
        http_tls_cert=cert,
        http_tls_key=key,
    )
