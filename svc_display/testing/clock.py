"""Injectable clocks for tests: move a host's time without sleeping.

A host reads every expiry and lifetime from ``host.clock`` (``svc_host.clock.Clock``: wall
time plus the offset in ``SVC_DISPLAY_TEST_CLOCK_FILE``). Two ways to move it:

- :func:`advance_clock` (or the ``svc_display_clock`` fixture's ``advance``) adds to the offset
  file, which in-process hosts and real server processes read alike;
- :class:`FixedClock` replaces an in-process host's clock with one that stands still
  (``host.clock = FixedClock(datetime)``), for tests that need an exact moment.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Mapping


def advance_clock(env: Mapping[str, str], ms: int) -> None:
    """Move the clock of every host built from ``env`` forward by ``ms`` (in-process and served alike)."""
    path = Path(env["SVC_DISPLAY_TEST_CLOCK_FILE"])
    current = int(path.read_text() or 0) if path.exists() else 0
    path.write_text(str(current + ms))


class FixedClock:
    """A clock that stands still at ``when`` (an aware datetime, or epoch milliseconds)."""

    def __init__(self, when: dt.datetime | int):
        self.ms = when if isinstance(when, int) else int(when.timestamp() * 1000)

    def now_ms(self) -> int:
        return self.ms

    def now(self) -> float:
        return self.ms / 1000.0


class TestClock:
    """The ``svc_display_clock`` fixture: the offset file of ``svc_display_env``'s hosts."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, env: Mapping[str, str]):
        self.env = env

    def advance(self, ms: int = 0, *, seconds: float = 0) -> None:
        """Move time forward by ``ms`` milliseconds plus ``seconds``."""
        advance_clock(self.env, ms + int(seconds * 1000))

    @property
    def offset_ms(self) -> int:
        path = Path(self.env["SVC_DISPLAY_TEST_CLOCK_FILE"])
        return int(path.read_text() or 0) if path.exists() else 0
