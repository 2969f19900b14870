"""Real ``svc-controller serve`` processes over HTTPS, next to real ``svc-display serve`` ones:
shared by tests/controller, tests/webapp and benchmarks/ (a helper module, never a conftest,
docs/testing.md).

``ControllerProcess`` mirrors the kit's ``svc_display.testing.ServerProcess`` for the controller's
``SVC_CONTROLLER_*`` environment.
"""
from __future__ import annotations

import os
import ssl
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import requests

from hookspecs.services import PLAYS
from svc_display.testing import ServerProcess, forkserver
from svc_display.testing.clock import FixedClock
from svc_display.testing.server import stop_process
from svc_display.testing.waiting import wait_until_up
from svc_host.config import load_settings
from svc_host.host import build_host

CSRF = {"X-Requested-With": "svc-controller"}


class ControllerProcess:
    """A real ``svc-controller serve`` on loopback; a ``requests.Session`` keeps its cookies."""

    def __init__(self, data_dir: Path, extra_env: dict[str, str] | None = None):
        self.port = 0  # the OS chooses at the first start (<data dir>/http-port), kept by a restart
        self.data_dir = data_dir
        name = uuid.uuid4().hex[:8]
        env = {
            "SVC_CONTROLLER_DATA_DIR": str(data_dir),
            "SVC_CONTROLLER_PORT": "0",
            "SVC_CONTROLLER_BIND": "127.0.0.1",
            "SVC_CONTROLLER_TEST_CLOCK_FILE": str(data_dir.parent / f"clock-{name}"),
            "SVC_CONTROLLER_SCHEDULER_TICK_MS": "200",
            **(extra_env or {}),
        }
        self.env = {**os.environ, **env}
        self.tls = self.env.get("SVC_CONTROLLER_TLS", "1") != "0"
        self.url = ""
        self.log_path = data_dir.parent / f"controller-{name}.log"
        self.clock_file = Path(env["SVC_CONTROLLER_TEST_CLOCK_FILE"])
        self.process: subprocess.Popen | None = None
        self.http = requests.Session()

    @property
    def verify(self) -> str | bool:
        return str(self.data_dir / "tls" / "controller-cert.pem") if self.tls else False

    def start(self, timeout: float = 30) -> "ControllerProcess":
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        env = dict(self.env)
        port_file = self.data_dir / ServerProcess.PORT_FILE
        if self.port:  # started again: the address it had (a browser, a test, knows it by that)
            env["SVC_CONTROLLER_PORT"] = str(self.port)
        elif env["SVC_CONTROLLER_PORT"] == "0":
            port_file.unlink(missing_ok=True)  # (an earlier controller's of this data dir)
        with log:
            self.process = forkserver.popen([sys.executable, "-m", "svc_controller", "serve"], env=env,
                                            stdout=log, stderr=subprocess.STDOUT, cwd=self.data_dir.parent)

        def up() -> bool:
            if not self.port:
                try:
                    self.port = int(env["SVC_CONTROLLER_PORT"]) or int(port_file.read_text())
                except (OSError, ValueError):
                    return False  # not listening yet
                self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
            # a one-off connection per poll: none stays open in the session's pool
            return requests.get(self.url + "/bff/v1/health", verify=self.verify, timeout=1).status_code == 200

        wait_until_up(self.process, up, timeout, "controller", lambda: self.log, self.stop)
        return self

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def request(self, method: str, path: str, session: requests.Session | None = None,
                **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 60)
        response = (session or self.http).request(method, self.url + path, verify=self.verify, **kwargs)
        if not kwargs.get("stream"):
            # The body is read; a Response kept by a test would otherwise keep its pooled socket
            # open after the session closes, and hold the controller's graceful stop for 30 s.
            response.raw = None
        return response

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.verify)

    def advance_clock(self, ms: int) -> None:
        current = int(self.clock_file.read_text() or 0) if self.clock_file.exists() else 0
        self.clock_file.write_text(str(current + ms))

    def now_ms(self) -> int:
        offset = int(self.clock_file.read_text() or 0) if self.clock_file.exists() else 0
        return int(time.time() * 1000) + offset

    def cli(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return forkserver.run([sys.executable, "-m", "svc_controller", *args], env=self.env, input=input,
                              timeout=60, cwd=self.data_dir.parent)

    def stop(self, timeout: float = 30) -> int | None:
        # An idle kept-alive TLS connection holds uvicorn's graceful stop until asyncio's TLS
        # shutdown timeout (30 s): the client closes its pooled connections first, and gives
        # the server a moment to see them closed before it starts shutting down.
        self.http.close()
        if self.process is not None and self.process.poll() is None:
            time.sleep(0.3)
        return stop_process(self.process, timeout)


def display_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {"SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1", "SVC_DISPLAY_LOG_LEVEL": "INFO",
            **extra}


@contextmanager
def running(*processes: Any) -> Iterator[None]:
    """Stops ``processes`` last first (list displays before the controller that holds
    connections to them)."""
    try:
        yield
    finally:
        for process in reversed(processes):
            process.stop()


def start_display(folder: Path, **extra: str) -> ServerProcess:
    return ServerProcess(display_env(folder / "data", **extra)).start(timeout=60)


def display_with_plays(folder, t0: int, slides: int, labels: list[str]) -> ServerProcess:
    """A real display whose recorder recorded ``slides`` slide plays from ``t0`` (6 s each, the
    labels in turn) and one alert, then started."""
    env = display_env(folder / "data")
    host = build_host(load_settings(env))
    try:
        host.clock = FixedClock(t0)
        plays = host.services[PLAYS]
        for index in range(slides):
            label = labels[index % len(labels)]
            plays.replace("slide", [{"id": f"s{index % len(labels)}", "type": "message", "label": label}],
                          complete=True)
            host.clock.ms += 6000
        plays.show("alert", [{"id": "fire", "type": "critical", "label": "Fire drill"}])
        host.clock.ms += 2000
        plays.show("alert", [])
        plays.replace("slide", [], complete=True)
    finally:
        host.close()
    return ServerProcess(env).start(timeout=60)
