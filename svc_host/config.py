"""Runtime configuration: the environment of spec 1.1 and CONTRACT, read once.

``load_settings()`` returns one frozen :class:`Settings`; a bad value raises
:class:`ConfigError` whose message is one line naming the variable and what was expected.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import logging
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence
from urllib.parse import urlparse

import platformdirs

from hookspecs.settings import Setting, SettingValues

if TYPE_CHECKING:  # pragma: no cover
    from svc_host.plugins import PluginHost

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


class ConfigError(ValueError):
    """One invalid environment value; ``str()`` is the one-line message."""

    def __init__(self, variable: str, expected: str, value: str | None = None, plugin: str | None = None):
        shown = "" if value is None else f" (got {value!r})"
        owner = "" if plugin is None else f" [declared by plugin {plugin!r}]"
        super().__init__(f"{variable}: expected {expected}{shown}{owner}")
        self.variable = variable
        self.plugin = plugin


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
    database_url: str | None = None
    disable_plugins: frozenset[str] = frozenset()
    display_refresh_seconds: int = 10
    window_xid: str | None = None
    saas_mode: bool = False
    headless: bool = False
    log_level: str = "INFO"
    test_clock_file: Path | None = None
    access_log: bool = False
    deprecated_variables_seen: tuple[str, ...] = ()
    # The SVC_* variables load_settings() saw, for the plugins' declared ones (read_plugin_settings).
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False, hash=False)
    # Each plugin's values of its register_settings() declarations; None until they are read.
    plugin_settings: Mapping[str, SettingValues] | None = field(default=None, repr=False, compare=False,
                                                                  hash=False)

    def plugin_values(self, plugin: str) -> SettingValues:
        """``plugin``'s typed values of the variables it declares (empty when it declares none)."""
        if self.plugin_settings is None:
            raise RuntimeError("plugin settings are read at start (svc_host.config.read_plugin_settings)")
        return self.plugin_settings.get(plugin) or SettingValues({})

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
    ("SVC_DISPLAY_DISABLE_PLUGINS", "disable_plugins",
     "comma-separated plugin names not to load (entry points or folder plugins; others are refused)"),
    ("SVC_DISPLAY_REFRESH_SECONDS", "display_refresh_seconds",
     "the canvas re-reads everything this often as a safety net (change events show at once)"),
    ("SVC_DISPLAY_WINDOW_XID", "window_xid",
     "ignored (spec: the X11 window to capture): the live preview reads the canvas's own pixels"),
    ("SVC_SAAS_MODE", "saas_mode",
     "1: fed by the SaaS controller's cloud feed, no local collectors (the cloud_feed plugin's SVC_SAAS_* needed)"),
    ("SVC_DISPLAY_TEST_CLOCK_FILE", "test_clock_file", "tests only: a file holding a clock offset in ms"),
)


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("svc-display"))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value in (None, (), frozenset(), ""):
        return "unset"
    return str(value)


Declarations = Iterable[tuple[str, Iterable[Setting]]]


def environment_table(declarations: Declarations = (), table: Sequence[tuple[str, str, str]] = ENVIRONMENT,
                      settings_class: type | None = None, shown: Mapping[str, Any] | None = None) \
        -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Every variable, the host's first then plugin by plugin: ``[(owner, [(name, default, help)])]``.
    The one source of ``serve --help`` and of the table in docs/configuration.md. ``table`` of
    ``(variable, settings field, summary)``: the display's by default, the controller's from
    svc_controller/config.py; a default is the settings class's field default or ``shown[field]``."""
    defaults = {f.name: f.default for f in fields(settings_class or Settings)}
    defaults.update(shown if shown is not None else {"data_dir": "<user data dir>/svc-display"})
    host = [(name, _shown(defaults[field_name]), summary) for name, field_name, summary in table]
    table = [("host", host)]
    for plugin, items in declarations:
        rows = [(item.name, "(secret)" if item.secret and item.default is not None else _shown(item.default),
                 _declared_help(item)) for item in items]
        if rows:
            table.append((f"plugin {plugin}", rows))
    return table


def _declared_help(item: Setting) -> str:
    """The declaration's help with its checks (range, required), as the host enforces them."""
    notes = []
    if item.low is not None or item.high is not None:
        notes.append(f"{_shown(item.low) if item.low is not None else ''}-{item.high if item.high is not None else ''}")
    if item.required_when:
        notes.append(f"required when {item.required_when}=1")
    return item.help + (f" ({'; '.join(notes)})" if notes else "")


def environment_help(table: Sequence[tuple[str, str, str]] = ENVIRONMENT, settings_class: type | None = None,
                     shown: Mapping[str, Any] | None = None, declarations: Declarations = ()) -> str:
    """:func:`environment_table` with each variable's default, for ``serve --help``."""
    lines = ["environment variables (default in brackets):"]
    sections = environment_table(declarations, table, settings_class,
                                 {"data_dir": default_data_dir()} if shown is None else shown)
    for owner, rows in sections:
        if len(sections) > 1:  # the display's: the host's, then each plugin's
            lines.append(f"\n {owner}:")
        lines += [f"  {name} [{default}]\n      {summary}" for name, default, summary in rows]
    return "\n".join(lines)


DOCS_MARKERS = ("<!-- environment: generated by svc_host.config.write_environment_docs -->",
                "<!-- /environment -->")


def environment_markdown(declarations: Declarations) -> str:
    """The same table as Markdown, for docs/configuration.md (tests/host/test_plugin_settings.py
    checks that the file holds it)."""
    lines = []
    for owner, rows in environment_table(declarations):
        lines += [f"### {owner}", "", "| variable | default | what it sets |", "| --- | --- | --- |"]
        lines += [f"| `{name}` | {default} | {summary.replace('|', '/')} |" for name, default, summary in rows]
        lines.append("")
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
    return _number(env, name, default, low, high, int)


def _number(env: Mapping[str, str], name: str, default: Any, low: float, high: float, kind: type = int) -> Any:
    """``kind`` (``int`` or ``float``) within ``low``..``high``, or ``default`` when unset."""
    value = _text(env, name)
    if value is None:
        return default
    expected = f"{'an integer' if kind is int else 'a number'} from {low} to {high}"
    try:
        number = kind(value)
    except ValueError:
        raise ConfigError(name, expected, value) from None
    if not low <= number <= high:
        raise ConfigError(name, expected, value)
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


def _items(env: Mapping[str, str], name: str) -> list[str]:
    """A comma-separated list, each item stripped, empty ones dropped."""
    return [part.strip() for part in (_text(env, name) or "").split(",") if part.strip()]


def _log_level(env: Mapping[str, str], name: str) -> str:
    level = (_text(env, name) or "INFO").upper()
    if level not in LOG_LEVELS:
        raise ConfigError(name, "one of " + ", ".join(LOG_LEVELS), level)
    return level


def _tls_pair(env: Mapping[str, str], cert_name: str, key_name: str) -> tuple[Path | None, Path | None]:
    """Your own certificate and key (PEM): both or neither."""
    cert, key = _path(env, cert_name), _path(env, key_name)
    if bool(cert) != bool(key):
        raise ConfigError(key_name if cert else cert_name, "to be set together with its certificate/key counterpart")
    return cert, key


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

    cors = tuple(_origin("SVC_DISPLAY_HTTP_CORS_ORIGINS", part)
                 for part in _items(env, "SVC_DISPLAY_HTTP_CORS_ORIGINS"))
    cert, key = _tls_pair(env, "SVC_DISPLAY_HTTP_TLS_CERT", "SVC_DISPLAY_HTTP_TLS_KEY")

    if env.get("SVC_DISPLAY_DATA_DIR") is not None and not env["SVC_DISPLAY_DATA_DIR"].strip():
        # set but empty: a typo or an unset shell variable, not a wish for the default dir
        raise ConfigError("SVC_DISPLAY_DATA_DIR", "a folder path (unset the variable for the default "
                          f"{default_data_dir()})", env["SVC_DISPLAY_DATA_DIR"])
    data_dir = _path(env, "SVC_DISPLAY_DATA_DIR") or default_data_dir()

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
        database_url=_url(env, "SVC_DISPLAY_DATABASE_URL", ("postgres", "postgresql")),
        disable_plugins=frozenset(_items(env, "SVC_DISPLAY_DISABLE_PLUGINS")),
        display_refresh_seconds=_int(env, "SVC_DISPLAY_REFRESH_SECONDS", 10, 1, 86400),
        window_xid=_text(env, "SVC_DISPLAY_WINDOW_XID"),
        saas_mode=_bool(env, "SVC_SAAS_MODE", False),
        headless=_bool(env, "SVC_DISPLAY_HEADLESS", False),
        log_level=_log_level(env, "SVC_DISPLAY_LOG_LEVEL"),
        test_clock_file=_path(env, "SVC_DISPLAY_TEST_CLOCK_FILE"),
        access_log=_bool(env, "SVC_DISPLAY_ACCESS_LOG", False),
        deprecated_variables_seen=tuple(n for n in DEPRECATED_KEY_VARIABLES if _text(env, n)),
        environ={name: value for name, value in env.items() if name.startswith("SVC_")},
    )


def write_environment_docs(path: Path, declarations: Iterable[tuple[str, Iterable[Setting]]]) -> bool:
    """Put :func:`environment_markdown` between the :data:`DOCS_MARKERS` of ``path``; True if it changed."""
    text = path.read_text()
    start, end = text.index(DOCS_MARKERS[0]) + len(DOCS_MARKERS[0]), text.index(DOCS_MARKERS[1])
    new = text[:start] + "\n\n" + environment_markdown(declarations) + "\n" + text[end:]
    if new != text:
        path.write_text(new)
    return new != text


def declared_settings(plugins: PluginHost) -> list[tuple[str, list[Setting]]]:
    """Each plugin's ``register_settings`` declarations, checked: a wrong type, or a name the host
    or another plugin already reads, stops the start naming the plugin."""
    from svc_host.plugins import PluginSkipped, _collect

    taken = {name: "the host" for name, _field, _summary in ENVIRONMENT}
    while True:
        try:
            declared = _collect(plugins, "register_settings", Setting)
            break
        except PluginSkipped:  # a third-party plugin's bad declaration: logged, unregistered; again without it
            continue
    for plugin, items in declared:
        for item in items:
            if item.name in taken:
                raise ConfigError(item.name, f"one declaration (also read by {taken[item.name]})", plugin=plugin)
            taken[item.name] = f"plugin {plugin!r}"
    return declared


def _declared_value(env: Mapping[str, str], item: Setting, plugin: str) -> Any:
    try:
        if item.type is bool:
            return _bool(env, item.name, item.default)
        if item.type in (int, float):
            unbounded = (1 << 63) if item.type is int else float("inf")
            return _number(env, item.name, item.default, -unbounded if item.low is None else item.type(item.low),
                           unbounded if item.high is None else item.type(item.high), item.type)
        if item.type is Path:
            value = _path(env, item.name)
        elif item.schemes:
            value = _url(env, item.name, item.schemes)
        else:
            value = _text(env, item.name)
        if value is not None and item.choices:
            value = value.lower()
            if value not in item.choices:
                raise ConfigError(item.name, "one of " + ", ".join(item.choices), value)
        if value is None and item.required_when and _bool(env, item.required_when, False):
            raise ConfigError(item.name, f"a value because {item.required_when}=1")
        return item.default if value is None else value
    except ConfigError as exc:  # name the plugin whose declaration it breaks
        raise ConfigError(item.name, str(exc).split(": expected ", 1)[1], plugin=plugin) from None


def read_plugin_settings(settings: Settings, plugins: PluginHost) -> Settings:
    """``settings`` with every plugin's declared variables read from the environment it was loaded
    from; raise :class:`ConfigError` naming the variable and the plugin on a bad value."""
    values = {
        plugin: SettingValues({item.key: _declared_value(settings.environ, item, plugin) for item in items})
        for plugin, items in declared_settings(plugins)
    }
    return dataclasses.replace(settings, plugin_settings=values)


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
