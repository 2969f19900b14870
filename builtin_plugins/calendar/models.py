"""The calendar tables: events (catalog, spec 2.8) and the extra categories of each."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class CalendarEvent(db.Entity):
        _table_ = "svc_calendar_event"
        id = orm.PrimaryKey(str, 300)
        title = orm.Required(str, 2000)
        location = orm.Optional(str, 2000, default="")
        description = orm.Optional(str, 20000, default="")
        source = orm.Required(str, 100)  # calendar_google, calendar_microsoft, calendar_ical, calendar_nutrislice, manual_entry...
        start_ms = orm.Required(int, index=True, **MS)
        end_ms = orm.Required(int, **MS)
        all_day = orm.Required(bool, default=False)
        category_id = orm.Optional(str, 64, nullable=True, index=True)  # primary category
        integration_id = orm.Optional(str, 100, nullable=True)
        categories = orm.Set("CalendarEventCategory", cascade_delete=True)

    class CalendarEventCategory(db.Entity):
        _table_ = "svc_calendar_event_category"
        event = orm.Required(CalendarEvent)
        category_id = orm.Required(str, 64, index=True)
        orm.PrimaryKey(event, category_id)
