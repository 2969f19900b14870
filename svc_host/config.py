"""Runtime configuration: the environment of spec 1.1 and CONTRACT, read once.

``load_settings()`` returns one frozen :class:`Settings`; a bad value raises
:class:`ConfigError` whose message is one line naming the variable and what was expected.
"""
from __future__ import annotations

import dataclasses
import difflib
import errno
import ipaddress
import logging
import os
import socket
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import platformdirs

from hookspecs.settings import Setting, SettingValues
from svc_host.env_values import (ConfigError, checked_origin, env_bool, env_int, env_items, env_log_level,
                                 env_number, env_path, env_text, env_tls_pair, env_url, env_window_size)

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
    window_size: str | None = None
    max_fps: int = 60
    multisamples: int = 0
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


def connection_environment(prefix: str) -> tuple[tuple[str, str, str], ...]:
    """The rows of :func:`connection_settings`' variables in an environment table."""
    return (
        (f"{prefix}HTTP_BODY_TIMEOUT_SECONDS", "http_body_timeout_seconds", "a request body must arrive within"),
        (f"{prefix}HTTP_HEADER_TIMEOUT_SECONDS", "http_header_timeout_seconds",
         "a request line and headers must arrive within"),
        (f"{prefix}HTTP_MAX_PENDING_BODIES_PER_ADDRESS", "http_max_pending_bodies_per_address",
         "requests one address may have still sending their body"),
        (f"{prefix}HTTP_MAX_CONNECTIONS_PER_ADDRESS", "http_max_connections_per_address",
         "connections one client address may hold open (TLS handshakes included)"),
        (f"{prefix}HTTP_MAX_CONNECTIONS", "http_max_connections", "connections the server holds open in all"),
    )


# Every variable load_settings() reads: (name, Settings field, what it sets). ``svc-display
# serve --help`` prints this table with each field's default; tests/host/test_config.py
# checks that it names every variable read here and that the defaults are the real ones. A set
# SVC_DISPLAY_* variable neither here nor in a plugin's register_settings is warned about at start
# (unknown_variables): a new variable is declared here (or by its plugin), nowhere else.
ENVIRONMENT: tuple[tuple[str, str, str], ...] = (
    ("SVC_DISPLAY_DATA_DIR", "data_dir", "database, media, TLS certificate, secrets"),
    ("SVC_DISPLAY_HTTP_PORT", "http_port", "port of the REST API and live preview (0: one the OS chooses, "
                                       "written to http-port in the data dir while serving)"),
    ("SVC_DISPLAY_HTTP_BIND_IP", "http_bind_ip", "address to listen on (127.0.0.1: this machine only)"),
    ("SVC_DISPLAY_HTTP_TLS", "http_tls", "1: HTTPS with a self-signed certificate; 0: plain HTTP"),
    ("SVC_DISPLAY_HTTP_TLS_DIR", "http_tls_dir", "folder of the generated certificate (default: <data dir>/tls)"),
    ("SVC_DISPLAY_HTTP_TLS_CERT", "http_tls_cert", "your own certificate (PEM), with SVC_DISPLAY_HTTP_TLS_KEY"),
    ("SVC_DISPLAY_HTTP_TLS_KEY", "http_tls_key", "your own private key (PEM), with SVC_DISPLAY_HTTP_TLS_CERT"),
    ("SVC_DISPLAY_HTTP_CORS_ORIGINS", "http_cors_origins", "comma-separated browser origins allowed by CORS"),
    ("SVC_DISPLAY_HTTP_SERVER", "http_server", "uvicorn, or waitress (plain HTTP behind a proxy)"),
    *connection_environment("SVC_DISPLAY_"),
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
    ("SVC_DISPLAY_WINDOW_SIZE", "window_size",
     "WIDTHxHEIGHT of a window instead of fullscreen (offscreen canvas: default 1920x1080)"),
    ("SVC_DISPLAY_MAX_FPS", "max_fps", "frames a second the canvas draws at most (0: as fast as it can)"),
    ("SVC_DISPLAY_MULTISAMPLES", "multisamples", "OpenGL multisampling (anti-aliasing) samples; 0: none"),
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


def connection_settings(env: Mapping[str, str], prefix: str) -> dict[str, int]:
    """The connection layer's settings (svc_host/http/connection.py) from ``<prefix>HTTP_*``:
    the display's (``SVC_DISPLAY_``) and the controller's (``SVC_CONTROLLER_``)."""
    return {
        "http_body_timeout_seconds": env_int(env, f"{prefix}HTTP_BODY_TIMEOUT_SECONDS", 30, 1, 3600),
        "http_header_timeout_seconds": env_int(env, f"{prefix}HTTP_HEADER_TIMEOUT_SECONDS", 10, 1, 3600),
        "http_max_pending_bodies_per_address": env_int(env, f"{prefix}HTTP_MAX_PENDING_BODIES_PER_ADDRESS", 32, 1,
                                                    100000),
        "http_max_connections_per_address": env_int(env, f"{prefix}HTTP_MAX_CONNECTIONS_PER_ADDRESS", 128, 1, 100000),
        "http_max_connections": env_int(env, f"{prefix}HTTP_MAX_CONNECTIONS", 2048, 1, 1000000),
    }


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Parse the environment into :class:`Settings`; raise :class:`ConfigError` on a bad value."""
    env = os.environ if environ is None else environ

    bind_ip = env_text(env, "SVC_DISPLAY_HTTP_BIND_IP") or "0.0.0.0"
    try:
        ipaddress.ip_address(bind_ip)
    except ValueError:
        raise ConfigError("SVC_DISPLAY_HTTP_BIND_IP", "an IPv4 or IPv6 address", bind_ip) from None

    server = (env_text(env, "SVC_DISPLAY_HTTP_SERVER") or "uvicorn").lower()
    if server not in ("uvicorn", "waitress"):
        raise ConfigError("SVC_DISPLAY_HTTP_SERVER", "uvicorn or waitress", server)

    cors = tuple(checked_origin("SVC_DISPLAY_HTTP_CORS_ORIGINS", part)
                 for part in env_items(env, "SVC_DISPLAY_HTTP_CORS_ORIGINS"))
    cert, key = env_tls_pair(env, "SVC_DISPLAY_HTTP_TLS_CERT", "SVC_DISPLAY_HTTP_TLS_KEY")

    if env.get("SVC_DISPLAY_DATA_DIR") is not None and not env["SVC_DISPLAY_DATA_DIR"].strip():
        # set but empty: a typo or an unset shell variable, not a wish for the default dir
        raise ConfigError("SVC_DISPLAY_DATA_DIR", "a folder path (unset the variable for the default "
                          f"{default_data_dir()})", env["SVC_DISPLAY_DATA_DIR"])
    data_dir = env_path(env, "SVC_DISPLAY_DATA_DIR") or default_data_dir()

    return Settings(
        data_dir=data_dir,
        http_port=env_int(env, "SVC_DISPLAY_HTTP_PORT", 8787, 0, 65535),
        http_bind_ip=bind_ip,
        http_tls=env_bool(env, "SVC_DISPLAY_HTTP_TLS", True),
        http_tls_dir=env_path(env, "SVC_DISPLAY_HTTP_TLS_DIR"),
        http_tls_cert=cert,
        http_tls_key=key,
        http_cors_origins=cors,
        http_server=server,
        **connection_settings(env, "SVC_DISPLAY_"),
        list_cache_bytes=env_int(env, "SVC_DISPLAY_LIST_CACHE_BYTES", 16 * 1024 * 1024, 0, 1 << 40),
        database_url=env_url(env, "SVC_DISPLAY_DATABASE_URL", ("postgres", "postgresql")),
        disable_plugins=frozenset(env_items(env, "SVC_DISPLAY_DISABLE_PLUGINS")),
        display_refresh_seconds=env_int(env, "SVC_DISPLAY_REFRESH_SECONDS", 10, 1, 86400),
        window_xid=env_text(env, "SVC_DISPLAY_WINDOW_XID"),
        window_size=env_window_size(env, "SVC_DISPLAY_WINDOW_SIZE"),
        max_fps=env_int(env, "SVC_DISPLAY_MAX_FPS", 60, 0, 1000),
        multisamples=env_int(env, "SVC_DISPLAY_MULTISAMPLES", 0, 0, 16),
        saas_mode=env_bool(env, "SVC_SAAS_MODE", False),
        headless=env_bool(env, "SVC_DISPLAY_HEADLESS", False),
        log_level=env_log_level(env, "SVC_DISPLAY_LOG_LEVEL"),
        test_clock_file=env_path(env, "SVC_DISPLAY_TEST_CLOCK_FILE"),
        access_log=env_bool(env, "SVC_DISPLAY_ACCESS_LOG", False),
        deprecated_variables_seen=tuple(n for n in DEPRECATED_KEY_VARIABLES if env_text(env, n)),
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
    from svc_host.plugins import PluginSkipped
    from svc_host.registries import _collect

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
            return env_bool(env, item.name, item.default)
        if item.type in (int, float):
            unbounded = (1 << 63) if item.type is int else float("inf")
            return env_number(env, item.name, item.default, -unbounded if item.low is None else item.type(item.low),
                           unbounded if item.high is None else item.type(item.high), item.type)
        if item.type is Path:
            value = env_path(env, item.name)
        elif item.schemes:
            value = env_url(env, item.name, item.schemes)
        else:
            value = env_text(env, item.name)
        if value is not None and item.choices:
            value = value.lower()
            if value not in item.choices:
                raise ConfigError(item.name, "one of " + ", ".join(item.choices), value)
        if value is None and item.required_when and env_bool(env, item.required_when, False):
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


# Prefixes whose variables a program checks against the ones it knows (:func:`unknown_variables`);
# the test kit's SVC_TEST_* / SVC_REQUIRE_* and the sidecars' SVC_PLUGIN_* are nobody's typo.
DISPLAY_PREFIXES = ("SVC_DISPLAY_",)
# Given by the display to its sidecars (builtin_plugins/folder_plugins/supervisor.py), not read by it.
SIDECAR_VARIABLES = ("SVC_DISPLAY_API_URL", "SVC_DISPLAY_API_KEY", "SVC_DISPLAY_API_CA")


def known_variables(declarations: Declarations = (), table: Sequence[tuple[str, str, str]] = ENVIRONMENT) \
        -> set[str]:
    """Every variable a program reads: its table (the one ``serve --help`` prints) and, for the
    display, each plugin's declarations and the deprecated ones it warns about itself."""
    known = {name for name, _field, _summary in table}
    for _plugin, items in declarations:
        known |= {item.name for item in items}
    if table is ENVIRONMENT:
        known |= set(DEPRECATED_KEY_VARIABLES) | set(SIDECAR_VARIABLES)
    return known


def unknown_variables(environ: Mapping[str, str], known: Iterable[str], prefixes: Sequence[str],
                      program: str = "svc-display") -> list[str]:
    """One line for each set variable with one of ``prefixes`` that no one reads (a typo is
    silently ignored otherwise), naming the closest known one."""
    known = sorted(known)
    lines = []
    for name in sorted(environ):
        prefix = next((p for p in prefixes if name.startswith(p)), None)
        if prefix is not None and name not in known:
            # compared without the prefix every candidate shares (else any name looks close)
            rests = {other[len(prefix):]: other for other in known if other.startswith(prefix)}
            rest = name[len(prefix):]
            close = difflib.get_close_matches(rest, list(rests), n=1, cutoff=0.75) \
                or [other for other in rests if other.endswith("_" + rest)][:1]  # PORT: HTTP_PORT
            hint = f"; did you mean {rests[close[0]]}?" if close else ""
            lines.append(f"{name} is not a variable {program} reads: ignored{hint}")
    return lines


def port_in_use(bind: str, port: int, variable: str) -> str | None:
    """A one-line reason when ``bind``:``port`` cannot be listened on (in use, or not allowed),
    said before anything else starts (a certificate, the database, plugins), with the variable
    that chooses another; None when it is free now."""
    try:
        family = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
            sock.bind((bind, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = "is in use by another program (another instance running?)"
        elif exc.errno == errno.EACCES:
            why = "needs privileges this user lacks (ports below 1024)"
        else:
            why = f"cannot be listened on ({exc.strerror or exc})"
        return f"port {port} on {bind} {why}: stop that program, or set {variable} to a free port"
    return None


def refuse_unknown_disabled(names: Iterable[str], known: Iterable[str]) -> None:
    """A ``SVC_DISPLAY_DISABLE_PLUGINS`` name that is no plugin is a typo that would leave the
    plugin running: refused, naming the plugins that can be disabled."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ConfigError("SVC_DISPLAY_DISABLE_PLUGINS", "names of installed plugins (one of "
                          + ", ".join(sorted(known)) + ")", ",".join(unknown))
