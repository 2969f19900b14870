"""Polling for a condition in tests: the machine may be loaded, so tests wait for what they
expect with a generous deadline instead of sleeping a fixed time or asserting on timing."""
from __future__ import annotations

import subprocess
import time
from typing import Any, Callable

import requests


def wait_for(predicate: Callable[[], Any], timeout: float = 60.0, interval: float = 0.05,
             what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy and return that; fail the test after
    ``timeout`` seconds naming ``what`` and the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last: {value!r})")
        time.sleep(interval)


class ProcessExited(RuntimeError):
    """The process ended before it answered; ``returncode`` is its exit status."""

    def __init__(self, message: str, returncode: int):
        super().__init__(message)
        self.returncode = returncode


class NotYet(Exception):
    """Raised by a ``healthy()`` of :func:`wait_until_up` to say why it is not up yet (the last
    reason is in the timeout's message)."""


def wait_until_up(process: subprocess.Popen, healthy: Callable[[], bool], timeout: float, what: str,
                  log: Callable[[], str], stop: Callable[[], Any], interval: float = 0.1) -> None:
    """Return once ``healthy()`` (a health request answered 200) while ``process`` starts; a refused
    or timed-out connection is a server not listening yet. Raise :class:`ProcessExited` when the
    process ends first; after ``timeout`` seconds, ``stop()`` it and raise RuntimeError. Both
    messages name ``what`` and hold ``log()``; the timeout's names the last reason too (the last
    connection error, or what ``healthy()`` raised as :class:`NotYet`), with how many tries."""
    deadline = time.monotonic() + timeout
    last, tries = "not tried", 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ProcessExited(f"{what} exited with {process.returncode}:\n{log()}", process.returncode)
        tries += 1
        try:
            if healthy():
                return
            last = "not healthy"
        except (requests.ConnectionError, requests.Timeout, OSError, NotYet) as exc:
            last = f"{type(exc).__name__}: {exc}"[:300]
        time.sleep(interval)
    stop()
    raise RuntimeError(f"{what} did not answer within {timeout}s ({tries} tries, the last: {last}):\n{log()}")
