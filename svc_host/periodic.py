"""A task run every few seconds on a daemon thread (the adoption challenge sweep, the
controller's backup scheduler).

The thread waits on an event between runs, so :meth:`Periodic.stop` never waits out a period;
a run that raises is logged and the next one runs on time: a busy database must not end the
task.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)


class Periodic:
    """``task()`` every ``seconds`` (the first after one period) between :meth:`start` and
    :meth:`stop`, on a thread named ``name``; :meth:`stop` waits at most ``join_timeout`` seconds
    for a run under way."""

    def __init__(self, name: str, seconds: float, task: Callable[[], Any], join_timeout: float = 10):
        self.name = name
        self.seconds = seconds
        self.task = task
        self.join_timeout = join_timeout
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.join_timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                self.task()
            except Exception:  # noqa: BLE001  (the next run may well succeed)
                log.exception("%s: a run failed; the next one runs in %g s", self.name, self.seconds)
