"""The one way dates, times, time presets, time zones and temperatures are written.

The REST snapshots (``/v1/ticker/items``...) and the canvas both format through these
functions, so a slide, the marquee and the API show the same text for the same input.

Decisions (``docs/display-configuration.md`` records them too):

- date orders: ``ymd`` ``2026-05-13``, ``mdy`` ``05/13/2026``, ``dmy`` ``13/05/2026``
  (one separator for both day-first and month-first, as the ticker always wrote it);
  an unknown order is ``ymd``;
- time presets: ``24h_hm``, ``24h_hms``, ``12h_hm``, ``12h_hms`` and the ``_tt`` variants
  with `` AM``/`` PM``; a 12-hour clock writes ``12`` for noon and midnight and no leading
  zero; an unknown preset is ``24h_hm``;
- temperatures are whole degrees, rounded half away from zero (22.5 -> 23, -2.5 -> -3),
  after converting to Fahrenheit when the unit is ``f``; ``None`` is ``--``.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

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
"""Time preset id -> (24-hour clock?, seconds?, AM/PM marker?)."""

SETTING_PRESETS: dict[str, str] = {"24h": "24h_hm", "12h": "12h_hm_tt"}
"""``controller_time_format`` -> the preset used when a type's config names none."""

TEMPERATURE_UNITS = ("c", "f")
DEFAULT_TIMEZONE = "UTC"


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
