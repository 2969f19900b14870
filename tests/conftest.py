"""Shared fixtures: real SQLite files, the real PostgreSQL server, real server processes.

- ``backend`` runs a test on ``sqlite`` and again on ``postgres`` (a fresh database per
  test on the local server; ``SVC_TEST_PG_URL`` overrides the admin URL).
- ``env`` is the environment of a host under test (data dir in ``tmp_path``, headless).
- ``make_host`` builds an in-process host; ``api`` wraps Falcon's test client.
- ``start_server`` starts ``python -m svc_host serve`` as a real process over HTTPS.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlparse, urlunparse

import falcon.testing
import psycopg2
import pytest
import requests
from pony import orm

PG_ADMIN_URL = os.environ.get("SVC_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
REPO = Path(__file__).resolve().parents[1]


def _pg_url_for(database: str) -> str:
    parsed = urlparse(PG_ADMIN_URL)
    return urlunparse(parsed._replace(path="/" + database))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def database_url(backend: str):
    """None for SQLite; for PostgreSQL the URL of a database created for this test only."""
    if backend == "sqlite":
        yield None
        return
    name = "svc_t_" + uuid.uuid4().hex[:16]
    admin = psycopg2.connect(PG_ADMIN_URL)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _pg_url_for(name)
    finally:
        with admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


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


class Api:
    """Falcon's in-process client with a default Bearer key."""

    def __init__(self, host: Any, key: str | None = None):
        from svc_host.http.app import create_app

        self.host = host
        self.client = falcon.testing.TestClient(create_app(host))
        self.key = key

    def request(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> falcon.testing.Result:
        headers = dict(kwargs.pop("headers", {}) or {})
        key = key if key is not None else self.key
        if key:
            headers.setdefault("Authorization", f"Bearer {key}")
        return self.client.simulate_request(method, path, headers=headers, **kwargs)

    def get(self, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.request("DELETE", path, **kwargs)


def issue_key(host: Any, role: str = "admin", identifier: str | None = None) -> str:
    from builtin_plugins.clients.keys import issue_client

    with orm.db_session:
        return issue_client(host, identifier or f"{role}-{uuid.uuid4().hex[:6]}", role).api_key


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """A real ``svc-display serve`` process on loopback."""

    def __init__(self, env: dict[str, str], extra_pythonpath: list[str] = ()):
        self.port = int(env.get("SVC_DISPLAY_HTTP_PORT") or free_port())
        self.tls = env.get("SVC_DISPLAY_HTTP_TLS", "1") != "0" and env.get("SVC_DISPLAY_HTTP_SERVER") != "waitress"
        self.env = {**os.environ, **env, "SVC_DISPLAY_HTTP_PORT": str(self.port),
                    "SVC_DISPLAY_HTTP_BIND_IP": env.get("SVC_DISPLAY_HTTP_BIND_IP", "127.0.0.1")}
        if extra_pythonpath:
            self.env["PYTHONPATH"] = os.pathsep.join([*extra_pythonpath, self.env.get("PYTHONPATH", "")])
        self.data_dir = Path(env["SVC_DISPLAY_DATA_DIR"])
        self.log_path = self.data_dir.parent / f"server-{self.port}.log"
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    @property
    def verify(self) -> str | bool:
        if not self.tls:
            return False
        cert = self.env.get("SVC_DISPLAY_HTTP_TLS_CERT")
        return cert or str(Path(self.env.get("SVC_DISPLAY_HTTP_TLS_DIR") or self.data_dir / "tls")
                           / "display-cert.pem")

    def start(self, timeout: float = 30) -> "ServerProcess":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "svc_host", "serve"], env=self.env,
                                        stdout=log, stderr=subprocess.STDOUT, cwd=self.data_dir.parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n{self.log}")
            try:
                if self.get("/v1/health", timeout=1).status_code == 200:
                    return self
            except (requests.ConnectionError, requests.Timeout, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer within {timeout}s:\n{self.log}")

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def request(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if key:
            headers["Authorization"] = f"Bearer {key}"
        kwargs.setdefault("timeout", 15)
        return requests.request(method, self.url + path, headers=headers, verify=self.verify, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def cli(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "svc_host", *args], env=self.env, capture_output=True,
                              text=True, input=input, timeout=60, cwd=self.data_dir.parent)

    def key(self, role: str = "admin", identifier: str | None = None) -> str:
        out = self.cli("keys", "create", "--identifier", identifier or f"{role}-{uuid.uuid4().hex[:6]}",
                       "--role", role)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["api_key"]

    def stop(self, timeout: float = 30) -> int | None:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


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
