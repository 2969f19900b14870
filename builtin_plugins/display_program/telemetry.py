"""Program telemetry (spec 2.12, 4.8): in-process ring buffers, not persisted.

- program line: ``{at_ms, reason, slides}``; ``reason`` is ``start``, ``dwell``,
  ``navigation_forward``, ``navigation_back``, ``content_changed``, ``settings_changed``,
  ``renderer_error``, ``idle``, ``program_changed`` or ``in_step`` (a display of a sync group
  caught up with its group's cycle: it joined it, the program changed, it was dark); ``slides`` lists what the change put on screen,
  each ``{id, screen_type, name, dwell_seconds}`` (empty when nothing could be shown).
- ticker program line: ``{at_ms, items}`` with the items of one marquee cycle,
  each ``{ordinal, kind, body}`` (spec 2.4).

A program line that puts a slide on screen (or none: ``idle``) is also the slide's play
(``host.services[PLAYS]``, the ``plays`` plugin, when it runs): the slide on screen ends there,
complete when the line's reason is ``dwell`` (its dwell ran out), and the line's slide starts.
``program_changed`` lines list the program and change no play.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any

from hookspecs.services import PLAYS, service

CAPACITY = 500


class RingBuffer:
    def __init__(self, capacity: int = CAPACITY):
        self._items: deque[dict] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def append(self, item: dict[str, Any]) -> None:
        with self._lock:
            self._items.append(item)

    def query(self, limit: int, since_ms: int | None = None) -> list[dict]:
        """Newest first, at most ``limit``, only lines with ``at_ms >= since_ms``."""
        with self._lock:
            items = list(self._items)
        if since_ms is not None:
            items = [i for i in items if i["at_ms"] >= since_ms]
        return list(reversed(items))[:limit]


class ProgramTelemetry:
    """``host.services[PROGRAM_TELEMETRY]``: the layers record, the routes read."""

    def __init__(self, clock: Any, host: Any = None) -> None:
        self.clock = clock
        self.host = host
        self.programs = RingBuffer()
        self.ticker_programs = RingBuffer()

    def _now_ms(self) -> int:
        # the host's clock looked up each time: a driven canvas replaces it after startup
        return int((self.host.clock if self.host is not None else self.clock).now_ms())

    def record_program(self, reason: str, slides: list[dict[str, Any]], at_ms: int | None = None) -> None:
        """A change of the slide program; ``at_ms``: the instant it was scheduled for (displays in
        step: the frame that starts it comes at or after it), else now."""
        at_ms = self._now_ms() if at_ms is None else int(at_ms)
        self.programs.append({"at_ms": at_ms, "reason": reason, "slides": slides})
        plays = service(self.host, PLAYS) if self.host is not None else None
        if plays is not None and reason != "program_changed":
            plays.replace("slide", [{"id": s.get("id"), "type": s.get("screen_type"), "label": s.get("name")}
                                    for s in slides], complete=reason == "dwell", at_ms=at_ms)

    def record_ticker(self, items: list[dict[str, Any]]) -> None:
        self.ticker_programs.append({"at_ms": self._now_ms(), "items": items})
