"""Sliding-window rate limits in memory, timed by ``host.clock`` (adoption, login).

A :class:`SlidingWindowLimiter` counts hits per key (a client address, a username) over
the last ``window_ms``. Once ``limit`` hits are inside the window, :meth:`check` reports
how many seconds remain until the oldest one leaves it, which the caller sends as
``Retry-After`` with 429 ``rate_limited``.
"""
from __future__ import annotations

import math
import threading
from collections import deque
from typing import Any, Callable

from svc_host.http.errors import ApiError

# Keys kept at most; past it, keys whose windows are empty are dropped first, then the oldest.
MAX_KEYS = 10_000


class SlidingWindowLimiter:
    def __init__(self, limit: int, window_ms: int, now_ms: Callable[[], int]):
        self.limit = limit
        self.window_ms = window_ms
        self.now_ms = now_ms
        self._hits: dict[str, deque[int]] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.limit > 0

    def _window(self, key: str, now: int) -> deque[int]:
        hits = self._hits.get(key)
        if hits is None:
            return deque()
        while hits and hits[0] <= now - self.window_ms:
            hits.popleft()
        return hits

    def _wait(self, hits: deque[int], now: int) -> int | None:
        """Seconds until the oldest hit of a full window leaves it; None when there is room."""
        if len(hits) < self.limit:
            return None
        return max(1, math.ceil((hits[0] + self.window_ms - now) / 1000))

    def _add(self, key: str, hits: deque[int], now: int) -> None:
        if key not in self._hits:
            if len(self._hits) >= MAX_KEYS:
                self._prune(now)
            self._hits[key] = hits
        hits.append(now)

    def retry_after(self, key: str) -> int | None:
        """Seconds until another hit is allowed for ``key``, or None when it is allowed now."""
        if not self.enabled:
            return None
        now = self.now_ms()
        with self._lock:
            return self._wait(self._window(key, now), now)

    def hit(self, key: str) -> None:
        if not self.enabled:
            return
        now = self.now_ms()
        with self._lock:
            self._add(key, self._window(key, now), now)

    def check_and_hit(self, key: str) -> int | None:
        """Count one hit unless the limit is reached; the Retry-After seconds when it is."""
        if not self.enabled:
            return None
        now = self.now_ms()
        with self._lock:
            hits = self._window(key, now)
            wait = self._wait(hits, now)
            if wait is None:
                self._add(key, hits, now)
            return wait

    def reset(self, key: str) -> None:
        with self._lock:
            self._hits.pop(key, None)

    def _prune(self, now: int) -> None:
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= now - self.window_ms]:
            del self._hits[key]
        while len(self._hits) >= MAX_KEYS:
            del self._hits[next(iter(self._hits))]


def rate_limited(retry_after: int, message: str = "too many requests; retry later") -> ApiError:
    """429 ``rate_limited`` with ``Retry-After`` (seconds)."""
    return ApiError(429, "rate_limited", message, {"retry_after_seconds": retry_after},
                    headers={"Retry-After": str(retry_after)})


def client_address(req: Any) -> str:
    """The peer address of the connection (proxy headers are not trusted)."""
    return str(getattr(req, "remote_addr", None) or "unknown")
