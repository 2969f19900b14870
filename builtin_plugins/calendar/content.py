"""The calendar event content list: catalog (its ``category`` filter also searches the extra
categories), moderation deletes, the category guard of curator categories, the cloud feed."""
from __future__ import annotations

from typing import Any

from hookspecs import ContentList, FeedKind
from hookspecs.content import FeedItem


def calendar_category_ids(row: Any) -> list[str]:
    ids = [row.category_id] if row.category_id else []
    ids += sorted(c.category_id for c in row.categories if c.category_id not in ids)
    return ids


def calendar_event_json(row: Any) -> dict:
    # integration_type is derived from source: calendar_<provider>, calendar_ical, or passthrough.
    return {"id": row.id, "title": row.title, "location": row.location, "description": row.description,
            "source": row.source, "start_ms": row.start_ms, "end_ms": row.end_ms, "all_day": row.all_day,
            "category_id": row.category_id, "category_ids": calendar_category_ids(row),
            "integration_id": row.integration_id, "integration_type": row.source}


def _link_calendar_categories(db: Any, row: Any, item: FeedItem) -> None:
    wanted = item.strings("category_ids", 64)
    for link in list(row.categories):
        if link.category_id not in wanted:
            link.delete()
    have = {link.category_id for link in row.categories}
    for category in wanted:
        if category not in have:
            db.CalendarEventCategory(event=row, category_id=category)
    row.category_id = wanted[0] if wanted else None


CALENDAR_EVENT_FEED = FeedKind("calendar_event", lambda i, now: {
    "title": i.text("title", 2000, True), "location": i.text("location", 2000),
    "description": i.text("description", 20000), "start_ms": i.integer("start_ms", True),
    "end_ms": i.integer("end_ms", True), "all_day": i.flag("all_day")},
    provenance="source", after_upsert=_link_calendar_categories)


LISTS = [
    ContentList("calendar-events", "CalendarEvent", calendar_event_json, label="calendar events",
                filters={"title": "title", "location": "location", "description": "description",
                         "source": "source", "category": "category_id"},
                order=(("start_ms", False), ("id", False)), deletable=True,
                delete_summary="delete a calendar event (its category rows cascade)",
                category_links=("CalendarEventCategory", "event", "category_id"),
                category_guard="category_in_use_calendar", feed=CALENDAR_EVENT_FEED),
]
