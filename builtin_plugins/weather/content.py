"""The weather content lists: current-weather snapshots and weather alerts (catalog, moderation
deletes, cloud feed kinds)."""
from __future__ import annotations

from typing import Any

from hookspecs import ContentList, FeedKind
from hookspecs.content import FEED_PROVENANCE


def weather_current_json(row: Any) -> dict:
    return {"id": row.location_id, "location_id": row.location_id, "location_name": row.location_name,
            "description": row.description, "temp_c": row.temp_c, "icon_blob_key": row.icon_blob_key,
            "observed_at_ms": row.observed_at_ms, "integration_type": row.integration_type}


def weather_alert_json(row: Any) -> dict:
    return {"id": row.alert_id, "alert_id": row.alert_id, "location_id": row.location_id, "event": row.event,
            "headline": row.headline, "severity": row.severity, "excerpt": row.excerpt,
            "location_name": row.location_name, "starts_ms": row.starts_ms, "ends_ms": row.ends_ms,
            "integration_type": row.integration_type}


# A feed's weather rows keep its location_id when it sends one.
WEATHER_CURRENT_FEED = FeedKind("weather_current", lambda i, now: {
    "description": i.text("description", 500), "location_name": i.text("location_name", 200, True),
    "temp_c": i.number("temp_c"), "observed_at_ms": i.integer("observed_at_ms")},
    key=lambda i: {"location_id": i.text("location_id", 64) or i.row_id()})
WEATHER_ALERT_FEED = FeedKind("weather_alert", lambda i, now: {
    "event": i.text("event", 500, True), "headline": i.text("headline", 2000),
    "severity": i.text("severity", 64),
    "excerpt": i.text("excerpt", 4000), "location_name": i.text("location_name", 200, True),
    "starts_ms": i.integer("starts_ms"), "ends_ms": i.integer("ends_ms")},
    key=lambda i: {"location_id": i.text("location_id", 64) or FEED_PROVENANCE, "alert_id": i.row_id()})


LISTS = [
    ContentList("weather-current", "WeatherCurrent", weather_current_json, label="current-weather snapshots",
                filters={"description": "description", "location_name": "location_name",
                         "location_id": "location_id"},
                order=(("location_name", False), ("location_id", False)), deletable=True,
                delete_summary="delete a cached current-weather snapshot", feed=WEATHER_CURRENT_FEED),
    ContentList("weather-alerts", "WeatherAlert", weather_alert_json, label="weather alerts",
                filters={"event": "event", "headline": "headline", "severity": "severity",
                         "excerpt": "excerpt", "location_name": "location_name",
                         "location_id": "location_id"},
                order=(("location_id", False), ("starts_ms", True), ("alert_id", False)), deletable=True,
                delete_summary="delete one weather alert", feed=WEATHER_ALERT_FEED),
]
