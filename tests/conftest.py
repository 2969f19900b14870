"""Shared fixtures: real SQLite files, the real PostgreSQL server, real server processes.

- ``backend`` runs a test on ``sqlite``; tests marked ``storage`` (storage-dependent:
  rows, queries, migrations) run again on ``postgres`` (a fresh database per test on the
  local server; ``SVC_TEST_PG_URL`` overrides the admin URL). ``SVC_TEST_BACKENDS=all``
  runs every test on both, ``SVC_TEST_BACKENDS=sqlite`` none on PostgreSQL.
- ``env`` is the environment of a host under test (data dir in ``tmp_path``, headless).
- ``make_host`` builds an in-process host; ``api`` wraps Falcon's test client.
- ``start_server`` starts ``python -m svc_host serve`` as a real process over HTTPS.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

# shared with the plugin authors' kit (svc_display.testing)
from svc_display.testing import ServerProcess, free_port, issue_key  # noqa: F401
from svc_display.testing.clients import ApiClient as Api
# one maker of throwaway PostgreSQL databases, shared with the authors' kit
from svc_display.testing.databases import PG_ADMIN_URL, throwaway_pg_database  # noqa: F401

REPO = Path(__file__).resolve().parents[1]


BACKENDS_CHOICE = os.environ.get("SVC_TEST_BACKENDS", "storage")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``backend``: both databases for ``storage`` tests, SQLite for the rest."""
    if "backend" not in metafunc.fixturenames:
        return
    if any("backend" in marker.args[0] for marker in metafunc.definition.iter_markers("parametrize")):
        return  # the test chose its backends itself
    storage = metafunc.definition.get_closest_marker("storage") is not None
    both = BACKENDS_CHOICE == "all" or (storage and BACKENDS_CHOICE != "sqlite")
    metafunc.parametrize("backend", ["sqlite", "postgres"] if both else ["sqlite"], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", "sqlite")


@pytest.fixture
def database_url(backend: str):
    """None for SQLite; for PostgreSQL the URL of a database created for this test only."""
    if backend == "sqlite":
        yield None
        return
    with throwaway_pg_database() as url:
        yield url


@pytest.fixture
def env(tmp_path: Path, database_url: str | None) -> dict[str, str]:
    values = {
        "SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"),
        "SVC_DISPLAY_HEADLESS": "1",
        "SVC_DISPLAY_LOG_LEVEL": "INFO",
        "SVC_DISPLAY_TEST_CLOCK_FILE": str(tmp_path / "clock-offset-ms"),
    }
    if database_url:
        values["SVC_DISPLAY_DATABASE_URL"] = database_url
    return values


def advance_clock(env: dict[str, str], ms: int) -> None:
    """Move the host's clock forward by ``ms`` (in-process hosts and server processes alike)."""
    path = Path(env["SVC_DISPLAY_TEST_CLOCK_FILE"])
    current = int(path.read_text() or 0) if path.exists() else 0
    path.write_text(str(current + ms))


@pytest.fixture
def make_host(env: dict[str, str]):
    """Build in-process hosts from ``env`` (plus overrides and extra plugins); closed after the test."""
    from svc_host.config import load_settings
    from svc_host.host import build_host

    hosts = []

    def factory(extra_env: dict[str, str] | None = None, plugins: list[tuple[str, Any]] = ()) -> Any:
        settings = load_settings({**env, **(extra_env or {})})
        host = build_host(settings, extra_plugins=plugins)
        hosts.append(host)
        return host

    yield factory
    for host in hosts:
        host.close()


@pytest.fixture
def host(make_host: Callable[..., Any]) -> Any:
    return make_host()


@pytest.fixture
def api(host: Any) -> Api:
    return Api(host, issue_key(host, "admin", "test-admin"))


@pytest.fixture
def ticker(api: Api) -> Api:
    """``api`` on a host whose clock stands still at :data:`tests.ticker.tapes.NOW`."""
    from tests.ticker.clock import FixedClock
    from tests.ticker.tapes import NOW

    api.host.clock = FixedClock(NOW)
    return api


@pytest.fixture
def upstream(svc_display_upstream: Any) -> Any:
    """A loopback upstream for collector tests (the plugin authors' kit's)."""
    return svc_display_upstream


@pytest.fixture
def start_server(env: dict[str, str]):
    """Start real server processes with ``env`` plus overrides; all are stopped after the test."""
    servers: list[ServerProcess] = []

    def factory(extra_env: dict[str, str] | None = None, extra_pythonpath: list[str] = ()) -> ServerProcess:
        server = ServerProcess({**env, **(extra_env or {})}, extra_pythonpath).start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def hello_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``examples/hello-plugin`` installed (without dependencies) into a folder for PYTHONPATH."""
    target = tmp_path_factory.mktemp("hello-plugin-site")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(REPO / "examples" / "hello-plugin")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return str(target)


def write_broken_plugin(folder: Path, name: str = "broken") -> str:
    """A third-party distribution whose entry point fails to import; returns the folder for PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_plugin.py").write_text("raise ImportError('this plugin is broken on purpose')\n")
    dist = folder / f"svc_display_{name}-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: svc-display-{name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[svc_display.plugins]\n{name} = {name}_plugin\n")
    return str(folder)
