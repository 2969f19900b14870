"""Sample events for ``svc-display gallery`` (the ``display_samples`` hook): a week of the
``family`` category the types' examples name, the first running now."""
from __future__ import annotations

from typing import Any

HOUR = 3_600_000
EVENTS = [("Team stand-up", 0, 1, "Room 2"), ("Lunch with the design team", 3, 1.5, "Atrium"),
          ("Dentist", 26, 1, "Main street 4"), ("Family dinner", 50, 2, "Home"),
          ("Football practice", 74, 1.5, "Sports park"), ("Book club", 98, 2, "Library"),
          ("Birthday party", 122, 3, "Garden")]


def write(host: Any) -> None:
    db, now = host.db, host.clock.now_ms()
    start = now - now % HOUR
    for i, (title, hours, length, where) in enumerate(EVENTS):
        event = db.CalendarEvent(id=f"sample-{i}", title=title, location=where, source="manual_entry",
                                 start_ms=start + hours * HOUR, end_ms=start + int((hours + length) * HOUR),
                                 category_id="family")
        db.CalendarEventCategory(event=event, category_id="family")
