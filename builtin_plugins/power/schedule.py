"""The weekly power schedule (CONTRACT "Display power"): validation and the state it gives.

A schedule is a list of windows ``{days, on, off}``: ``days`` a non-empty list of ``mon`` ...
``sun``, each at most once, ``on``/``off`` ``HH:MM`` (24 h) in the display's time zone. A window whose ``off``
is earlier than its ``on`` runs past midnight into the next day (``{days: [fri], on: 22:00,
off: 02:00}`` is on from Friday 22:00 to Saturday 02:00). An empty schedule is always on.
Windows must not overlap (touching is fine: one's ``off`` may be another's ``on``).

Everything here is pure: times in and out are epoch milliseconds, the zone is passed in.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any, Sequence
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEK_MINUTES = 7 * 24 * 60
MAX_WINDOWS = 64
_TIME = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")
# The schedule's shape for /v1/openapi.json (what validate() checks, overlaps aside), so a client
# (the controller's web app) draws its form from the display's own limits.
JSON_SCHEMA = {
    "type": "array", "maxItems": MAX_WINDOWS, "description": "windows {days, on, off}; empty: always on",
    "items": {"type": "object", "required": ["days", "on", "off"], "additionalProperties": False, "properties": {
        "days": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string", "enum": list(DAYS)}},
        "on": {"type": "string", "pattern": _TIME.pattern, "description": "HH:MM (24 h)"},
        "off": {"type": "string", "pattern": _TIME.pattern,
                "description": "HH:MM (24 h); earlier than on: the window runs past midnight"},
    }},
}


class ScheduleError(ValueError):
    """A bad schedule; ``pointer`` names the item (``/schedule/1/off``)."""

    def __init__(self, pointer: str, message: str):
        super().__init__(message)
        self.pointer = pointer


def _minutes(value: Any, pointer: str) -> int:
    match = _TIME.match(value) if isinstance(value, str) else None
    if match is None:
        raise ScheduleError(pointer, "must be a time HH:MM (24 h), 00:00 to 23:59")
    return int(match.group(1)) * 60 + int(match.group(2))


def _spans(days: Sequence[str], on: int, off: int) -> list[tuple[int, int]]:
    """The minute-of-week spans ``[start, end)`` a window covers (a span past Sunday wraps)."""
    length = off - on if off > on else off + 24 * 60 - on
    spans = []
    for day in days:
        start = DAYS.index(day) * 24 * 60 + on
        end = start + length
        if end <= WEEK_MINUTES:
            spans.append((start, end))
        else:
            spans += [(start, WEEK_MINUTES), (0, end - WEEK_MINUTES)]
    return spans


def validate(schedule: Any) -> list[dict[str, Any]]:
    """The schedule in its stored shape (days in week order); :class:`ScheduleError` when bad."""
    if not isinstance(schedule, list):
        raise ScheduleError("/schedule", "must be an array of windows {days, on, off} (empty: always on)")
    if len(schedule) > MAX_WINDOWS:
        raise ScheduleError("/schedule", f"at most {MAX_WINDOWS} windows")
    clean: list[dict[str, Any]] = []
    taken: list[tuple[int, int, int]] = []  # (start, end, window index)
    for index, window in enumerate(schedule):
        at = f"/schedule/{index}"
        if not isinstance(window, dict):
            raise ScheduleError(at, "must be an object {days, on, off}")
        unknown = sorted(set(window) - {"days", "on", "off"})
        if unknown:
            raise ScheduleError(f"{at}/{unknown[0]}", "unknown field; a window has days, on and off")
        days = window.get("days")
        if not isinstance(days, list) or not days:
            raise ScheduleError(f"{at}/days", "must be a non-empty array of " + ", ".join(DAYS))
        for position, day in enumerate(days):
            if day not in DAYS:
                raise ScheduleError(f"{at}/days/{position}", "must be one of " + ", ".join(DAYS))
            if day in days[:position]:
                raise ScheduleError(f"{at}/days/{position}", f"{day} is named twice; each day at most once")
        on = _minutes(window.get("on"), f"{at}/on")
        off = _minutes(window.get("off"), f"{at}/off")
        if on == off:
            raise ScheduleError(f"{at}/off", "must differ from on (a window of no time or of a whole day)")
        ordered = [day for day in DAYS if day in days]
        for start, end in _spans(ordered, on, off):
            for other_start, other_end, other in taken:
                if start < other_end and other_start < end:
                    raise ScheduleError(at, f"overlaps window {other}" if other != index
                                        else "overlaps itself")
            taken.append((start, end, index))
        clean.append({"days": ordered, "on": window["on"], "off": window["off"]})
    return clean


def _covered(schedule: Sequence[dict[str, Any]], local: dt.datetime) -> bool:
    minute = local.weekday() * 24 * 60 + local.hour * 60 + local.minute
    for window in schedule:
        for start, end in _spans(window["days"], _minutes(window["on"], ""), _minutes(window["off"], "")):
            if start <= minute < end:
                return True
    return False


def scheduled_on(schedule: Sequence[dict[str, Any]], at_ms: int, zone: ZoneInfo) -> bool:
    """Whether the schedule has the display on at ``at_ms`` (always, for an empty schedule)."""
    if not schedule:
        return True
    return _covered(schedule, dt.datetime.fromtimestamp(at_ms / 1000, zone))


def next_change_ms(schedule: Sequence[dict[str, Any]], after_ms: int, zone: ZoneInfo) -> int | None:
    """The first instant after ``after_ms`` at which the scheduled state differs from the state
    at ``after_ms``; None when it never changes (empty schedule, or windows covering the week).

    The state only changes at a window's edge, so the candidates are every ``on``/``off`` of the
    next eight local days, made instants in ``zone`` (a DST gap moves an edge with the clock)."""
    if not schedule:
        return None
    now = scheduled_on(schedule, after_ms, zone)
    today = dt.datetime.fromtimestamp(after_ms / 1000, zone).date()
    edges = set()
    for offset in range(-1, 9):
        day = today + dt.timedelta(days=offset)
        for window in schedule:
            for edge in (window["on"], window["off"]):
                hour, minute = (int(part) for part in edge.split(":"))
                instant = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
                edges.add(int(instant.timestamp() * 1000))
    for edge in sorted(e for e in edges if e > after_ms):
        if scheduled_on(schedule, edge, zone) != now:
            return edge
    return None
