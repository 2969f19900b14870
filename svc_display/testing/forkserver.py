"""Python processes of the suite started from a preloaded interpreter: ``python -m MODULE ARGS``
forked from a process that has already imported the host, its builtin plugins, the HTTP server
and the controller (a "zygote", as :mod:`multiprocessing`'s ``forkserver`` start method does).

Each ``svc-display serve``, ``svc-display keys create``, ``svc-controller serve`` or driven canvas
of a test is still its own process, with its own pid, environment, working directory, standard
streams and exit status, reached over real sockets; what it skips is about 0.5 s of CPU spent
importing the same modules (``benchmarks/forkserver.py``). The suite starts several hundred.

The kit's launchers (:class:`~svc_display.testing.server.ServerProcess`, the controller's and the
driven canvas's) call :func:`popen` and :func:`run`. A command is forked only when a fresh process
would import the same code: ``sys.executable -m MODULE``, with the variables that change how
Python starts or finds modules (``PYTHON*``, ``LANG``/``LC_*``) those of a zygote (one per such
set, started at its first use, ended with the test process). Anything else (another program, an
extra ``PYTHONPATH`` entry, ``subprocess.PIPE``) runs as a plain subprocess, as does everything
when ``SVC_TEST_FORKSERVER=0``. If importing the preload wrote anything (a warning, a banner),
left a thread running or imported Kivy (whose settings are read at import, per process), the
zygote refuses and its commands run as plain subprocesses, so no test of a clean start is misled.

Why by hand: :mod:`multiprocessing`'s forkserver runs Python functions with pickled arguments,
not ``python -m`` commands with their own environment, streams and exit status; no library
offers that.
"""
from __future__ import annotations

import gc
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from typing import Any, Callable, Sequence

_STARTUP_PREFIXES = ("PYTHON", "LC_")
_STARTUP_NAMES = ("LANG", "LANGUAGE")


def _startup(env: dict[str, str]) -> dict[str, str]:
    """The variables of ``env`` that change how an interpreter starts and finds modules."""
    return {name: value for name, value in env.items()
            if name.startswith(_STARTUP_PREFIXES) or name in _STARTUP_NAMES}


# -- the zygote (``python -m svc_display.testing.zygote``) -------------------------------------------

def _preload() -> None:
    """Import what ``svc-display`` and ``svc-controller`` import before they serve."""
    from importlib import metadata

    from hookspecs import ENTRY_POINT_GROUP
    from svc_host.plugins import BUILTIN_DISTRIBUTION

    for name in ("svc_host.cli", "svc_host.host", "svc_host.server", "svc_host.http.app",
                 "svc_controller.cli", "uvicorn", "uvicorn.config", "uvicorn.server", "uvicorn.main",
                 "uvicorn.lifespan.on", "uvicorn.protocols.http.httptools_impl",
                 "uvicorn.loops.asyncio", "waitress"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.dist is not None and entry.dist.metadata["Name"] == BUILTIN_DISTRIBUTION:
            entry.load()


def _zygote(control: socket.socket) -> Callable[[], None] | None:
    """Serve fork requests on ``control`` until it closes; in a forked child, return the command
    to run (the caller runs it outside every frame of this loop)."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}  # pid -> the socket its exit status goes to

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            reply = children.pop(pid, None)
            if reply is not None:
                try:
                    reply.send(b"exit %d" % os.waitstatus_to_exitcode(status))
                except OSError:
                    pass
                reply.close()

    while True:  # (a signal does not interrupt select or recv_fds: PEP 475 retries them)
        ready, _, _ = select.select([control, wake_read], [], [])
        if wake_read in ready:
            try:
                os.read(wake_read, 4096)
            except BlockingIOError:
                pass
        reap()
        if control not in ready:
            continue
        message, fds, _, _ = socket.recv_fds(control, 1 << 20, 4)
        if not message:
            return None  # the test process is gone
        request = json.loads(message)
        reply = socket.socket(fileno=fds[0])
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.set_wakeup_fd(-1)
            control.close()
            for other in children.values():
                other.close()
            os.close(wake_read)
            os.close(wake_write)
            for target, fd in zip((0, 1, 2), fds[1:]):
                os.dup2(fd, target)
            for fd in fds[1:]:
                if fd > 2:
                    os.close(fd)
            reply.close()
            return lambda: _run(request)
        for fd in fds[1:]:
            os.close(fd)
        children[pid] = reply
        reply.send(b"pid %d" % pid)


def _run(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m MODULE ARGS`` in the request's directory and
    environment (sys.path as a fresh ``-m`` start builds it: the working directory first)."""
    import runpy

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = os.getcwd()
    importlib.invalidate_caches()
    sys.argv = ["-m", *request["args"]]
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)


def _main() -> Callable[[], None] | None:
    control = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    sys.stdout.flush()
    sys.stderr.flush()
    wrote = os.fstat(1).st_size > 0 or os.fstat(2).st_size > 0
    threads = [thread.name for thread in threading.enumerate() if thread is not threading.main_thread()]
    if wrote or threads or "kivy" in sys.modules:
        why = ("the preload wrote output" if wrote else f"the preload left threads {threads}" if threads
               else "the preload imported Kivy")
        control.send(b"refused " + why.encode())
        return None
    # What the preload made lives as long as any child: out of the collector's way (as
    # tests/conftest.py does in the workers). A child's full collections then walk only what it
    # made, and do not write to the inherited objects' headers, which would copy their pages.
    gc.freeze()
    control.send(b"ready")
    return _zygote(control)


# -- the test process's side ---------------------------------------------------------------------

class ForkedProcess:
    """A process forked by the zygote, with the :class:`subprocess.Popen` methods the suite uses."""

    def __init__(self, args: Sequence[str], status: socket.socket):
        self.args = list(args)
        self._status = status
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        answer = status.recv(64)
        if not answer.startswith(b"pid "):
            raise OSError(f"the zygote did not fork: {answer!r}")
        self.pid = int(answer.split()[1])

    def _read_status(self, timeout: float | None) -> None:
        if self.returncode is not None:
            return
        ready, _, _ = select.select([self._status], [], [], timeout)
        if not ready:
            return
        answer = self._status.recv(64)
        self._status.close()
        # "exit N"; an empty read: the zygote itself died, and with it the knowledge of the status
        self.returncode = int(answer.split()[1]) if answer.startswith(b"exit ") else -signal.SIGKILL

    def poll(self) -> int | None:
        self._read_status(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._read_status(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class _Zygote:
    def __init__(self, startup: dict[str, str]) -> None:
        ours = _startup(os.environ)
        env = {name: value for name, value in os.environ.items() if name not in ours}
        import tempfile

        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with tempfile.TemporaryFile() as output:  # empty unless the preload wrote something
            self.process = subprocess.Popen([sys.executable, "-m", "svc_display.testing.zygote",
                                             str(there.fileno())], env={**env, **startup},
                                            pass_fds=[there.fileno()], stdin=subprocess.DEVNULL,
                                            stdout=output, stderr=output)
        there.close()
        self.control = here
        self.lock = threading.Lock()
        answer = here.recv(4096)
        self.refused = None if answer == b"ready" else answer.decode(errors="replace")

    def usable(self) -> bool:
        return self.refused is None and self.process.poll() is None

    def spawn(self, command: Sequence[str], env: dict[str, str], cwd: str, fds: Sequence[int]) -> ForkedProcess:
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        request = {"module": command[2], "args": list(command[3:]), "env": env, "cwd": cwd}
        with self.lock:
            socket.send_fds(self.control, [json.dumps(request).encode()], [there.fileno(), *fds])
        there.close()
        return ForkedProcess(command, here)

    def close(self) -> None:
        self.control.close()  # the zygote exits at the end of its socket
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


_ZYGOTES: dict[tuple, _Zygote] = {}  # sorted startup variables -> the zygote started with them
_ZYGOTE_LOCK = threading.Lock()


def _zygote_for(command: Sequence[str], env: dict[str, str]) -> _Zygote | None:
    """The zygote for ``command`` in ``env`` (started now if it is the first), or None when the
    command must run as a plain subprocess."""
    if (os.environ.get("SVC_TEST_FORKSERVER", "1") == "0" or len(command) < 3 or command[0] != sys.executable
            or command[1] != "-m" or not _same_modules(env.get("PYTHONPATH", ""))):
        return None
    startup = _startup(env)
    key = tuple(sorted(startup.items()))
    with _ZYGOTE_LOCK:
        zygote = _ZYGOTES.get(key)
        if zygote is None or zygote.process.poll() is not None:
            import atexit

            zygote = _ZYGOTES[key] = _Zygote(startup)
            atexit.register(zygote.close)
    return zygote if zygote.usable() else None


def _same_modules(pythonpath: str) -> bool:
    """Whether a child with ``pythonpath`` finds the modules this process finds: the same
    ``PYTHONPATH``, or this checkout put in front of it (as the driven canvas's child does)."""
    ours = os.environ.get("PYTHONPATH", "")
    if pythonpath == ours:
        return True
    first, _, rest = pythonpath.partition(os.pathsep)
    import svc_display

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(svc_display.__file__)))
    return rest == ours and os.path.abspath(first) == checkout


def _fd(stream: Any, default: int) -> tuple[int, Callable[[], None]]:
    """An fd for a child's stream given as Popen takes it (None, DEVNULL, a file, an fd)."""
    if stream is None:
        return default, lambda: None
    if stream == subprocess.DEVNULL:
        fd = os.open(os.devnull, os.O_RDWR)
        return fd, lambda: os.close(fd)
    if isinstance(stream, int):
        return stream, lambda: None
    return stream.fileno(), lambda: None


def popen(command: Sequence[str], env: dict[str, str] | None = None, cwd: Any = None, stdin: Any = None,
          stdout: Any = None, stderr: Any = None) -> "subprocess.Popen | ForkedProcess":
    """``subprocess.Popen(command, env=..., cwd=..., stdin=..., stdout=..., stderr=...)``, forked
    from the zygote when it fits (streams: None, DEVNULL, files or fds; not PIPE)."""
    env = dict(os.environ if env is None else env)
    zygote = _zygote_for(command, env) if subprocess.PIPE not in (stdin, stdout, stderr) else None
    if zygote is None:
        return subprocess.Popen(list(command), env=env, cwd=cwd, stdin=stdin, stdout=stdout, stderr=stderr)
    opened = [_fd(stdin, 0), _fd(stdout, 1)]
    opened.append(opened[1] if stderr == subprocess.STDOUT else _fd(stderr, 2))
    try:
        return zygote.spawn(command, env, os.fspath(cwd or os.getcwd()), [fd for fd, _ in opened])
    finally:
        for _, close in opened:
            close()


def run(command: Sequence[str], env: dict[str, str] | None = None, cwd: Any = None, input: str | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(command, env=..., cwd=..., input=..., timeout=..., capture_output=True,
    text=True)``, forked from the zygote when it fits."""
    env = dict(os.environ if env is None else env)
    zygote = _zygote_for(command, env)
    if zygote is None:
        return subprocess.run(list(command), env=env, cwd=cwd, input=input, timeout=timeout,
                              capture_output=True, text=True)
    import tempfile

    # Files rather than pipes: the child's output is read once it exited, with no reader threads.
    with tempfile.TemporaryFile() as source, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        source.write((input or "").encode())
        source.seek(0)
        process = zygote.spawn(command, env, os.fspath(cwd or os.getcwd()),
                               [source.fileno(), out.fileno(), err.fileno()])
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        return subprocess.CompletedProcess(list(command), process.returncode, _text(out), _text(err))


def _text(file: Any) -> str:
    """What ``text=True`` makes of a stream: the locale's encoding, universal newlines."""
    import io

    file.seek(0)
    return io.TextIOWrapper(io.BytesIO(file.read())).read()

