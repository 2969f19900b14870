"""Time, injectable: every expiry and lifetime in the product reads ``host.clock``."""
from __future__ import annotations

import time
from pathlib import Path


class Clock:
    """Wall-clock epoch milliseconds, plus an optional offset read from a file.

    ``SVC_DISPLAY_TEST_CLOCK_FILE`` names a file holding an integer offset in milliseconds;
    tests of a real server process write to it to move time forward (challenge expiry,
    session lifetime) without sleeping. With no file configured the offset is zero.
    """

    def __init__(self, offset_file: Path | None = None):
        self.offset_file = offset_file

    def offset_ms(self) -> int:
        if self.offset_file is None:
            return 0
        try:
            return int(self.offset_file.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def now_ms(self) -> int:
        return int(time.time() * 1000) + self.offset_ms()

    def now(self) -> float:
        return self.now_ms() / 1000.0
