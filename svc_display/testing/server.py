"""A real ``svc-display serve`` process on loopback, over HTTPS by default.

The server gets its own data dir (the caller puts it under ``tmp_path``) and binds a port the OS
chooses (``SVC_DISPLAY_HTTP_PORT=0``), read back from the data dir;
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
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import requests

from svc_display.testing import forkserver
from svc_display.testing.waiting import NotYet, ProcessExited, wait_until_up


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
    """A TCP port free on 127.0.0.1 right now (the OS picks it): a guess, which another program
    can take before it is used. Only for a port a script must be given before anything listens
    (the README tour's feed server); a server of the kit binds port 0 and reads its port back,
    and :func:`closed_port` is a port that stays unreachable."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 where nothing answers (a connection is refused) for as long as the
    block runs: bound without listening and without ``SO_REUSEADDR``, so that no other program
    can bind it meanwhile (a free_port() guess could be a live server by the time it is tried)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


class ServerProcess:
    """``svc-display serve`` in a subprocess with ``env`` (which must name ``SVC_DISPLAY_DATA_DIR``).

    ``extra_pythonpath`` puts folders (a plugin installed with ``pip install --target``, a
    source checkout) in front of the server's ``PYTHONPATH``. Unless ``env`` names a port
    (``SVC_DISPLAY_HTTP_PORT``), the server binds one the OS chooses (port 0) and :meth:`start`
    reads it back from ``<data dir>/http-port`` (:attr:`port`, :attr:`url`): no port is guessed,
    so none can be taken by another process first; started again, it binds the port it had (its
    URL stays, as a display's configured port does). :meth:`start` waits until ``/v1/health``
    answers; :meth:`stop` sends SIGTERM (as systemd does) and returns the exit status.
    :attr:`log` is what the server wrote.
    """

    # the lines of a taken port (then the process exits with 3): uvicorn's at its bind, and the
    # host's own check before anything starts
    PORT_TAKEN = ("address already in use", "is in use by another program")
    PORT_FILE = "http-port"  # svc_host.server.PORT_FILE

    def __init__(self, env: dict[str, str], extra_pythonpath: list[str] = ()):
        self.port = int(env.get("SVC_DISPLAY_HTTP_PORT") or 0)  # 0: the server's choice, read back
        waitress = env.get("SVC_DISPLAY_HTTP_SERVER") == "waitress"  # plain HTTP behind a TLS proxy
        self.tls = env.get("SVC_DISPLAY_HTTP_TLS", "1") != "0" and not waitress
        self.env = {**os.environ, **env, "SVC_DISPLAY_HTTP_PORT": str(self.port),
                    "SVC_DISPLAY_HTTP_BIND_IP": env.get("SVC_DISPLAY_HTTP_BIND_IP", "127.0.0.1")}
        if extra_pythonpath:
            self.env["PYTHONPATH"] = os.pathsep.join([*extra_pythonpath, self.env.get("PYTHONPATH", "")])
        self.data_dir = Path(env["SVC_DISPLAY_DATA_DIR"])
        self.process: subprocess.Popen | None = None
        self._admin_key: str | None = None  # the kit's: issues the later keys (key())
        name = self.port or uuid.uuid4().hex[:8]  # stderr: the log, tracebacks
        self.log_path = self.data_dir.parent / f"server-{name}.log"
        self.stdout_path = self.data_dir.parent / f"server-{name}.out"
        self._use_port(self.port)

    def _use_port(self, port: int) -> None:
        self.port = port
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{port}"

    @property
    def verify(self) -> str | bool:
        """What ``requests`` verifies the server with: its own certificate (False without TLS)."""
        if not self.tls:
            return False
        cert = self.env.get("SVC_DISPLAY_HTTP_TLS_CERT")
        return cert or str(Path(self.env.get("SVC_DISPLAY_HTTP_TLS_DIR") or self.data_dir / "tls")
                           / "display-cert.pem")

    def start(self, timeout: float = 30) -> "ServerProcess":
        """Start and wait for ``/v1/health`` (on port 0: first for the port the server bound)."""
        return self.launch([sys.executable, "-m", "svc_host", "serve"], timeout=timeout)

    def launch(self, command: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
               timeout: float = 30, what: str = "server", interval: float = 0.1) -> "ServerProcess":
        """Run ``command`` (a program serving as ``svc-display serve`` does, with this server's
        environment unless ``env``) and wait for the port it bound (port 0) and its health."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = dict(env or self.env)
        chosen = env["SVC_DISPLAY_HTTP_PORT"] == "0"
        if chosen and self.port:
            # Started again (after a restore's exit 75, a stop): it keeps the address it had, as a
            # display with a configured port does; a controller knows it by that URL.
            env["SVC_DISPLAY_HTTP_PORT"] = str(self.port)
            chosen = False
        port_file = self.data_dir / self.PORT_FILE
        if chosen:
            port_file.unlink(missing_ok=True)  # (an earlier server's of this data dir)
        with open(self.stdout_path, "ab") as out, open(self.log_path, "ab") as err:
            self.process = forkserver.popen(command, env=env, cwd=cwd or self.data_dir.parent, stdout=out, stderr=err)

        def up() -> bool:
            if chosen:
                try:
                    self._use_port(int(port_file.read_text()))
                except (OSError, ValueError) as exc:
                    raise NotYet(f"no port in {port_file.name} yet ({exc})") from None
            answer = self.get("/v1/health", timeout=1)
            if answer.status_code != 200:
                raise NotYet(f"health answered {answer.status_code}: {answer.text[:200]}")
            return True

        wait_until_up(self.process, up, timeout, what, lambda: self.log, self._stop_saying_where, interval=interval)
        return self

    def _stop_saying_where(self) -> None:
        """Stop a server that did not answer in time, its threads' stacks in its log first
        (``svc-display serve`` writes them on SIGUSR1): the timeout's message says where it hung."""
        if self.process is not None and self.process.poll() is None:
            size = self.log_path.stat().st_size if self.log_path.exists() else 0
            try:
                self.process.send_signal(signal.SIGUSR1)
            except OSError:
                pass
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and self.process.poll() is None:
                with open(self.log_path, "rb") as log:
                    log.seek(size)
                    if b"most recent call first" in log.read():
                        break
                time.sleep(0.05)
        self.stop()

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
        return forkserver.run([sys.executable, "-m", "svc_host", *args], env=self.env, input=input, timeout=60,
                              cwd=self.data_dir.parent)

    def key(self, role: str = "admin", identifier: str | None = None) -> str:
        """A fresh API key of ``role``; the server accepts it at once.

        The first admin key is issued with ``svc-display keys create`` (as an operator would);
        later keys with that admin key over ``POST /v1/adoption/clients`` (as an admin client
        would), which costs a request rather than a Python process (about 0.7 s each). Whenever
        that is refused (the key revoked, a restore replaced the keys, the server stopped), the
        command issues the key."""
        identifier = identifier or f"{role}-{uuid.uuid4().hex[:6]}"
        if self._admin_key and self.process is not None and self.process.poll() is None:
            try:
                issued = self.request("POST", "/v1/adoption/clients", key=self._admin_key,
                                      json={"identifier": identifier, "role": role})
            except requests.RequestException:
                issued = None
            if issued is not None and issued.status_code == 201:
                return issued.json()["api_key"]
            self._admin_key = None
        out = self.cli("keys", "create", "--identifier", identifier, "--role", role)
        if out.returncode != 0:
            raise RuntimeError(f"keys create failed ({out.returncode}): {out.stderr}")
        key = json.loads(out.stdout)["api_key"]
        if role == "admin":
            self._admin_key = key
        return key

    def stop(self, timeout: float = 30) -> int | None:
        return stop_process(self.process, timeout)
