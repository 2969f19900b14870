"""Sidecar supervision: start, watch, restart with backoff, stop (CONTRACT "Folder plugins").

One thread per sidecar runs :meth:`Sidecar.run`:

1. ``starting``: a new key (:mod:`.keys`) and a free loopback port; the command runs in the
   plugin's folder, in a process group of its own (``start_new_session``), with the
   environment of :func:`sidecar_environment`; its output goes to the log as
   ``plugin <id>: <line>``, bounded in bytes a minute (:class:`OutputLimit`), the dropped bytes counted.
2. ``GET http://127.0.0.1:<port><health_path>`` is polled until it answers 2xx (then
   ``running``) or ``SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS`` pass.
3. While running, the health path is polled every 5 s; three failures in a row count as
   a hang.
4. An exit, a hang or no answer in time: the whole process group is stopped (SIGTERM, then
   SIGKILL after 10 s), the key revoked, the state ``restarting`` with the reason, and the
   sidecar started again after 1 s, doubling up to 5 min (back to 1 s after a minute of
   health). A command that cannot be executed at all is ``failed`` and not retried.
5. Shutdown: SIGTERM to every group at once, SIGKILL to what is left 10 s later.

Process groups are what ``kill`` reaches, so a grandchild that stays in its group is
stopped with its parent; one that starts a session of its own (``setsid``) escapes, like
from any supervisor without cgroups.

Written by hand over ``subprocess``: supervisor libraries (supervisord, circus) are daemons
of their own with their own configuration and process model; what is needed here is one
thread and a process group per sidecar inside the display.
"""
from __future__ import annotations

import http.client
import logging
import os
import select
import signal
import socket
import subprocess
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any, Callable

from builtin_plugins.folder_plugins.keys import PluginKeys
from builtin_plugins.folder_plugins.manifest import FolderPlugin

log = logging.getLogger(__name__)

BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 300.0
STABLE_SECONDS = 60.0  # healthy this long: the next restart waits BACKOFF_FIRST_SECONDS again
HEALTH_INTERVAL_SECONDS = 5.0
HEALTH_TIMEOUT_SECONDS = 2.0
HEALTH_FAILURES = 3
STOP_GRACE_SECONDS = 10.0
STARTING_POLL_SECONDS = 0.25
LINE_MAX = 4000
# The sidecar's output in the display's log: at most this many bytes a minute per sidecar
# (all of them at once at most), the others counted and reported (docs/folder-plugins.md).
OUTPUT_BYTES_PER_MINUTE = 64 * 1024
OUTPUT_LINE_COST = 100  # what a log line adds to the output it holds: time, level, logger, plugin id
OUTPUT_REPORT_SECONDS = 10.0
OUTPUT_READ_BYTES = 64 * 1024
OUTPUT_PAUSE_SECONDS = 0.1  # over the budget, at most 640 KiB/s is read (and counted): a few % of a core
# The only variables of the display's own environment a sidecar sees (never its secrets).
INHERITED_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")

STARTING, RUNNING, RESTARTING, FAILED = "starting", "running", "restarting", "failed"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the sidecar binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sidecar_environment(plugin: FolderPlugin, port: int, key: str, api_url: str, api_ca: str | None,
                        inherited: dict[str, str] | None = None) -> dict[str, str]:
    """What a sidecar's process sees: a few of the display's variables, the manifest's ``env``,
    and the display's ``SVC_PLUGIN_*`` / ``SVC_DISPLAY_API_*`` (which the manifest cannot set)."""
    source = os.environ if inherited is None else inherited
    env = {name: source[name] for name in INHERITED_ENV if name in source}
    env["PYTHONUNBUFFERED"] = "1"  # a Python sidecar's lines reach the log as they are printed
    env.update((plugin.sidecar or {}).get("env", {}))
    env.update({"SVC_PLUGIN_ID": plugin.id, "SVC_PLUGIN_DIR": str(plugin.folder),
                "SVC_PLUGIN_PORT": str(port), "SVC_DISPLAY_API_URL": api_url, "SVC_DISPLAY_API_KEY": key})
    if api_ca:
        env["SVC_DISPLAY_API_CA"] = api_ca
    return env


def probe(port: int, path: str, timeout: float = HEALTH_TIMEOUT_SECONDS) -> tuple[bool, str]:
    """``GET path`` on the sidecar: (True, "") for a 2xx answer, else (False, why)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Connection": "close"})
        answer = connection.getresponse()
        answer.read(64 * 1024)
        if 200 <= answer.status < 300:
            return True, ""
        return False, f"answered {answer.status}"
    except ConnectionRefusedError:
        return False, "connection refused"
    except (socket.timeout, TimeoutError):
        return False, f"no answer within {timeout:g} s"
    except http.client.HTTPException as exc:
        return False, f"not an HTTP answer ({type(exc).__name__})"
    except OSError as exc:
        return False, exc.strerror or type(exc).__name__
    finally:
        connection.close()


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` is still alive (zombies do not count)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            return True
    return False


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def exit_text(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class OutputLimit:
    """A token bucket of log bytes (one per sidecar) that counts the bytes it refuses.

    Written by hand: the rate limiters at hand (``svc_host/rest/ratelimit.py``, the ``limits``
    package) answer yes or no for one event of one weight, and here each piece of output is
    weighed by its length in bytes, and a refused block is counted at once without a call per line."""

    def __init__(self, per_minute: int = OUTPUT_BYTES_PER_MINUTE, report_seconds: float = OUTPUT_REPORT_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.report_seconds, self.clock = per_minute / 60.0, per_minute, report_seconds, clock
        self.tokens = float(per_minute)
        self.at = self.reported_at = clock()
        self.dropped = 0
        self.refused = False  # since the last look (the reader pauses when set)

    def take(self, size: int) -> bool:
        """Whether a log line of ``size`` bytes of output may be logged now (then they are spent,
        with :data:`OUTPUT_LINE_COST`, what the log adds to a line); else they are counted as dropped."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if size + OUTPUT_LINE_COST <= self.tokens:
            self.tokens -= size + OUTPUT_LINE_COST
            return True
        self.dropped += size
        self.refused = True
        return False

    def drop(self, size: int) -> None:
        """Count ``size`` bytes not logged (the rest of a block once one piece of it was refused)."""
        self.dropped += size

    def report_due_in(self) -> float:
        """Seconds until the next report is due."""
        return self.reported_at + self.report_seconds - self.clock()

    def report(self, final: bool = False) -> int:
        """The count of bytes dropped since the last report, when one is due (else 0)."""
        now = self.clock()
        if not self.dropped or not (final or now - self.reported_at >= self.report_seconds):
            return 0
        dropped, self.dropped, self.reported_at = self.dropped, 0, now
        return dropped


def _printable(line: str) -> str:
    """One log line: control characters (escape sequences, carriage returns) shown as '?'."""
    return "".join(ch if ch == "\t" or unicodedata.category(ch) != "Cc" else "?" for ch in line)


class Sidecar:
    """One plugin's sidecar and its supervising thread; ``snapshot()`` is its public state."""

    def __init__(self, plugin: FolderPlugin, keys: PluginKeys, start_timeout: float,
                 on_change: Callable[[], None]):
        self.plugin = plugin
        self.keys = keys
        self.api_url = ""
        self.api_ca: str | None = None
        self.start_timeout = start_timeout
        self.on_change = on_change
        self.on_running: Callable[[], None] | None = None  # each time it becomes healthy
        self.state = STARTING
        self.reason: str | None = "waiting for the display to serve"
        self.pid: int | None = None
        self.port: int | None = None
        self.restart_count = 0
        self.started_at_ms: int | None = None
        self.backoff_seconds: float | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._proc: subprocess.Popen | None = None
        self._term_sent_at: float | None = None
        self._thread: threading.Thread | None = None

    # ---- public --------------------------------------------------------------------------

    def start(self, api_url: str, api_ca: str | None) -> None:
        """Start supervising; the sidecar reaches the display at ``api_url`` trusting ``api_ca``."""
        self.api_url, self.api_ca = api_url, api_ca
        self._thread = threading.Thread(target=self.run, name=f"sidecar-{self.plugin.id}", daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """SIGTERM to the sidecar's group; the thread sends SIGKILL after the grace period."""
        with self._lock:
            self._stopping.set()
            if self._proc is not None and self._term_sent_at is None:
                self._term_sent_at = time.monotonic()
                _signal_group(self._proc.pid, signal.SIGTERM)

    def join(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def url(self) -> str | None:
        with self._lock:
            return f"http://127.0.0.1:{self.port}" if self.state == RUNNING and self.port else None

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"state": self.state, "reason": self.reason, "pid": self.pid, "port": self.port,
                    "restart_count": self.restart_count, "started_at_ms": self.started_at_ms,
                    "backoff_seconds": self.backoff_seconds, "health_path": self.plugin.health_path,
                    "command": list((self.plugin.sidecar or {}).get("command", []))}

    # ---- the supervising thread -------------------------------------------------------------

    def _update(self, **changes: Any) -> None:
        with self._lock:
            if all(getattr(self, name) == value for name, value in changes.items()):
                return
            for name, value in changes.items():
                setattr(self, name, value)
        self.on_change()

    def run(self) -> None:
        delay = BACKOFF_FIRST_SECONDS
        while not self._stopping.is_set():
            try:
                proc = self._launch()
            except (OSError, ValueError) as exc:
                command = (self.plugin.sidecar or {}).get("command", ["?"])[0]
                reason = f"cannot start {command!r}: {getattr(exc, 'strerror', None) or exc}"
                log.error("plugin %s: %s; not retried (fix the manifest and restart the display)",
                          self.plugin.id, reason)
                self.keys.revoke(self.plugin.id)
                self._update(state=FAILED, reason=reason, pid=None, port=None)
                return
            if proc is None:
                break
            started = time.monotonic()
            healthy_since, why = self._watch(proc, started)
            self._end(proc)
            if self._stopping.is_set():
                break
            if healthy_since is not None and time.monotonic() - healthy_since >= STABLE_SECONDS:
                delay = BACKOFF_FIRST_SECONDS
            log.warning("plugin %s: sidecar %s; starting it again in %g s", self.plugin.id, why, delay)
            self._update(state=RESTARTING, reason=why, pid=None, port=None, backoff_seconds=delay,
                         restart_count=self.restart_count + 1)
            if self._stopping.wait(delay):
                break
            delay = min(delay * 2, BACKOFF_MAX_SECONDS)
        self._update(pid=None)

    def _launch(self) -> subprocess.Popen | None:
        plugin = self.plugin
        with self._lock:
            if self._stopping.is_set():
                return None
            port = free_port()
            key = self.keys.issue(plugin.id)
            env = sidecar_environment(plugin, port, key, self.api_url, self.api_ca)
            proc = subprocess.Popen(list(plugin.sidecar["command"]), cwd=plugin.folder, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
            self._proc, self._term_sent_at = proc, None
        log.info("plugin %s: sidecar started (pid %d, port %d)", plugin.id, proc.pid, port)
        threading.Thread(target=self._pump, args=(proc,), name=f"sidecar-log-{plugin.id}",
                         daemon=True).start()
        self._update(state=STARTING, reason=f"waiting for GET {plugin.health_path}", pid=proc.pid, port=port,
                     started_at_ms=int(time.time() * 1000), backoff_seconds=None)
        return proc

    def _pump(self, proc: subprocess.Popen) -> None:
        """The sidecar's output into the log, line by line (long lines cut in pieces of
        ``LINE_MAX`` bytes), at most :data:`OUTPUT_BYTES_PER_MINUTE` bytes of it a minute (a
        token bucket that holds a minute's worth); the bytes over that are dropped, not decoded,
        and their count logged every :data:`OUTPUT_REPORT_SECONDS` while there are some
        (more output or not), and when the output ends. A line costs its bytes, its newline and
        :data:`OUTPUT_LINE_COST` (what the log adds to it), so the log itself grows by at most about
        :data:`OUTPUT_BYTES_PER_MINUTE` a minute.

        Read in blocks, and over the budget a block per :data:`OUTPUT_PAUSE_SECONDS` only (the
        pipe then fills and the sidecar's writes wait), so that a sidecar printing as fast as
        it can costs the display little CPU and a log bounded in bytes whatever its lines' length."""
        assert proc.stdout is not None
        limit = OutputLimit()
        fd = proc.stdout.fileno()

        def emit(raw: bytes) -> None:
            line = raw.decode("utf-8", "replace").rstrip("\r")
            log.info("plugin %s: %s", self.plugin.id, _printable(line))

        def log_lines(block: bytes) -> None:
            """``block``: complete lines, each ending in a newline; logged until one piece does
            not fit the budget, the rest of the block dropped with it."""
            at = 0
            while at < len(block):
                end = block.index(b"\n", at)
                for start in range(at, max(end, at + 1), LINE_MAX):
                    last = start + LINE_MAX >= end  # the line's last piece: its newline is paid with it
                    piece = block[start:min(start + LINE_MAX, end)]
                    if not limit.take(len(piece) + last):
                        limit.drop(len(block) - (end + 1 if last else start + LINE_MAX))
                        return
                    emit(piece)
                at = end + 1

        def report(final: bool = False) -> None:
            dropped = limit.report(final)
            if dropped:
                log.warning("plugin %s: dropped %d bytes of sidecar output (more than %d bytes a minute)",
                            self.plugin.id, dropped, OUTPUT_BYTES_PER_MINUTE)

        def read() -> bytes:
            """The next block; while a count of dropped bytes waits, its report is not held
            back by a sidecar that went quiet (it is logged when due, output or not)."""
            while limit.dropped:
                if select.select([fd], [], [], max(limit.report_due_in(), 0.0))[0]:
                    break
                report()
            return os.read(fd, OUTPUT_READ_BYTES)

        pending = b""
        with proc.stdout:
            while chunk := read():
                pending += chunk
                complete = pending.rfind(b"\n") + 1
                if complete:
                    log_lines(pending[:complete])
                    pending = pending[complete:]
                while len(pending) >= LINE_MAX:  # an unfinished line this long: a piece of its own
                    if limit.take(LINE_MAX):
                        emit(pending[:LINE_MAX])
                    pending = pending[LINE_MAX:]
                report()
                if limit.refused:  # over the budget: read no faster than a block a pause, so the
                    limit.refused = False  # pipe fills and a sidecar spamming waits on its writes
                    time.sleep(OUTPUT_PAUSE_SECONDS)
            if pending and limit.take(len(pending)):
                emit(pending)
            report(final=True)

    def _sleep(self, proc: subprocess.Popen, seconds: float) -> bool:
        """Wait up to ``seconds``; True when the process exited or a stop was asked meanwhile."""
        try:
            proc.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return self._stopping.is_set()

    def _watch(self, proc: subprocess.Popen, started: float) -> tuple[float | None, str]:
        """Until the sidecar ends: (when it became healthy or None, why it ended)."""
        path = self.plugin.health_path
        while True:
            if proc.poll() is not None:
                return None, exit_text(proc.returncode)
            if self._stopping.is_set():
                return None, "stopped"
            ok, why = probe(self.port or 0, path)
            if ok:
                break
            if time.monotonic() - started > self.start_timeout:
                return None, f"no answer to GET {path} within {self.start_timeout:g} s ({why})"
            self._update(reason=f"waiting for GET {path}: {why}")
            if self._sleep(proc, STARTING_POLL_SECONDS) and proc.poll() is None:
                return None, "stopped"
        healthy_since = time.monotonic()
        log.info("plugin %s: sidecar running", self.plugin.id)
        self._update(state=RUNNING, reason=None)
        if self.on_running is not None:
            try:
                self.on_running()
            except Exception:  # noqa: BLE001  a listener's bug must not stop the supervision
                log.exception("plugin %s: a listener of the sidecar's start failed", self.plugin.id)
        failures = 0
        while True:
            if self._sleep(proc, HEALTH_INTERVAL_SECONDS):
                return healthy_since, exit_text(proc.returncode) if proc.poll() is not None else "stopped"
            ok, why = probe(self.port or 0, path)
            failures = 0 if ok else failures + 1
            if failures >= HEALTH_FAILURES:
                return healthy_since, f"GET {path} failed {failures} times in a row ({why})"
            self._update(reason=None if ok else f"GET {path} failed: {why}")

    def _end(self, proc: subprocess.Popen) -> None:
        """Stop what is left of the sidecar's process group, reap it and revoke its key."""
        pgid = proc.pid
        with self._lock:
            if self._term_sent_at is None:
                self._term_sent_at = time.monotonic()
                _signal_group(pgid, signal.SIGTERM)
            deadline = self._term_sent_at + STOP_GRACE_SECONDS
        while time.monotonic() < deadline and (proc.poll() is None or group_alive(pgid)):
            time.sleep(0.1)
        if proc.poll() is None or group_alive(pgid):
            log.warning("plugin %s: sidecar still running %g s after SIGTERM: SIGKILL", self.plugin.id,
                        STOP_GRACE_SECONDS)
            _signal_group(pgid, signal.SIGKILL)
        proc.wait()
        with self._lock:
            self._proc = None
        self.keys.revoke(self.plugin.id)
