"""Overlay schedule windows (spec 2.3): validation and "is it active on this date".

A window starts on ``start_month``/``start_day`` (or, with the nth-weekday rule, on the
``nth_week_of_month``-th ``nth_weekday`` of ``start_month``) and ends, inclusive, on
``end_month``/``end_day`` (the start day itself when no end is given). An end before the
start spans into the next year (December 24 to January 2). ``year_exact`` pins the
window to the one that starts in that year; otherwise ``repeat_annually`` repeats it
every year, and a non-repeating window without ``year_exact`` runs only in the year the
row was created. Dates are taken in the display timezone.

Conventions: ``nth_weekday`` is ISO (1 = Monday ... 7 = Sunday); ``nth_week_of_month`` 1-4
counts from the start of the month and 5 means the last such weekday. February 29
counts as February 28 in years without it.
"""
from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # February may have 29
WINDOW_FIELDS = ("repeat_annually", "start_month", "start_day", "end_month", "end_day", "year_exact",
                 "nth_week_of_month", "nth_weekday")


def window_problems(row: dict[str, Any]) -> dict[str, list[str]]:
    """Field -> messages for every rule a window breaks (empty when valid)."""
    problems: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        problems.setdefault(field, []).append(message)

    year = row.get("year_exact")
    for month_field, day_field in (("start_month", "start_day"), ("end_month", "end_day")):
        month, day = row.get(month_field), row.get(day_field)
        if month_field == "start_month":
            if month is None:
                add(month_field, "required")
            if day is None:
                add(day_field, "required")
        elif (month is None) != (day is None):
            add(month_field if month is None else day_field, "end_month and end_day go together")
        if month is None or day is None:
            continue
        if not 1 <= month <= 12:
            add(month_field, "must be a month from 1 to 12")
            continue
        limit = DAYS_IN_MONTH[month - 1]
        if month == 2 and year is not None and not calendar.isleap(year):
            limit = 28
        if not 1 <= day <= limit:
            add(day_field, f"month {month} has no day {day}")
    if (row.get("nth_week_of_month") is None) != (row.get("nth_weekday") is None):
        missing = "nth_weekday" if row.get("nth_weekday") is None else "nth_week_of_month"
        add(missing, "nth_week_of_month and nth_weekday are required together")
    return problems


def _day(year: int, month: int, day: int) -> dt.date:
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def nth_weekday(year: int, month: int, nth: int, weekday: int) -> dt.date:
    """The ``nth`` (5 = last) ISO ``weekday`` of a month."""
    days = [d for d in range(1, calendar.monthrange(year, month)[1] + 1)
            if dt.date(year, month, d).isoweekday() == weekday]
    return dt.date(year, month, days[-1] if nth >= 5 or nth > len(days) else days[nth - 1])


def occurrence(row: Any, year: int) -> tuple[dt.date, dt.date]:
    """The window that starts in ``year``: (first day, last day), inclusive."""
    if row.nth_week_of_month is not None and row.nth_weekday is not None:
        start = nth_weekday(year, row.start_month, row.nth_week_of_month, row.nth_weekday)
    else:
        start = _day(year, row.start_month, row.start_day)
    if row.end_month is None or row.end_day is None:
        return start, start
    end = _day(year, row.end_month, row.end_day)
    if end < start:
        end = _day(year + 1, row.end_month, row.end_day)
    return start, end


def is_active_on(row: Any, day: dt.date, created_year: int) -> bool:
    for year in (day.year - 1, day.year):
        if row.year_exact is not None:
            if year != row.year_exact:
                continue
        elif not row.repeat_annually and year != created_year:
            continue
        start, end = occurrence(row, year)
        if start <= day <= end:
            return True
    return False
