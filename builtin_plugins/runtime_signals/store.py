"""Runtime signals in memory (CONTRACT "Runtime signals"): a value per id, until it expires.

A signal is ``{id, value, updated_at_ms, expires_at_ms}``; ``value`` is a boolean, a
number or a string of at most 1000 characters, ``ttl_seconds`` 1-86400 (none: no expiry).
Times come from the host clock, so a test clock moves expiry too. An expired signal is
gone: every read drops what has expired. Nothing is stored on disk; a restart forgets
every signal (whoever sends them sends them again).
"""
from __future__ import annotations

import math
import threading
from typing import Any, Callable

from hookspecs.services import RUNTIME_SIGNAL_ID

SIGNAL_ID = RUNTIME_SIGNAL_ID
MAX_TEXT = 1000
MAX_TTL_SECONDS = 86400
MAX_SIGNALS = 1000
# Numbers a JSON reader in any language keeps exactly (JavaScript's safe integers).
MAX_NUMBER = 2 ** 53
VALUE_RULE = f"a boolean, a number or a string of at most {MAX_TEXT} characters"


class SignalError(ValueError):
    """A bad id, value or TTL (``field`` names it), or too many signals (``field`` is None)."""

    def __init__(self, field: str | None, message: str):
        super().__init__(message)
        self.field = field


def valid_id(signal_id: Any) -> bool:
    return isinstance(signal_id, str) and SIGNAL_ID.match(signal_id) is not None


def check_value(value: Any) -> bool | int | float | str:
    """``value`` when it is a signal value; else :class:`SignalError`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise SignalError("value", f"numbers must be finite and within ±2^53; send {VALUE_RULE}")
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise SignalError("value", f"strings are at most {MAX_TEXT} characters")
        return value
    raise SignalError("value", f"must be {VALUE_RULE}")


class SignalStore:
    """The ``RUNTIME_SIGNALS`` service; thread-safe."""

    def __init__(self, now_ms: Callable[[], int]):
        self.now_ms = now_ms
        self._lock = threading.Lock()
        self._signals: dict[str, dict[str, Any]] = {}

    def _drop_expired(self, now: int) -> None:
        expired = [key for key, s in self._signals.items() if s["expires_at_ms"] is not None
                   and s["expires_at_ms"] <= now]
        for key in expired:
            del self._signals[key]

    def put(self, signal_id: str, value: bool | int | float | str, ttl_seconds: int | None = None) -> dict:
        if not valid_id(signal_id):
            raise SignalError("id", f"must match {SIGNAL_ID.pattern}")
        value = check_value(value)
        if ttl_seconds is not None and (isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int)
                                        or not 1 <= ttl_seconds <= MAX_TTL_SECONDS):
            raise SignalError("ttl_seconds", f"must be a whole number of seconds from 1 to {MAX_TTL_SECONDS}")
        now = self.now_ms()
        signal = {"id": signal_id, "value": value, "updated_at_ms": now,
                  "expires_at_ms": now + ttl_seconds * 1000 if ttl_seconds is not None else None}
        with self._lock:
            self._drop_expired(now)
            if signal_id not in self._signals and len(self._signals) >= MAX_SIGNALS:
                raise SignalError(None, f"at most {MAX_SIGNALS} signals are kept; delete one or let one "
                                        "expire")
            self._signals[signal_id] = signal
        return dict(signal)

    def get(self, signal_id: str) -> dict[str, Any] | None:
        with self._lock:
            self._drop_expired(self.now_ms())
            signal = self._signals.get(signal_id)
            return dict(signal) if signal else None

    def delete(self, signal_id: str) -> bool:
        with self._lock:
            self._drop_expired(self.now_ms())
            return self._signals.pop(signal_id, None) is not None

    def items(self) -> list[dict[str, Any]]:
        with self._lock:
            self._drop_expired(self.now_ms())
            return [dict(self._signals[key]) for key in sorted(self._signals)]

    def next_expiry_ms(self) -> int | None:
        """When the next live signal expires (None when none will)."""
        with self._lock:
            now = self.now_ms()
            self._drop_expired(now)
            times = [s["expires_at_ms"] for s in self._signals.values() if s["expires_at_ms"] is not None]
            return min(times) if times else None

    def values(self) -> dict[str, Any]:
        with self._lock:
            self._drop_expired(self.now_ms())
            return {key: signal["value"] for key, signal in self._signals.items()}
