"""Content helpers shared by the curator, interests, manual-entry, catalog, moderation and media plugins.

- ``category_exists``: curator categories are the vocabulary of content categories;
- ``ROW_SERIALIZERS``: one JSON shape per catalog row, used by the catalog and media routes;
- ``calendar_category_ids``: primary plus junction categories of a calendar event.
"""
from __future__ import annotations

from typing import Any, Callable

MANUAL_ENTRY = "manual_entry"


def category_exists(db: Any, category_id: Any) -> bool:
    """True when ``category_id`` names a curator category (False when the curator plugin is off)."""
    entity = getattr(db, "CuratorCategory", None)
    if entity is None or not isinstance(category_id, str):
        return False
    return entity.get(id=category_id) is not None


def joke_json(row: Any) -> dict:
    return {"id": row.id, "setup": row.setup, "punchline": row.punchline, "category_id": row.category_id,
            "integration_type": row.integration_type, "created_at_ms": row.created_at_ms}


def trivia_json(row: Any) -> dict:
    return {"id": row.id, "question": row.question, "option_a": row.option_a, "option_b": row.option_b,
            "option_c": row.option_c, "option_d": row.option_d, "correct_option": row.correct_option,
            "category_id": row.category_id, "integration_type": row.integration_type,
            "created_at_ms": row.created_at_ms}


def rss_article_json(row: Any) -> dict:
    return {"id": row.id, "feed_id": row.feed_id, "guid": row.guid, "title": row.title, "summary": row.summary,
            "link": row.link, "image_blob_key": row.image_blob_key, "published_at_ms": row.published_at_ms,
            "integration_type": row.integration_type, "created_at_ms": row.created_at_ms}


def photo_json(row: Any) -> dict:
    return {"id": row.id, "alt_text": row.alt_text, "photographer_name": row.photographer_name,
            "photographer_url": row.photographer_url, "source_url": row.source_url,
            "data_provider": row.data_provider, "media_blob_key": row.media_blob_key,
            "category_id": row.category_id, "integration_type": row.integration_type,
            "created_at_ms": row.created_at_ms}


def video_json(row: Any) -> dict:
    return {**photo_json(row), "duration_seconds": row.duration_seconds}


def stock_quote_json(row: Any) -> dict:
    return {"id": row.symbol_id, "symbol_id": row.symbol_id, "symbol": row.symbol,
            "display_name": row.display_name, "price": row.price, "change": row.change,
            "change_percent": row.change_percent, "currency": row.currency, "as_of_ms": row.as_of_ms,
            "integration_type": row.integration_type}


def weather_current_json(row: Any) -> dict:
    return {"id": row.location_id, "location_id": row.location_id, "location_name": row.location_name,
            "description": row.description, "temp_c": row.temp_c, "icon_blob_key": row.icon_blob_key,
            "observed_at_ms": row.observed_at_ms, "integration_type": row.integration_type}


def weather_alert_json(row: Any) -> dict:
    return {"id": row.alert_id, "alert_id": row.alert_id, "location_id": row.location_id, "event": row.event,
            "headline": row.headline, "severity": row.severity, "excerpt": row.excerpt,
            "location_name": row.location_name, "starts_ms": row.starts_ms, "ends_ms": row.ends_ms,
            "integration_type": row.integration_type}


def alert_json(row: Any) -> dict:
    source = getattr(row, "source", None)
    return {"id": row.id, "title": getattr(row, "title", None), "body": getattr(row, "body", None),
            "source": source, "severity": getattr(row, "severity", None),
            "priority": getattr(row, "priority", None), "expires_at": getattr(row, "expires_at", None),
            "dismissed_at": getattr(row, "dismissed_at", None), "integration_type": source or "alerts"}


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


def task_json(row: Any) -> dict:
    return {"id": row.id, "title": row.title, "list_label": row.list_label, "board_key": row.board_key,
            "due_at_ms": row.due_at_ms, "completed": row.completed, "integration_type": row.integration_type,
            "integration_id": row.integration_id}


ROW_SERIALIZERS: dict[str, Callable[[Any], dict]] = {
    "Joke": joke_json,
    "TriviaQuestion": trivia_json,
    "RssArticle": rss_article_json,
    "Photo": photo_json,
    "Video": video_json,
    "StockQuote": stock_quote_json,
    "WeatherCurrent": weather_current_json,
    "WeatherAlert": weather_alert_json,
    "Alert": alert_json,
    "CalendarEvent": calendar_event_json,
    "Task": task_json,
}


ROW_ID_MAX = 300


def lookup_id(value: str) -> str | None:
    """A path id usable in a lookup: None when it cannot name a row (too long, NUL characters)."""
    if not value or len(value) > ROW_ID_MAX or "\x00" in value:
        return None
    return value


# Moderated content (spec 4.4): path segment -> (entity, blob-key attribute or None).
MODERATED = {
    "jokes": ("Joke", None),
    "trivia": ("TriviaQuestion", None),
    "rss-articles": ("RssArticle", "image_blob_key"),
    "photos": ("Photo", "media_blob_key"),
    "videos": ("Video", "media_blob_key"),
}


def content_model_present(db: Any) -> bool:
    """True when the shared content tables exist (the ``content_model`` plugin is enabled)."""
    return getattr(db, "RssArticle", None) is not None
