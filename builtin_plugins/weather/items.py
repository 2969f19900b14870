"""The weather ticker tape's items: ``<location>: <temperature>, <description>`` per location."""
from __future__ import annotations

from typing import Any

from pony.orm import select as orm_select

from svc_host.kit.formatting import format_temperature, temperature_unit
from svc_host.kit.services import preferences


def weather_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "WeatherCurrent", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    unit = temperature_unit(config.get("temperatureUnit"), preferences(host).temperature_unit)
    if config.get("locationId"):
        row = entity.get(location_id=config["locationId"])
        rows = [row] if row is not None else []
    else:
        rows = list(entity.select().order_by(lambda w: (w.location_name, w.location_id)))
        locations = getattr(host.db, "WeatherLocation", None)
        if locations is not None:  # every location, except those switched off in interests
            disabled = set(orm_select(loc.id for loc in locations if not loc.enabled))
            rows = [row for row in rows if row.location_id not in disabled]
    items = []
    for row in rows:
        parts = []
        if row.temp_c is not None:
            parts.append(format_temperature(row.temp_c, unit))
        if row.description:
            parts.append(row.description)
        if parts:
            items.append(f"{row.location_name}: {', '.join(parts)}")
    return items
