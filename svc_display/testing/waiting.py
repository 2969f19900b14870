"""Polling for a condition in tests: the machine may be loaded, so tests wait for what they
expect with a generous deadline instead of sleeping a fixed time or asserting on timing."""
from __future__ import annotations

import time
from typing import Any, Callable


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
