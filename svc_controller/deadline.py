"""The total deadline of one exchange with a display, shared by the proxy and the backup pulls
and restores (issue 26): its timeout plus the time its bytes so far need at
:data:`svc_host.http.connection.bodies.MIN_BODY_RATE`. A large archive on a working link finishes; a
display trickling a byte a second (which restarts a read timeout with each byte) does not.
"""
from __future__ import annotations

import time
from typing import Iterable, Iterator

from svc_host.http.connection.bodies import MIN_BODY_RATE


class Deadline:
    """The exchange's total deadline: ``timeout_s`` plus ``transferred`` bytes at MIN_BODY_RATE."""

    def __init__(self, timeout_s: float):
        self.timeout_s = timeout_s
        self.started = time.monotonic()
        self.transferred = 0

    def left(self) -> float:
        """Seconds left; :class:`TimeoutError` once none are."""
        left = self.started + self.timeout_s + self.transferred / MIN_BODY_RATE - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    def counted(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks``, each counted towards the allowance; :class:`TimeoutError` past the deadline
        (checked as each chunk arrives: a read that waits gets its own read timeout, which the
        caller bounds by :meth:`left` when the request starts)."""
        for chunk in chunks:
            self.transferred += len(chunk)
            self.left()
            yield chunk
