"""A throwaway X server (Xvfb) whose display number the server chose itself.

``Xvfb -displayfd FD`` takes the first free display and writes its number to ``FD`` once it
accepts connections, so nothing is guessed (a number picked from ``/tmp/.X*-lock`` can be taken
by another X server between the look and the start) and nothing is polled.

It listens on its socket file and on Linux's abstract socket (``@/tmp/.X11-unix/XN``, which
clients try first), never on TCP. The abstract socket is what makes ``-displayfd`` safe: a number
is free when its abstract socket can be bound, and a live server holds it until it exits. With
``-nolisten local`` (file only) the probe unlinks a live server's socket file and binds its own,
so two servers both took ``:0`` and a client of one reached the other (a 1024x768 window where
the test's Xvfb was 1024x576, beside the competing servers of ``tests/meta``). The screen's size is
read back once (``xdpyinfo``) before the display is handed out, and a server whose screen cannot
be read back is replaced.
"""
from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import subprocess
import time
from typing import Iterator


@contextlib.contextmanager
def xvfb(size: str = "1024x576x24", timeout: float = 30, attempts: int = 3) -> Iterator[str]:
    """``with xvfb("1024x576x24") as display:`` the ``DISPLAY`` (``":N"``) of an Xvfb running for
    the block, stopped after it.

    A server whose screen cannot be read back (another X server's start or stop took its socket
    away; seen as "shows no screen" while the servers listened on their socket files only) is
    stopped and another started, up to ``attempts`` times, rather than handed out unreachable."""
    for attempt in range(1, attempts + 1):
        with contextlib.ExitStack() as stack:
            server, display = _start(size, timeout)
            stack.callback(_stop, server)
            try:
                _check_size(display, size)
            except _Unreachable:
                if attempt == attempts:
                    raise
                continue
            yield display
            return


class _Unreachable(RuntimeError):
    """The X server we started does not show the screen asked for."""


def _start(size: str, timeout: float) -> tuple[subprocess.Popen, str]:
    read_fd, write_fd = os.pipe()
    # -noreset: no server reset when the last client leaves (the size check's xdpyinfo is the first
    # one), so the next client never meets a server re-making its listeners
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", size, "-nolisten", "tcp",
                               "-noreset"],
                              pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_fd)
    try:
        number = b""
        deadline = time.monotonic() + timeout
        while not number.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_fd], [], [], left)[0]:
                raise TimeoutError(f"Xvfb gave no display number within {timeout} s")
            chunk = os.read(read_fd, 16)
            if not chunk:  # it exited before it was ready
                said = server.stderr.read().decode(errors="replace")
                raise RuntimeError(f"Xvfb exited ({server.wait()}): {said}")
            number += chunk
        return server, f":{int(number)}"
    except BaseException:
        _stop(server)
        raise
    finally:
        os.close(read_fd)


def _stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    server.stderr.close()


def _check_size(display: str, size: str) -> None:
    """The screen on ``display`` is the one asked for (``WxH`` of ``WxHxD``), read back with
    ``xdpyinfo`` where it is installed: a client that reached another X server fails here, naming
    both sizes, rather than later as a wrong window."""
    if shutil.which("xdpyinfo") is None:
        return
    run = subprocess.run(["xdpyinfo", "-display", display], capture_output=True, text=True, timeout=30)
    wanted = "x".join(size.split("x")[:2])
    found = re.search(r"dimensions:\s+(\d+x\d+) pixels", run.stdout)
    if not found or found.group(1) != wanted:
        said = run.stderr.strip()[:200]
        raise _Unreachable(f"X display {display} shows {found.group(1) if found else 'no screen'}, not {wanted}"
                           + (f" ({said})" if said else ""))


@contextlib.contextmanager
def unserved_display() -> Iterator[str]:
    """``with unserved_display() as display:`` a ``DISPLAY`` (``":N"``) no X server answers for
    the block. Its abstract socket (``@/tmp/.X11-unix/XN``, what clients try first) is bound by
    this process and not listened on, so a client is refused there; no X server can take the
    number meanwhile (it could not bind that socket), and none holds its socket file. Linux only."""
    import socket

    for number in range(1000, 2000):  # above the numbers Xvfb -displayfd hands out from 0 upwards
        holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            holder.bind(f"\0/tmp/.X11-unix/X{number}")
        except OSError:
            holder.close()
            continue
        if os.path.exists(f"/tmp/.X11-unix/X{number}"):  # a server's file from before: not ours to vouch for
            holder.close()
            continue
        try:
            yield f":{number}"
        finally:
            holder.close()
        return
    raise RuntimeError("no X display number from 1000 to 1999 could be held")
