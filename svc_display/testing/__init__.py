"""The pytest plugin for svc-display plugin authors (``pytest11`` entry point ``svc_display``).

Installed with svc-display, so a plugin's own tests get these fixtures without a conftest
(datasette's ``_pytest_plugin`` and devpi's ``pytest_devpi_server`` do the same)::

    import hello_plugin

    def test_hello(svc_display_host, svc_display_api, svc_display_frame):
        host = svc_display_host(plugins=[hello_plugin])
        api = svc_display_api(host, role="viewer")
        assert api.get("/v1/hello").status_code == 200
        assert svc_display_frame(host, "screen", "hello").fraction((255, 204, 0)) > 0.5

Fixtures (``docs/plugins.md`` walks through each):

- ``svc_display_backend``: the database the test's hosts use, ``"sqlite"`` (a file in the
  data dir) or ``"postgres"`` (a database made for this test on the local server,
  ``SVC_TEST_PG_URL``, dropped afterwards). A test marked ``@pytest.mark.svc_display_storage``
  runs on both; any other on SQLite. ``SVC_TEST_BACKENDS=all`` runs every test on both,
  ``SVC_TEST_BACKENDS=sqlite`` none on PostgreSQL. A test that parametrizes
  ``svc_display_backend`` itself (``indirect=True``) chooses its own. PostgreSQL is optional:
  when no server answers, its runs are skipped (one line in the run's summary says so and how
  many), or fail with ``SVC_REQUIRE_PG=1``.
- ``svc_display_database_url``: None on SQLite, else the throwaway PostgreSQL database's URL.
- ``svc_display_env``: the environment of a throwaway host (data dir under ``tmp_path``,
  headless, a test clock file, the backend's database); add ``SVC_DISPLAY_*`` keys to it
  before building.
- ``svc_display_clock``: the injectable clock of the hosts built from ``svc_display_env``,
  in-process or served: ``clock.advance(ms, seconds=0)`` moves their time forward without
  sleeping (:mod:`svc_display.testing.clock` also has ``FixedClock`` for an in-process
  ``host.clock`` that stands still).
- ``svc_display_host``: ``factory(plugins=(), disable=(), env=None, strict=True)`` builds an
  in-process host with the installed plugins plus ``plugins`` (modules or objects with
  ``@hookimpl`` functions or a ``FEATURE`` declaration, or ``(name, plugin)`` pairs; one that
  is also installed replaces the installed copy) minus ``disable``. A given plugin that fails
  to load fails the test with the host's reason (instead of being skipped) unless
  ``strict=False`` (a test of the skipping itself). On SQLite a new data dir starts with the
  builtin tables already made (:func:`svc_display.testing.databases.sqlite_template`); its
  migrations and first-start rows run as on an empty file. Hosts are closed after the test.
- ``svc_display_plugin``: ``register(plugin, name=None)`` adds a throwaway plugin (a class
  or object with ``@hookimpl`` methods) to every host built afterwards in this test, and
  to none after it; usable as a class decorator.
- ``svc_display_api``: ``factory(host, role="admin", identifier=None)`` is a
  ``falcon.testing`` client of the host's REST app whose requests carry a fresh API key of
  ``role`` (``viewer``, ``power_viewer``, ``operator`` or ``admin``); ``key=""`` on a call
  sends none.
- ``svc_display_server``: ``factory(env=None, pythonpath=())`` starts a real
  ``svc-display serve`` process over HTTPS on a loopback port it binds itself (port 0, read
  back from ``<data dir>/http-port``), with the data dir of
  ``svc_display_env`` (so data a test host wrote is served) unless ``env`` names another;
  ``server.key(role)`` issues a key, ``server.get(path, key=...)`` calls it. Stopped after
  the test.
- ``svc_display_upstream``: a loopback HTTP server for collectors
  (:class:`svc_display.testing.upstream.Upstream`): ``upstream.json("/path", payload)``,
  ``upstream.url``, ``upstream.requests``; stopped after the test.
- ``svc_display_collect``: ``collect(host, integration_id, answers)`` serves ``answers``
  (``{path: JSON payload}``) on a loopback upstream, points the integration's ``base_url`` at
  it and runs it once; returns the run's result (``status``, ``summary`` ...).
- ``svc_display_migrated``: ``migrated(plugin, old_schema, table)`` writes ``old_schema`` (SQL,
  the tables as the plugin's previous version left them) into a fresh database of the test's
  backend (``svc_display_backend``: a SQLite file; a PostgreSQL database on ``SVC_TEST_PG_URL``
  in a test marked ``svc_display_storage``), builds a host with ``plugin`` on it (so its
  migrations run) and returns ``table``'s rows by backend: ``{"sqlite": [{column: value}]}``
  (``{"postgres": [...]}`` in the PostgreSQL run).
- ``svc_display_frame``: ``frame(host, kind, type_id, config=None, **options)`` draws one
  screen or overlay renderer with the real Kivy canvas offscreen in a subprocess and
  returns a :class:`svc_display.testing.canvas.Frame` (``png``, ``image``, ``pixels``,
  ``fraction(rgb)``); for a ticker type, ``items`` (what its ``build_items`` makes, as the
  marquee shows them) and ``refresh_seconds``. ``host`` is one built by ``svc_display_host``
  (same data dir, same plugins) or None for the installed plugins.
- ``svc_display_canvas_check``: ``check(host, kind, type_id, config=None, seconds=3, dt=0.1,
  row=None, size=(640, 360))`` shows one row of the type on the display's own canvas (the real
  compositor, frame time driven, offscreen, in a subprocess) and returns a
  :class:`svc_display.testing.canvas.CanvasCheck`: ``raised`` (its renderer raised, at build,
  at a later frame or in ``build_items``), ``failures`` (as ``GET /v1/display/screen`` lists
  them), ``shown``, ``report``, ``log``. An author's test fails before the screen does.

Imports are deferred to the fixtures, so loading the plugin costs nothing in test runs
that do not use it.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest

from svc_display.testing.clients import ApiClient, issue_key
from svc_display.testing.clock import FixedClock, advance_clock
from svc_display.testing.server import ServerProcess, closed_port, free_port
from svc_display.testing.waiting import wait_for

__all__ = ["ApiClient", "issue_key", "ServerProcess", "closed_port", "free_port", "PluginNotLoaded", "FixedClock",
           "advance_clock", "BACKENDS", "backends", "wait_for"]

STORAGE_MARKER = "svc_display_storage"
BACKENDS = ("sqlite", "postgres")


def backends(storage: bool = True) -> list[str]:
    """The backends a test runs on: both for storage-dependent tests (``storage``), SQLite for the
    rest; ``SVC_TEST_BACKENDS=all`` makes it both always, ``=sqlite`` SQLite always."""
    choice = os.environ.get("SVC_TEST_BACKENDS", "storage")
    both = choice == "all" or (storage and choice != "sqlite")
    return list(BACKENDS) if both else ["sqlite"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{STORAGE_MARKER}: storage-dependent (rows, queries, migrations); "
                                       "runs on SQLite and again on PostgreSQL (svc_display_backend)")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Drop the PostgreSQL schema templates this process made (each xdist worker its own)."""
    import sys

    databases = sys.modules.get("svc_display.testing.databases")
    if databases is not None:
        databases.drop_templates()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say once how many tests were skipped for want of PostgreSQL, and why."""
    from svc_display.testing.databases import PG_SKIP_REASON

    skips = [getattr(report, "longrepr", None) for report in terminalreporter.stats.get("skipped", [])]
    reasons = [skip[2] for skip in skips if isinstance(skip, tuple) and PG_SKIP_REASON in skip[2]]
    if reasons:
        reason = reasons[0].removeprefix("Skipped: ")
        terminalreporter.write_sep("-", "PostgreSQL", yellow=True)
        terminalreporter.write_line(f"{len(reasons)} tests skipped: {reason}", yellow=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``svc_display_backend``: both databases for ``svc_display_storage`` tests, SQLite
    for the rest (see :func:`backends`), unless the test parametrizes it itself."""
    if "svc_display_backend" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if "svc_display_backend" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return  # the test chose its backends itself
    storage = metafunc.definition.get_closest_marker(STORAGE_MARKER) is not None
    metafunc.parametrize("svc_display_backend", backends(storage), indirect=True)


@pytest.fixture
def svc_display_backend(request: pytest.FixtureRequest) -> str:
    """``"sqlite"`` or ``"postgres"``: the database of this test's hosts."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def svc_display_database_url(svc_display_backend: str):
    """None on SQLite; on PostgreSQL the URL of a database made for this test only."""
    if svc_display_backend == "sqlite":
        yield None
        return
    from svc_display.testing.databases import throwaway_pg_database

    with throwaway_pg_database(template=True) as url:  # the builtin tables made once per process
        yield url


class PluginNotLoaded(RuntimeError):
    """A plugin given to ``svc_display_host`` was skipped by the host; the message says why."""


@pytest.fixture
def svc_display_env(tmp_path: Path, svc_display_database_url: str | None) -> dict[str, str]:
    """The environment of a throwaway host: data dir under ``tmp_path``, headless, a test clock
    file, and the PostgreSQL database when the backend is ``postgres``."""
    values = {
        "SVC_DISPLAY_DATA_DIR": str(tmp_path / "svc-display-data"),
        "SVC_DISPLAY_HEADLESS": "1",
        "SVC_DISPLAY_TEST_CLOCK_FILE": str(tmp_path / "svc-display-clock-offset-ms"),
    }
    if svc_display_database_url:
        values["SVC_DISPLAY_DATABASE_URL"] = svc_display_database_url
    return values


@pytest.fixture
def svc_display_clock(svc_display_env: dict[str, str]) -> Any:
    """The injectable clock of ``svc_display_env``'s hosts: ``advance(ms, seconds=0)``."""
    from svc_display.testing.clock import TestClock

    return TestClock(svc_display_env)


def _plugin_name(plugin: Any, installed: dict[str, str]) -> str:
    """The installed entry point's name for a module that is also installed, else its own name."""
    module = getattr(plugin, "__name__", None)
    for name, value in installed.items():
        if module is not None and value == module:
            return name
    return getattr(plugin, "__name__", type(plugin).__name__).rsplit(".", 1)[-1]


class _Capture(logging.Handler):
    """The host's warnings while it builds: the reason a given plugin was skipped."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def svc_display_plugin() -> Any:
    """``register(plugin, name=None)``: a throwaway plugin in every host this test builds afterwards."""
    registered: list[Any] = []

    def register(plugin: Any, name: str | None = None) -> Any:
        registered.append(plugin if name is None else (name, plugin))
        return plugin

    register.registered = registered  # type: ignore[attr-defined]
    yield register
    registered.clear()


@pytest.fixture
def svc_display_host(svc_display_env: dict[str, str], svc_display_plugin: Any):
    """``factory(plugins=(), disable=(), env=None, strict=True)``: an in-process host, closed after
    the test."""
    from hookspecs import ENTRY_POINT_GROUP
    from svc_host.config import load_settings
    from svc_host.host import build_host
    from svc_host.plugins import builtin_names, installed_entry_points

    hosts: list[Any] = []

    def factory(plugins: Iterable[Any] = (), disable: Iterable[str] = (),
                env: dict[str, str] | None = None, strict: bool = True) -> Any:
        installed = {ep.name: ep.value for ep in installed_entry_points(ENTRY_POINT_GROUP)}
        builtin = builtin_names(ENTRY_POINT_GROUP)
        # (name, plugin) pairs; a third item, the origin ("builtin" ...), is passed on to the host
        given = [item if isinstance(item, tuple) else (_plugin_name(item, installed), item)
                 for item in [*svc_display_plugin.registered, *plugins]]
        values = {**svc_display_env, **(env or {})}
        disabled = [name for name in values.get("SVC_DISPLAY_DISABLE_PLUGINS", "").split(",") if name]
        # a given plugin replaces its installed copy (the test's module object is the one registered)
        disabled += [*disable, *(item[0] for item in given if item[0] in installed)]
        if disabled:
            values["SVC_DISPLAY_DISABLE_PLUGINS"] = ",".join(dict.fromkeys(disabled))
        settings = load_settings(values)
        if (settings.database_url is None and not set(disabled) & builtin
                and not any(hasattr(item[1], "prepare_storage") for item in given)
                and not (settings.data_dir.is_dir() and any(settings.data_dir.iterdir()))):
            # a new data dir's builtin tables from a file made once per process
            # (databases.sqlite_template); not where the test prepared the data dir, disabled a
            # builtin or gave a plugin that looks at storage before the database opens
            from svc_display.testing.databases import seed_sqlite_file

            seed_sqlite_file(settings.sqlite_path)
        capture = _Capture()
        logger = logging.getLogger("svc_host")
        logger.addHandler(capture)
        try:
            host = build_host(settings, extra_plugins=given)
        finally:
            logger.removeHandler(capture)
        host.svc_display_testing = {"env": values, "plugins": [(item[0], item[1]) for item in given]}
        hosts.append(host)
        skipped = [item[0] for item in given if item[0] not in host.plugins.info]
        if skipped and strict:
            raise PluginNotLoaded(f"plugin {skipped[0]!r} was skipped by the host: " + "; ".join(
                line for line in capture.lines if repr(skipped[0]) in line))
        return host

    yield factory
    for host in hosts:
        host.close()


@pytest.fixture
def svc_display_api() -> Callable[..., ApiClient]:
    """``factory(host, role="admin", identifier=None)``: a REST client sending a fresh key of ``role``."""

    def factory(host: Any, role: str = "admin", identifier: str | None = None) -> ApiClient:
        return ApiClient(host, issue_key(host, role, identifier))

    return factory


@pytest.fixture
def svc_display_server(svc_display_env: dict[str, str]):
    """``factory(env=None, pythonpath=())``: ``svc-display serve`` over HTTPS on loopback, stopped after."""
    servers: list[ServerProcess] = []

    def factory(env: dict[str, str] | None = None, pythonpath: Iterable[str] = ()) -> ServerProcess:
        server = ServerProcess({**svc_display_env, **(env or {})}, list(pythonpath)).start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()


@pytest.fixture
def svc_display_upstream():
    """A loopback HTTP server for collectors (``.json(path, payload)``, ``.url``), stopped after the test."""
    from svc_display.testing.upstream import Upstream

    server = Upstream().start()
    yield server
    server.stop()


@pytest.fixture
def svc_display_collect(svc_display_upstream: Any) -> Callable[..., dict[str, Any]]:
    """``collect(host, integration_id, answers)``: one run against ``answers`` served on loopback."""

    def collect(host: Any, integration_id: str, answers: dict[str, Any]) -> dict[str, Any]:
        for path, payload in answers.items():
            svc_display_upstream.json(path, payload)
        api = ApiClient(host, issue_key(host, "admin", "svc-display-collect"))
        patched = api.patch(f"/v1/integrations/{integration_id}", json={"base_url": svc_display_upstream.url})
        if patched.status_code != 200:
            raise AssertionError(f"integration {integration_id!r}: {patched.status_code} {patched.json}")
        return api.post(f"/v1/integrations/{integration_id}/run").json

    return collect


@pytest.fixture
def svc_display_migrated(svc_display_host: Any, svc_display_env: dict[str, str],
                         svc_display_backend: str) -> Callable[..., dict]:
    """``migrated(plugin, old_schema, table)``: ``table``'s rows after ``plugin``'s migrations ran on
    ``old_schema`` in a fresh database of the test's backend: ``{backend: rows}``."""
    from svc_display.testing.databases import migrated

    def run(plugin: Any, old_schema: str, table: str) -> dict:
        return migrated(svc_display_host, svc_display_env, plugin, old_schema, table,
                        backends=(svc_display_backend,))

    return run


def _child_plugins(host: Any, env: dict[str, str], kind: str, type_id: str, fixture: str) -> tuple[dict, list]:
    """The environment and ``(name, reference)`` plugins of ``host`` (built by ``svc_display_host``;
    None: the installed plugins only) for a renderer process drawing ``type_id``."""
    from svc_display.testing.canvas import KINDS, RenderError, plugin_reference

    made = getattr(host, "svc_display_testing", None) if host is not None else {"env": env, "plugins": []}
    if made is None:
        raise ValueError(f"{fixture} draws for a host built by svc_display_host (or None)")
    owner = None
    if host is not None and kind in KINDS:
        registry = getattr(host.registries, f"{kind}_types")
        if type_id not in registry:  # the common mistake, said before a process starts
            raise RenderError(f"no {kind} type {type_id!r}; the plugins provide: "
                              f"{', '.join(sorted(registry.types)) or 'none'}")
        owner = registry.owner.get(type_id)
    plugins = []
    for name, plugin in made["plugins"]:
        reference = plugin_reference(plugin)
        if reference is not None:
            plugins.append((name, reference))
        elif name == owner:
            raise ValueError(f"plugin {name!r} provides {kind} type {type_id!r} but the renderer process "
                             "cannot import it: define it at module level (frames draw in a subprocess)")
    return made["env"], plugins


@pytest.fixture
def svc_display_frame(svc_display_env: dict[str, str], tmp_path: Path):
    """``frame(host, kind, type_id, config=None, **options)``: one renderer drawn offscreen (a ``Frame``)."""
    from svc_display.testing.canvas import render_frame

    def frame(host: Any, kind: str, type_id: str, config: dict | None = None, **options: Any) -> Any:
        env, plugins = _child_plugins(host, svc_display_env, kind, type_id, "svc_display_frame")
        return render_frame(env, kind, type_id, config, plugins=plugins, out=tmp_path / "frames", **options)

    return frame


@pytest.fixture
def svc_display_canvas_check(svc_display_env: dict[str, str], tmp_path: Path):
    """``check(host, kind, type_id, config=None, **options)``: one row of the type on the display's
    own canvas (offscreen, frame time driven) for ``seconds`` (3) of frames; a ``CanvasCheck``
    whose ``raised`` says whether its renderer raised, at build or at a later frame."""
    from svc_display.testing.canvas import check_on_canvas

    def check(host: Any, kind: str, type_id: str, config: dict | None = None, **options: Any) -> Any:
        env, plugins = _child_plugins(host, svc_display_env, kind, type_id, "svc_display_canvas_check")
        return check_on_canvas(env, kind, type_id, config, plugins=plugins, out=tmp_path / "checks", **options)

    return check
