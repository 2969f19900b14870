"""Program telemetry (spec 2.12, 4.8): in-process ring buffers, not persisted.

- program line: ``{at_ms, reason, slides}``; ``reason`` is ``start``, ``dwell``,
  ``navigation_forward``, ``navigation_back``, ``content_changed``, ``settings_changed``,
  ``renderer_error``, ``idle`` or ``program_changed``; ``slides`` lists what the change put on screen,
  each ``{id, screen_type, dwell_seconds}`` (empty when nothing could be shown).
- ticker program line: ``{at_ms, items}`` with the items of one marquee cycle,
  each ``{ordinal, kind, body}`` (spec 2.4).
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any

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

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.programs = RingBuffer()
        self.ticker_programs = RingBuffer()

    def record_program(self, reason: str, slides: list[dict[str, Any]]) -> None:
        self.programs.append({"at_ms": self.clock.now_ms(), "reason": reason, "slides": slides})

    def record_ticker(self, items: list[dict[str, Any]]) -> None:
        self.ticker_programs.append({"at_ms": self.clock.now_ms(), "items": items})
