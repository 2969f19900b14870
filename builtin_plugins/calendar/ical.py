"""``calendar_ical``: ICS calendars by URL, recurrences expanded inside the day window.

Config: ``calendars`` (list of ``{url, categoryId}``; or the single-calendar shorthand
``icsUrl`` + ``categoryId``), ``pastDays`` (default 7), ``futureDays`` (default 60).
RRULE, RDATE, EXDATE and overridden instances (RECURRENCE-ID) are expanded by
``recurring_ical_events``; all-day events (DATE values) start at midnight of the
display timezone; TZID times keep their zone; floating times use the display timezone.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hookspecs.collect import CollectorError
from svc_host.kit.collecting import each_unit
from builtin_plugins.calendar.store import (
    display_zone,
    drop_calendars,
    event,
    replace_events,
    to_ms,
    window,
)

TYPE_ID = "calendar_ical"
MAX_OCCURRENCES = 5000


def calendars(config: dict) -> list[dict[str, str]]:
    items = [dict(c) for c in config.get("calendars") or []]
    if config.get("icsUrl"):
        items.append({"url": config["icsUrl"], "categoryId": config.get("categoryId", "calendar")})
    for item in items:
        item.setdefault("categoryId", config.get("categoryId", "calendar"))
    return items


def parse_events(ctx: Any, data: bytes) -> list[dict[str, Any]]:
    import icalendar  # imported on first use: the serve process starts without it (issue 29, RSS)
    import recurring_ical_events

    try:
        calendar = icalendar.Calendar.from_ical(data)
    except (ValueError, IndexError, KeyError) as exc:
        raise CollectorError(f"malformed ICS: {type(exc).__name__}") from None
    if calendar.name != "VCALENDAR":
        raise CollectorError("not a VCALENDAR document")
    zone = display_zone(ctx)
    start, end = window(ctx)
    try:
        occurrences = recurring_ical_events.of(calendar).between(start, end)
    except Exception as exc:  # noqa: BLE001 - the library raises many kinds on bad input
        raise CollectorError(f"cannot expand the calendar: {type(exc).__name__}") from None
    events = []
    for component in occurrences[:MAX_OCCURRENCES]:
        dtstart = component.get("DTSTART")
        if dtstart is None:
            continue
        begin = dtstart.dt
        all_day = isinstance(begin, date) and not isinstance(begin, datetime)
        dtend = component.get("DTEND")
        if dtend is not None:
            finish = dtend.dt
        elif component.get("DURATION") is not None:
            finish = begin + component["DURATION"].dt
        else:
            finish = begin + timedelta(days=1) if all_day else begin
        uid = str(component.get("UID") or "")
        start_ms = to_ms(begin, zone)
        events.append(event(f"{uid}|{start_ms}", str(component.get("SUMMARY") or ""), start_ms,
                            to_ms(finish, zone), all_day, str(component.get("LOCATION") or ""),
                            str(component.get("DESCRIPTION") or "")))
    return events


def collect(ctx: Any) -> str:
    items = calendars(ctx.config)

    def fetch(unit: tuple[int, dict]) -> str:
        item = unit[1]
        response = ctx.http.get(item["url"], accept="text/calendar, */*")
        events = parse_events(ctx, response.content)
        return f"{replace_events(ctx, TYPE_ID, item['url'], events, item['categoryId'])} events"

    run = each_unit(ctx, list(enumerate(items, 1)), fetch,
                    lambda unit: f"calendar {unit[1].get('label') or unit[0]}")
    drop_calendars(ctx, TYPE_ID, [item["url"] for item in items])
    return run.finish(ctx, "calendars", "no calendar configured")
