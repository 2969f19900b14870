"""Displays in step (CONTRACT "Displays in step, and proof of play"): the slide cycle as a function
of the wall clock, for the displays that share a ``sync_group`` setting.

:func:`timetable` lays the program (the enabled slides of the slide layer's :meth:`program`, the
curator's members, a weight of at least one appearance) out on the time line:

- the slides in a stable order: by ``id`` (not by ``sort_order``, which a display may tie);
- the cycle of :func:`svc_host.kit.weights.spread_cycle` over their appearances, each slot as long as
  its slide's dwell (:func:`dwell_seconds`, whole milliseconds);
- the shared epoch is the Unix epoch: at wall time ``t`` (ms) the cycle is at ``t % cycle_ms``.
  Two displays with the same program and NTP-synchronised clocks are in the same slot at the same
  instant, whenever each started, restarted or went dark.

:attr:`Timetable.program_hash` is a hash of what decides the cycle (each slide's id, type, dwell,
appearances and config, in cycle order): equal on two displays with the same program, so a
controller can tell the members of a group whose programs differ.
"""
from __future__ import annotations

import bisect
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Sequence

from svc_host.kit.weights import appearances, spread_cycle

DEFAULT_DWELL = 15.0
MAX_DWELL = 86400.0


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)


def dwell_seconds(row: dict) -> float:
    """A slide's dwell: ``dwell_seconds`` (default 15), 1 s to a day."""
    return min(MAX_DWELL, max(1.0, _number(row.get("dwell_seconds"), DEFAULT_DWELL)))


@dataclass(frozen=True)
class Slot:
    """One turn of the cycle: the slide ``row`` from ``start_ms`` (wall clock) for ``length_ms``."""

    index: int
    row: dict
    start_ms: int
    length_ms: int

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.length_ms


@dataclass(frozen=True)
class Timetable:
    """The cycle laid out on the wall clock (module doc)."""

    rows: tuple[dict, ...]  # one per slot, in cycle order
    offsets: tuple[int, ...]  # each slot's start within the cycle, ms
    cycle_ms: int
    program_hash: str

    def slot(self, index: int, cycle_start_ms: int) -> Slot:
        index %= len(self.rows)
        length = (self.offsets[index + 1] if index + 1 < len(self.offsets) else self.cycle_ms) - self.offsets[index]
        return Slot(index, self.rows[index], cycle_start_ms + self.offsets[index], length)

    def at(self, now_ms: int) -> Slot:
        """The slot whose turn it is at wall time ``now_ms``."""
        cycle_start = now_ms - now_ms % self.cycle_ms
        index = bisect.bisect_right(self.offsets, now_ms - cycle_start) - 1
        return self.slot(index, cycle_start)

    def before(self, slot: Slot) -> Slot:
        """The slot before ``slot`` (the previous cycle's last one before the first)."""
        if slot.index > 0:
            return self.slot(slot.index - 1, slot.start_ms - self.offsets[slot.index])
        return self.slot(len(self.rows) - 1, slot.start_ms - self.cycle_ms)

    def after(self, slot: Slot) -> Slot:
        """The slot after ``slot``."""
        return self.at(slot.end_ms)


def ordered(rows: Sequence[dict]) -> list[dict]:
    """The slides of a program in the stable order of the cycle: by id."""
    return sorted((row for row in rows if appearances(row.get("frequency_weight", 1)) > 0),
                  key=lambda row: str(row.get("id")))


def timetable(rows: Sequence[dict]) -> Timetable:
    """The timetable of the program ``rows`` (an empty one: no slot, ``cycle_ms`` 0)."""
    program = ordered(rows)
    plan = [program[i] for i in spread_cycle([appearances(row.get("frequency_weight", 1)) for row in program])]
    offsets, total = [], 0
    for row in plan:
        offsets.append(total)
        total += int(round(dwell_seconds(row) * 1000))
    decided = [{"id": row.get("id"), "screen_type": row.get("screen_type"), "dwell_ms": int(round(dwell_seconds(row) * 1000)),
                "appearances": appearances(row.get("frequency_weight", 1)), "config": row.get("config_json")}
               for row in program]
    digest = hashlib.sha256(json.dumps([decided, [str(row.get("id")) for row in plan]], sort_keys=True,
                                       separators=(",", ":"), default=str).encode()).hexdigest()
    return Timetable(tuple(plan), tuple(offsets), total, digest[:16])
