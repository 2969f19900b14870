"""systemd's notify protocol: ``READY=1`` once the server serves, ``WATCHDOG=1`` while the
display lives (``docs/deployment.md``).

With ``NOTIFY_SOCKET`` set (systemd sets it for ``Type=notify``; a name starting with ``@`` is
in the abstract namespace) the host sends ``READY=1`` once its port is bound and accepts
connections. With ``WATCHDOG_USEC`` too (``WatchdogSec=``) a thread pings ``WATCHDOG=1``
every quarter interval, but only on evidence that the process works:

- while a canvas should be drawing, the UI thread's Kivy clock stamps :meth:`Watchdog.beat`
  (``"ui"``); a renderer stuck in a loop on the UI thread stops the stamps, so the pings stop
  and systemd restarts the display after ``WatchdogSec``;
- while the canvas is dark (the panel is off) or there is none (headless), the server's event
  loop stamps ``"server"`` (the ping thread asks it to: a loop that no longer runs callbacks
  answers no request either).

A stamp counts while it is younger than half the interval, so the pings stop within one
interval of the last sign of life. Written by hand: the protocol is one datagram per message
(sd_notify(3)); the ``systemd`` binding needs libsystemd to build and ``sdnotify`` is unmaintained.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any, Callable, Mapping

log = logging.getLogger(__name__)


class Watchdog:
    def __init__(self, environ: Mapping[str, str] | None = None):
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        pid = env.get("WATCHDOG_PID", "")
        try:
            usec = int(env.get("WATCHDOG_USEC", "") or 0)
        except ValueError:
            usec = 0
        mine = not pid or pid == str(os.getpid())
        self.interval = usec / 1_000_000 if (self.address and usec > 0 and mine) else 0.0
        self.canvas = False  # True while a canvas should be drawing: only UI stamps count then
        self._stamps: dict[str, float] = {}
        self._server_probe: Callable[[], Any] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sent: list[str] = []  # what was sent (the last few), for the log and tests in-process

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, message: str) -> bool:
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message.encode(), self.address)
        except OSError as exc:
            log.warning("watchdog: cannot notify %s: %s", self.address.replace("\0", "@"), exc)
            return False
        self.sent = [*self.sent[-9:], message]
        return True

    def beat(self, source: str) -> None:
        """A sign of life from ``source`` (``ui`` or ``server``); any thread."""
        self._stamps[source] = time.monotonic()

    def fresh(self, source: str) -> bool:
        stamp = self._stamps.get(source)
        return stamp is not None and time.monotonic() - stamp < self.interval / 2

    def ready(self, server_probe: Callable[[], Any] | None = None) -> None:
        """The server accepts connections: ``READY=1``, and the pings start when asked for.
        ``server_probe()`` (any thread) makes the server's loop call ``beat("server")``."""
        self._server_probe = server_probe
        self.beat("server")
        self.notify("READY=1")
        if self.interval and self._thread is None:
            log.info("watchdog: pinging systemd every %.1f s while the display draws", self.interval / 4)
            self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.address:
            self.notify("STOPPING=1")

    def _run(self) -> None:
        while not self._stop.wait(self.interval / 4):
            probe = self._server_probe
            if probe is not None:
                try:
                    probe()
                except RuntimeError:  # the loop closed: no stamp, no ping
                    pass
            if self.fresh("ui") if self.canvas else self.fresh("server"):
                self.notify("WATCHDOG=1")


_WATCHDOG: Watchdog | None = None


def watchdog() -> Watchdog:
    """The process's watchdog (made from the environment on first use)."""
    global _WATCHDOG
    if _WATCHDOG is None:
        _WATCHDOG = Watchdog()
    return _WATCHDOG
