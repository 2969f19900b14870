"""Integration telemetry: an in-process ring buffer of lines (spec 2.12, 4.8).

A line is ``{at_ms, channel, message}`` plus ``integration_type`` on collector-scoped
lines (omitted on engine lines). ``channel`` is ``info``, ``warning`` or ``error``.
Nothing is persisted; the buffer keeps the newest :data:`CAPACITY` lines.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable

CAPACITY = 5000
MAX_MESSAGE = 2000
CHANNELS = ("info", "warning", "error")


class IntegrationTelemetry:
    """Thread-safe ring buffer; exposed as ``host.services[INTEGRATION_TELEMETRY]``."""

    def __init__(self, now_ms: Callable[[], int], capacity: int = CAPACITY):
        self._now_ms = now_ms
        self._lines: deque[dict[str, Any]] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def add(self, channel: str, message: str, integration_type: str | None = None) -> dict[str, Any]:
        if channel not in CHANNELS:
            channel = "info"
        line: dict[str, Any] = {
            "at_ms": self._now_ms(),
            "channel": channel,
            "message": str(message)[:MAX_MESSAGE],
        }
        if integration_type:
            line["integration_type"] = integration_type
        with self._lock:
            self._lines.append(line)
        return line

    def lines(self, limit: int = 200, since_ms: int | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` lines at or after ``since_ms``, oldest first."""
        with self._lock:
            selected = [dict(line) for line in self._lines if since_ms is None or line["at_ms"] >= since_ms]
        return selected[-limit:] if limit else []

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()
