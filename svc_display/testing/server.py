"""A real ``svc-display serve`` process on loopback, over HTTPS by default.

The server gets its own data dir (the caller puts it under ``tmp_path``) and a free port;
TLS is on as in production, and requests verify the certificate the server generated in
its data dir, so nothing here turns verification off. Keys are issued with the public
``svc-display keys create`` command against the same data dir, as an operator would.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import requests

from svc_display.testing.waiting import ProcessExited, wait_until_up


def stop_process(process: subprocess.Popen | None, timeout: float = 30) -> int | None:
    """SIGTERM (as systemd sends), SIGKILL after ``timeout`` seconds; the exit status (None for a
    process never started)."""
    if process is None or process.poll() is not None:
        return process.returncode if process else None
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """``svc-display serve`` in a subprocess with ``env`` (which must name ``SVC_DISPLAY_DATA_DIR``).

    ``extra_pythonpath`` puts folders (a plugin installed with ``pip install --target``, a
    source checkout) in front of the server's ``PYTHONPATH``. :meth:`start` waits until
    ``/v1/health`` answers; :meth:`stop` sends SIGTERM (as systemd does) and returns the exit
    status. :attr:`log` is what the server wrote.
    """

    # uvicorn's line when the port is taken (then the process exits with 3)
    PORT_TAKEN = "address already in use"

    def __init__(self, env: dict[str, str], extra_pythonpath: list[str] = ()):
        self.own_port = not env.get("SVC_DISPLAY_HTTP_PORT")  # chosen here: another can be tried
        self.port = int(env.get("SVC_DISPLAY_HTTP_PORT") or free_port())
        waitress = env.get("SVC_DISPLAY_HTTP_SERVER") == "waitress"  # plain HTTP behind a TLS proxy
        self.tls = env.get("SVC_DISPLAY_HTTP_TLS", "1") != "0" and not waitress
        self.env = {**os.environ, **env, "SVC_DISPLAY_HTTP_PORT": str(self.port),
                    "SVC_DISPLAY_HTTP_BIND_IP": env.get("SVC_DISPLAY_HTTP_BIND_IP", "127.0.0.1")}
        if extra_pythonpath:
            self.env["PYTHONPATH"] = os.pathsep.join([*extra_pythonpath, self.env.get("PYTHONPATH", "")])
        self.data_dir = Path(env["SVC_DISPLAY_DATA_DIR"])
        self.process: subprocess.Popen | None = None
        self._use_port(self.port)

    def _use_port(self, port: int) -> None:
        self.port = port
        self.env["SVC_DISPLAY_HTTP_PORT"] = str(port)
        self.log_path = self.data_dir.parent / f"server-{port}.log"  # stderr: the log, tracebacks
        self.stdout_path = self.data_dir.parent / f"server-{port}.out"
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{port}"

    @property
    def verify(self) -> str | bool:
        """What ``requests`` verifies the server with: its own certificate (False without TLS)."""
        if not self.tls:
            return False
        cert = self.env.get("SVC_DISPLAY_HTTP_TLS_CERT")
        return cert or str(Path(self.env.get("SVC_DISPLAY_HTTP_TLS_DIR") or self.data_dir / "tls")
                           / "display-cert.pem")

    def start(self, timeout: float = 30, port_attempts: int = 3) -> "ServerProcess":
        """Start and wait for ``/v1/health``. A port chosen here can be taken by another
        process between :func:`free_port` and the server's bind (loopback clients get their
        local ports from the same range): then the server exits with 3 and says so, and up to
        ``port_attempts`` ports are tried in all."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen([sys.executable, "-m", "svc_host", "serve"], env=self.env,
                                        stdout=open(self.stdout_path, "ab"), stderr=open(self.log_path, "ab"),
                                        cwd=self.data_dir.parent)
        try:
            wait_until_up(self.process, lambda: self.get("/v1/health", timeout=1).status_code == 200, timeout,
                          "server", lambda: self.log, self.stop)
        except ProcessExited as exc:
            if not (self.own_port and port_attempts > 1 and exc.returncode == 3 and self.PORT_TAKEN in self.stderr):
                raise
            self._use_port(free_port())
            return self.start(timeout=timeout, port_attempts=port_attempts - 1)
        return self

    @property
    def stderr(self) -> str:
        """What the process wrote to stderr (its log, the console lines of a headless display)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    @property
    def log(self) -> str:
        """stderr, then stdout (captured apart, so that a test can tell where a line went)."""
        out = self.stdout_path.read_text(errors="replace") if self.stdout_path.exists() else ""
        return self.stderr + out

    def request(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if key:
            headers["Authorization"] = f"Bearer {key}"
        kwargs.setdefault("timeout", 15)
        return requests.request(method, self.url + path, headers=headers, verify=self.verify, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def cli(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        """``svc-display ARGS`` with the server's environment (same data dir and plugins)."""
        return subprocess.run([sys.executable, "-m", "svc_host", *args], env=self.env, capture_output=True,
                              text=True, input=input, timeout=60, cwd=self.data_dir.parent)

    def key(self, role: str = "admin", identifier: str | None = None) -> str:
        """A fresh API key of ``role`` (``svc-display keys create``); the server accepts it at once."""
        out = self.cli("keys", "create", "--identifier", identifier or f"{role}-{uuid.uuid4().hex[:6]}",
                       "--role", role)
        if out.returncode != 0:
            raise RuntimeError(f"keys create failed ({out.returncode}): {out.stderr}")
        return json.loads(out.stdout)["api_key"]

    def stop(self, timeout: float = 30) -> int | None:
        return stop_process(self.process, timeout)
