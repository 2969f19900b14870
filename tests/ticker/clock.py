"""A fixed clock for in-process hosts: ``host.clock = FixedClock(ms)``."""
import datetime as dt


class FixedClock:
    def __init__(self, when: dt.datetime):
        self.ms = int(when.timestamp() * 1000)

    def now_ms(self) -> int:
        return self.ms

    def now(self) -> float:
        return self.ms / 1000.0
