"""``calendar_nutrislice``: a school's meal menu (the interface's "school-meal calendar") as
one all-day calendar event per school day.

Provider: Nutrislice, which publishes the menus of many school districts through a public
JSON API without an account or key - ``GET https://<district>.api.nutrislice.com/menu/api/
weeks/school/<school>/menu-type/<menuType>/<yyyy>/<mm>/<dd>/`` answers the week holding that
day: ``{"days": [{"date": "YYYY-MM-DD", "menu_items": [{"is_section_title", "text",
"food": {"name", ...} | null}, ...]}, ...]}``. The district and school slugs are those of
the school's public menu page (``https://<district>.nutrislice.com/menu/<school>/<menuType>``).

Config: ``district``, ``school``, ``menuType`` (``lunch``), ``weeks`` (2: this week and the
next), ``label`` (the event title's prefix, default the menu type capitalised),
``categoryId`` (``school-meals``). Each day with food becomes an event titled
``<label>: <food>, <food>, ...`` whose description lists the foods by section; days with
only a note (``No school``) become an event titled with the note. The days stored are
exactly those of the last answer (``replace_events``).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from builtin_plugins.calendar.store import display_zone, drop_calendars, replace_events, to_ms
from svc_host.kit.collecting import CollectorError, plain_text

TYPE_ID = "calendar_nutrislice"


def day_event(day: Any, label: str, menu_type: str) -> dict[str, Any] | None:
    """The all-day event of one ``days`` entry, or None for a day with nothing on it."""
    if not isinstance(day, dict) or not isinstance(day.get("date"), str):
        return None
    try:
        when = date.fromisoformat(day["date"])
    except ValueError:
        return None
    sections: list[tuple[str, list[str]]] = [("", [])]
    notes = []
    for item in day.get("menu_items") or []:
        if not isinstance(item, dict):
            continue
        food = item.get("food") if isinstance(item.get("food"), dict) else None
        text = plain_text(item.get("text"), 200)
        if item.get("is_section_title"):
            sections.append((text, []))
        elif food and plain_text(food.get("name"), 200):
            sections[-1][1].append(plain_text(food["name"], 200))
        elif text:
            notes.append(text)
    foods = [name for _, names in sections for name in names]
    if not foods and not notes:
        return None
    lines = [f"{title}: {', '.join(names)}" if title else ", ".join(names) for title, names in sections if names]
    return {
        "key": f"{menu_type}|{when.isoformat()}",
        "day": when,
        "title": f"{label}: {', '.join(foods)}" if foods else "; ".join(notes),
        "description": "\n".join(lines + notes),
        "all_day": True,
    }


def collect(ctx: Any) -> str:
    district, school = ctx.config.get("district"), ctx.config.get("school")
    if not district or not school:
        raise CollectorError("district and school are not configured")
    menu_type = ctx.config.get("menuType") or "lunch"
    label = ctx.config.get("label") or menu_type.replace("-", " ").capitalize()
    base = ctx.base_url(f"https://{district}.api.nutrislice.com")
    zone = display_zone(ctx)
    today = datetime.fromtimestamp(ctx.now_ms() / 1000, zone).date()
    events: dict[str, dict[str, Any]] = {}
    for week in range(int(ctx.config.get("weeks", 2))):
        ctx.checkpoint()
        day = today + timedelta(weeks=week)
        data = ctx.http.get_json(
            f"{base}/menu/api/weeks/school/{school}/menu-type/{menu_type}/{day:%Y/%m/%d}/")
        if not isinstance(data, dict) or not isinstance(data.get("days"), list):
            raise CollectorError("answer has no 'days' list")
        for entry in data["days"]:
            event = day_event(entry, label, menu_type)
            if event is not None:
                when = event.pop("day")
                events[event["key"]] = {**event, "start_ms": to_ms(when, zone),
                                        "end_ms": to_ms(when + timedelta(days=1), zone)}
    calendar = f"{district}/{school}/{menu_type}"
    count = replace_events(ctx, TYPE_ID, calendar, list(events.values()),
                           ctx.config.get("categoryId") or "school-meals")
    drop_calendars(ctx, TYPE_ID, [calendar])
    ctx.summary = f"{count} school days"
    return ctx.summary
