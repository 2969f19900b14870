"""The one way dates, times, time presets, time zones and temperatures are written.

The REST snapshots (``/v1/ticker/items``...) and the canvas both format through these
functions, so a slide, the marquee and the API show the same text for the same input. A
renderer formats with :func:`formats` (its :class:`~hookspecs.render.RenderContext`'s display
settings filled in).

Decisions (``docs/display-configuration.md`` records them too):

- date orders: ``ymd`` ``2026-05-13``, ``mdy`` ``05/13/2026``, ``dmy`` ``13/05/2026``
  (one separator for both day-first and month-first, as the ticker always wrote it);
  an unknown order is ``ymd``;
- time presets: ``24h_hm``, ``24h_hms``, ``12h_hm``, ``12h_hms`` and the ``_tt`` variants
  with `` AM``/`` PM``; a 12-hour clock writes ``12`` for noon and midnight and no leading
  zero; an unknown preset is ``24h_hm``;
- temperatures are whole degrees, rounded half away from zero (22.5 -> 23, -2.5 -> -3),
  after converting to Fahrenheit when the unit is ``f``; ``None`` is ``--``;
- friendly days and spans (what a person reads on a wall, English): ``Today``, ``Tomorrow``,
  ``Yesterday``, a weekday name (``Friday``) within the next six days, else a short date in the
  date order's way (``Mon 7 Dec``, ``Mon Dec 7`` for ``mdy``, with the year when it is not this
  year's); a span is ``Today 14:00–15:00`` (an en dash; the end's day named when it differs),
  ``Today · all day``, and a running one ``Now · until 15:00``;
- ages: ``just now`` (under a minute), ``12 min ago``, ``2 h ago``, ``3 days ago``.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from hookspecs.render import DEFAULT_TIMEZONE, RenderContext

DATE_ORDERS: dict[str, str] = {
    "ymd": "{y:04d}-{m:02d}-{d:02d}",
    "mdy": "{m:02d}/{d:02d}/{y:04d}",
    "dmy": "{d:02d}/{m:02d}/{y:04d}",
}
"""Date order id -> format (the values of ``controller_date_order`` and ``dateOrder``)."""

TIME_PRESETS: dict[str, tuple[bool, bool, bool]] = {
    "24h_hms": (True, True, False),
    "24h_hm": (True, False, False),
    "12h_hms_tt": (False, True, True),
    "12h_hm_tt": (False, False, True),
    "12h_hms": (False, True, False),
    "12h_hm": (False, False, False),
}
"""Time preset id -> (24-hour clock?, seconds?, AM/PM marker?): the ids of the contract's
``hookspecs.schema.TIME_FORMAT_PRESET``."""

SETTING_PRESETS: dict[str, str] = {"24h": "24h_hm", "12h": "12h_hm_tt"}
"""``controller_time_format`` -> the preset used when a type's config names none."""

TEMPERATURE_UNITS = ("c", "f")


def format_date(moment: dt.date, order: str | None) -> str:
    """``moment`` as a date in ``order`` (``ymd``, ``mdy``, ``dmy``; anything else ``ymd``)."""
    template = DATE_ORDERS.get(order or "ymd", DATE_ORDERS["ymd"])
    return template.format(y=moment.year, m=moment.month, d=moment.day)


def preset_for(preset: str | None, time_format: str | None = "24h", seconds: bool = False) -> str:
    """``preset`` when it is known, else the display's 12h/24h setting with or without seconds."""
    if preset in TIME_PRESETS:
        return preset  # type: ignore[return-value]
    if time_format == "12h":
        return "12h_hms_tt" if seconds else "12h_hm_tt"
    return "24h_hms" if seconds else "24h_hm"


def format_time(moment: dt.datetime | dt.time, preset: str | None) -> str:
    """``moment`` as a time in ``preset`` (an unknown preset is ``24h_hm``)."""
    h24, seconds, marker = TIME_PRESETS.get(preset or "", TIME_PRESETS["24h_hm"])
    text = f"{moment.hour:02d}:{moment.minute:02d}" if h24 else f"{(moment.hour % 12) or 12}:{moment.minute:02d}"
    if seconds:
        text += f":{moment.second:02d}"
    if marker:
        text += " AM" if moment.hour < 12 else " PM"
    return text


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
EN_DASH, MIDDLE_DOT = "\u2013", "\u00b7"


def friendly_day(day: dt.date, today: dt.date, order: str | None = "ymd") -> str:
    """``day`` seen from ``today``: ``Today``, ``Tomorrow``, ``Yesterday``, a weekday name within the
    next six days, else ``Mon 7 Dec`` (``Mon Dec 7`` for ``mdy``; the year added when not this year's)."""
    delta = (day - today).days
    if delta in (-1, 0, 1):
        return ("Yesterday", "Today", "Tomorrow")[delta + 1]
    if 1 < delta < 7:
        return WEEKDAYS[day.weekday()]
    weekday, month = WEEKDAYS[day.weekday()][:3], MONTHS[day.month - 1][:3]
    text = f"{weekday} {month} {day.day}" if order == "mdy" else f"{weekday} {day.day} {month}"
    return text if day.year == today.year else f"{text} {day.year}"


def long_date(day: dt.date, order: str | None = "ymd") -> str:
    """``Friday 27 November 2026`` (``Friday, November 27, 2026`` for ``mdy``)."""
    weekday, month = WEEKDAYS[day.weekday()], MONTHS[day.month - 1]
    return f"{weekday}, {month} {day.day}, {day.year}" if order == "mdy" else f"{weekday} {day.day} {month} {day.year}"


def short_date(day: dt.date, order: str | None = "ymd") -> str:
    """``Fri 27 Nov`` (``Fri, Nov 27`` for ``mdy``): a date that fits a corner panel."""
    weekday, month = WEEKDAYS[day.weekday()][:3], MONTHS[day.month - 1][:3]
    return f"{weekday}, {month} {day.day}" if order == "mdy" else f"{weekday} {day.day} {month}"


def format_span(start: dt.datetime, end: dt.datetime | None, now: dt.datetime, preset: str | None,
                all_day: bool = False, order: str | None = "ymd") -> str:
    """When an event happens, seen from ``now`` (all three in the display's zone): ``Now · until
    15:00`` while it runs, ``Today 14:00–15:00``, ``Tomorrow · all day``, ``Friday 9:00 AM–10:00 AM``;
    an end on another day names that day (``Today 22:00–Saturday 02:00``)."""
    today = now.date()
    if end is not None and start <= now < end:
        if all_day:
            return f"Now {MIDDLE_DOT} all day"
        until = format_time(end, preset)
        if end.date() != today:
            until = f"{friendly_day(end.date(), today, order)} {until}"
        return f"Now {MIDDLE_DOT} until {until}"
    day = friendly_day(start.date(), today, order)
    if all_day:
        return f"{day} {MIDDLE_DOT} all day"
    text = f"{day} {format_time(start, preset)}"
    if end is None or end <= start:
        return text
    finish = format_time(end, preset)
    if end.date() != start.date():
        finish = f"{friendly_day(end.date(), today, order)} {finish}"
    return f"{text}{EN_DASH}{finish}"


def format_age(then_ms: int | None, now_ms: int) -> str:
    """How long ago ``then_ms`` was: ``just now``, ``12 min ago``, ``2 h ago``, ``3 days ago``
    (``""`` for None; a time in the future is ``just now``)."""
    if then_ms is None:
        return ""
    minutes = max(0, (now_ms - then_ms) // 60_000)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h ago"
    days = hours // 24
    return "1 day ago" if days == 1 else f"{days} days ago"


def round_half_away(value: float) -> int:
    """Round to a whole number, halves away from zero (22.5 -> 23, -2.5 -> -3).

    Python's ``round`` rounds halves to even (22.5 -> 22), which made one temperature
    show as two numbers on two surfaces.
    """
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def temperature_unit(value: object, default: str = "c") -> str:
    """``c`` or ``f`` from a config or setting value (any case, spaces ignored); else ``default``."""
    if isinstance(value, str) and value.strip().lower() in TEMPERATURE_UNITS:
        return value.strip().lower()
    return default


def format_temperature(celsius: float | None, unit: str | None = "c") -> str:
    """``celsius`` in whole degrees of ``unit`` (``c``/``f``) with its sign, or ``--`` for None."""
    if celsius is None:
        return "--"
    if temperature_unit(unit) == "f":
        return f"{round_half_away(celsius * 9 / 5 + 32)}°F"
    return f"{round_half_away(celsius)}°C"


@functools.lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def is_iana_zone(name: object) -> bool:
    """True for a zone name of the IANA database (``Europe/Berlin``, ``UTC``)."""
    return isinstance(name, str) and name in _zones()


def time_zone_check(type_id: str, config: Any) -> list[tuple[str, str]]:
    """A ``timeZone`` / ``time_zone`` key, where a type has one, must name an IANA zone."""
    problems = []
    for key in ("timeZone", "time_zone"):
        if isinstance(config, dict) and key in config and not is_iana_zone(config[key]):
            problems.append((f"/{key}", f"{str(config[key])[:64]!r} is not an IANA time zone"))
    return problems


def zone(name: object) -> ZoneInfo | None:
    """The IANA zone ``name``, or None when it is not a known zone name."""
    if not is_iana_zone(name):
        return None
    try:
        return ZoneInfo(name)  # type: ignore[arg-type]
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def zone_or_utc(name: object) -> ZoneInfo:
    """:func:`zone`, falling back to UTC."""
    return zone(name) or ZoneInfo(DEFAULT_TIMEZONE)


@dataclass(frozen=True)
class Formats:
    """The formatters above with a render context's display settings filled in (its zone,
    12h/24h clock, date order, temperature unit and clock): ``formats(context).format_span(...)``."""

    context: RenderContext

    def tzinfo(self, name: str | None = None) -> dt.tzinfo:
        """The zone ``name``, else the display's (UTC when neither is a known zone)."""
        return zone(name) or zone_or_utc(self.context.timezone)

    def now(self, zone_name: str | None = None) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.context.now_ms() / 1000, self.tzinfo(zone_name))

    def moment(self, ms: int) -> dt.datetime:
        """Epoch milliseconds as a time in the display's zone."""
        return dt.datetime.fromtimestamp(ms / 1000, self.tzinfo())

    def is_running(self, start_ms: int, end_ms: int | None) -> bool:
        return end_ms is not None and start_ms <= self.context.now_ms() < end_ms

    def format_time(self, moment: dt.datetime, seconds: bool = False, twelve: bool | None = None) -> str:
        """``moment`` on the display's 12h/24h clock (or ``twelve``), with or without seconds."""
        time_format = self.context.time_format if twelve is None else ("12h" if twelve else "24h")
        return format_time(moment, preset_for(None, time_format, seconds))

    def format_preset(self, moment: dt.datetime, preset: str | None, seconds: bool = False) -> str:
        """``moment`` in a time format preset (``24h_hm`` ...); without one, the display's
        12h/24h setting with or without seconds."""
        return format_time(moment, preset_for(preset, self.context.time_format, seconds))

    def format_date(self, moment: dt.date, order: str | None = None) -> str:
        return format_date(moment, order or self.context.date_order)

    def format_temperature(self, celsius: float | None, unit: str | None = None) -> str:
        return format_temperature(celsius, unit or self.context.temperature_unit)

    def format_span(self, start_ms: int, end_ms: int | None = None, all_day: bool = False) -> str:
        """An event's time as a person reads it (``Today 14:00–15:00``, ``Now · until 15:00``):
        :func:`format_span` in the display's zone, clock and date order."""
        end = self.moment(end_ms) if end_ms is not None else None
        return format_span(self.moment(start_ms), end, self.now(), preset_for(None, self.context.time_format),
                           all_day, self.context.date_order)

    def friendly_day(self, day: dt.date) -> str:
        """``Today``, ``Tomorrow``, a weekday name within a week, else a short date."""
        return friendly_day(day, self.now().date(), self.context.date_order)

    def long_date(self, day: dt.date, order: str | None = None) -> str:
        return long_date(day, order or self.context.date_order)

    def short_date(self, day: dt.date, order: str | None = None) -> str:
        return short_date(day, order or self.context.date_order)

    def format_age(self, then_ms: int | None) -> str:
        """``2 h ago`` from the display's clock."""
        return format_age(then_ms, self.context.now_ms())


def formats(context: RenderContext) -> Formats:
    """The formatters with ``context``'s display settings filled in (:class:`Formats`)."""
    return Formats(context)
