"""When an overlay schedule is shown (spec 2.3), as a pure function of the local date.

- ``start_month``/``start_day`` .. ``end_month``/``end_day`` is an inclusive window; no end
  means the start day only; an end before the start wraps across the new year
  (Dec 20 .. Jan 5).
- ``nth_week_of_month`` + ``nth_weekday`` (both required together) replace the start day:
  the overlay shows on the nth weekday of ``start_month`` (``nth_weekday`` 0 = Sunday ..
  6 = Saturday, 7 also Sunday; ``nth_week_of_month`` 1-5, where 5 or -1 means the last one).
- ``year_exact`` pins the window to the year it starts in (a wrapping window continues
  into January of the next year). With ``repeat_annually`` true as well, the window
  repeats every year from ``year_exact`` on.
- Without ``year_exact`` a window recurs every year (``repeat_annually`` false cannot
  name a year, so it behaves the same).
"""
from __future__ import annotations

import calendar
import datetime as dt
from typing import Any, Mapping


def _int(row: Mapping[str, Any], key: str) -> int | None:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def nth_weekday_date(year: int, month: int, nth: int, weekday_sun0: int) -> dt.date | None:
    """The nth (1-5, -1/5 = last) given weekday (0 = Sunday) of a month, or None."""
    if not 1 <= month <= 12:
        return None
    py_weekday = (weekday_sun0 % 7 - 1) % 7  # Python: Monday = 0
    days = [d for d in range(1, calendar.monthrange(year, month)[1] + 1)
            if dt.date(year, month, d).weekday() == py_weekday]
    if nth in (-1, 5):
        return dt.date(year, month, days[-1])
    if 1 <= nth <= len(days):
        return dt.date(year, month, days[nth - 1])
    return None


def overlay_active(row: Mapping[str, Any], today: dt.date) -> bool:
    if not row.get("enabled", False):
        return False
    start_month, start_day = _int(row, "start_month"), _int(row, "start_day")
    if start_month is None or not 1 <= start_month <= 12:
        return False
    year_exact = _int(row, "year_exact")
    repeat = bool(row.get("repeat_annually", False))

    def year_allowed(start_year: int) -> bool:
        if year_exact is None:
            return True
        return start_year >= year_exact if repeat else start_year == year_exact

    nth, weekday = _int(row, "nth_week_of_month"), _int(row, "nth_weekday")
    if nth is not None and weekday is not None:
        day = nth_weekday_date(today.year, start_month, nth, weekday)
        return day == today and year_allowed(today.year)

    if start_day is None or not 1 <= start_day <= 31:
        return False
    end_month, end_day = _int(row, "end_month"), _int(row, "end_day")
    start = (start_month, start_day)
    end = (end_month, end_day) if end_month is not None and end_day is not None else start
    here = (today.month, today.day)
    if start <= end:
        return start <= here <= end and year_allowed(today.year)
    # wraps across the new year: the part after the start belongs to this year's window,
    # the part up to the end to the window that started last year
    if here >= start:
        return year_allowed(today.year)
    if here <= end:
        return year_allowed(today.year - 1)
    return False
