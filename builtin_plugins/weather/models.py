"""The weather tables: interests locations (spec 2.9), the latest snapshot per location and its
active alerts (2.8).

Temperatures are stored in degrees Celsius; times are epoch milliseconds."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    # ---- interests (spec 2.9) -------------------------------------------------------
    class WeatherLocation(db.Entity):
        _table_ = "svc_weather_location"
        id = orm.PrimaryKey(str, 64)
        name = orm.Required(str, 200)
        latitude = orm.Required(float)
        longitude = orm.Required(float)
        enabled = orm.Required(bool, default=True)
        include_active_weather_alerts = orm.Required(bool, default=False)

    class WeatherCurrent(db.Entity):
        _table_ = "svc_weather_current"
        location_id = orm.PrimaryKey(str, 64)  # latest snapshot per interests location
        location_name = orm.Required(str, 200)
        description = orm.Optional(str, 500, default="")
        temp_c = orm.Optional(float, nullable=True)
        icon_blob_key = orm.Optional(str, 512, nullable=True)
        observed_at_ms = orm.Optional(int, nullable=True, **MS)
        forecast_json = orm.Optional(orm.Json, nullable=True)  # daily forecast list, when collected
        air_quality_json = orm.Optional(orm.Json, nullable=True)
        integration_type = orm.Required(str, 100)

    class WeatherAlert(db.Entity):
        _table_ = "svc_weather_alert"
        location_id = orm.Required(str, 64, index=True)
        alert_id = orm.Required(str, 500)
        orm.PrimaryKey(location_id, alert_id)
        event = orm.Required(str, 500)
        headline = orm.Optional(str, 2000, default="")
        severity = orm.Optional(str, 64, default="")
        excerpt = orm.Optional(str, 4000, default="")
        location_name = orm.Required(str, 200)
        starts_ms = orm.Optional(int, nullable=True, **MS)
        ends_ms = orm.Optional(int, nullable=True, **MS)
        integration_type = orm.Required(str, 100)
