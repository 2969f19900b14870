"""Calendar rows shared by every calendar collector: one replace-per-calendar upsert."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Any

from pony import orm

from svc_host.kit.collecting import clip, digest, plain_text
from svc_host.kit.services import display_zone as _display_zone

DAY_MS = 86_400_000


def display_zone(ctx: Any) -> tzinfo:
    """The display's timezone (setting ``display_timezone``): all-day and floating times use it."""
    return _display_zone(ctx.host)


def to_ms(value: Any, zone: tzinfo) -> int:
    """A date (midnight in ``zone``), naive datetime (in ``zone``) or aware datetime to epoch ms."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=zone)
        return int(aware.timestamp() * 1000)
    if isinstance(value, date):
        return int(datetime.combine(value, time(0), zone).timestamp() * 1000)
    raise ValueError(f"not a date or datetime: {type(value).__name__}")


def window(ctx: Any) -> tuple[datetime, datetime]:
    """``[now - pastDays, now + futureDays]`` from the integration config (defaults 7 and 60)."""
    now = datetime.fromtimestamp(ctx.now_ms() / 1000, timezone.utc)
    past = int(ctx.config.get("pastDays", 7))
    future = int(ctx.config.get("futureDays", 60))
    return now - timedelta(days=past), now + timedelta(days=future)


def event(key: str, title: Any, start_ms: int, end_ms: int, all_day: bool,
          location: Any = "", description: Any = "") -> dict[str, Any]:
    """One occurrence as :func:`replace_events` stores it, from what a source calls its fields
    (missing ones empty); an event never ends before it starts."""
    return {"key": key, "title": title or "", "location": location or "", "description": description or "",
            "start_ms": start_ms, "end_ms": max(start_ms, end_ms), "all_day": all_day}


def replace_events(
    ctx: Any, source: str, calendar_key: str, events: list[dict[str, Any]], category_id: str
) -> int:
    """Make the stored events of one calendar exactly ``events`` (idempotent); returns the count.

    Each event dict has ``key`` (stable per occurrence), ``title``, ``start_ms``, ``end_ms``,
    ``all_day`` and optional ``location``, ``description``. Row ids are
    ``<source>:<calendar digest>:<occurrence digest>``.
    """
    prefix = f"{source}:{digest(ctx.integration_id, calendar_key, length=12)}:"
    wanted = {}
    for event in events:
        wanted[prefix + digest(event["key"], length=32)] = {
            "title": plain_text(event.get("title"), 2000) or "(untitled)",
            "location": plain_text(event.get("location"), 2000),
            "description": clip(event.get("description") or "", 20000),
            "start_ms": int(event["start_ms"]),
            "end_ms": int(event["end_ms"]),
            "all_day": bool(event["all_day"]),
        }
    with orm.db_session:
        db = ctx.db
        stored = {e.id: e for e in db.CalendarEvent.select(lambda e: e.id.startswith(prefix))}
        for row_id, values in wanted.items():
            row = stored.get(row_id)
            if row is None:
                row = db.CalendarEvent(
                    id=row_id,
                    source=source,
                    category_id=category_id,
                    integration_id=ctx.integration_id,
                    **values,
                )
                db.CalendarEventCategory(event=row, category_id=category_id)
                continue
            changes = {k: v for k, v in values.items() if getattr(row, k) != v}
            if row.category_id != category_id:
                changes["category_id"] = category_id
                for link in list(row.categories):
                    link.delete()
                db.CalendarEventCategory(event=row, category_id=category_id)
            if changes:
                row.set(**changes)
        for row_id, row in stored.items():
            if row_id not in wanted:
                row.delete()
    return len(wanted)


def drop_calendars(ctx: Any, source: str, keep_keys: list[str]) -> None:
    """Delete rows of calendars no longer configured for this integration."""
    keep = {f"{source}:{digest(ctx.integration_id, key, length=12)}:" for key in keep_keys}
    with orm.db_session:
        for row in ctx.db.CalendarEvent.select(
            lambda e: e.source == source and e.integration_id == ctx.integration_id
        ):
            if not any(row.id.startswith(prefix) for prefix in keep):
                row.delete()
