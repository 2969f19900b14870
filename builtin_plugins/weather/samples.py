"""Sample weather for ``svc-display gallery`` (the ``display_samples`` hook): the location
``home`` the types' examples name, with its current conditions, a five-day forecast and an alert."""
from __future__ import annotations

import datetime as dt
from typing import Any

from svc_host.kit.samples import icon_png

FORECAST = [("sun", "Sunny", 24, 14, 0), ("cloud", "Cloudy", 21, 13, 3), ("rain", "Showers", 17, 11, 80),
            ("cloud", "Bright spells", 19, 10, 2), ("sun", "Sunny", 23, 12, 1)]


def write(host: Any) -> None:
    now = host.clock.now_ms()
    for kind in ("sun", "cloud", "rain"):
        host.blobs.put(f"samples/weather-{kind}.png", icon_png(kind), "image/png")
    today = dt.datetime.fromtimestamp(now / 1000, dt.timezone.utc).date()
    days = [{"label": "Today" if i == 0 else (today + dt.timedelta(days=i)).strftime("%a"),
             "date": (today + dt.timedelta(days=i)).isoformat(), "max_c": high, "min_c": low,
             "description": text, "weather_code": code} for i, (_kind, text, high, low, code) in enumerate(FORECAST)]
    host.db.WeatherCurrent(location_id="home", location_name="Berlin", description="Sunny, light breeze",
                           temp_c=22.4, icon_blob_key="samples/weather-sun.png", observed_at_ms=now,
                           integration_type="weather_openmeteo", forecast_json=days,
                           air_quality_json={"european_aqi": 21})
    host.db.WeatherAlert(location_id="home", alert_id="heat-1", event="Heat", location_name="Berlin",
                         headline="UV index high this afternoon", severity="moderate", starts_ms=now,
                         ends_ms=now + 8 * 3_600_000, integration_type="weather_openmeteo")
