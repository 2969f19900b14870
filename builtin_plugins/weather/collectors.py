"""Weather collectors over the interests weather locations.

- ``weather_openmeteo``: current weather and a daily forecast (Open-Meteo forecast API);
- ``air_quality_openmeteo``: current air quality (Open-Meteo air-quality API);
- ``weather_alerts_nws``: active alerts (api.weather.gov GeoJSON) for locations with
  ``include_active_weather_alerts``.

Each location is its own unit: one failing location is logged and the others still
update; the run fails (and backs off) only when every location failed.
"""

from __future__ import annotations

from typing import Any, Callable
from datetime import datetime, timedelta, timezone

from pony import orm

from hookspecs.collect import CollectorError, HttpFailure
from svc_host.kit.collecting import clip, each_unit, plain_text

OPEN_METEO = "https://api.open-meteo.com"
OPEN_METEO_AQ = "https://air-quality-api.open-meteo.com"
NWS = "https://api.weather.gov"

# WMO weather interpretation codes, as documented by Open-Meteo.
WMO = {
    0: "Clear sky",
    1: "Mainly clear",
    2: "Partly cloudy",
    3: "Overcast",
    45: "Fog",
    48: "Depositing rime fog",
    51: "Light drizzle",
    53: "Moderate drizzle",
    55: "Dense drizzle",
    56: "Light freezing drizzle",
    57: "Dense freezing drizzle",
    61: "Slight rain",
    63: "Moderate rain",
    65: "Heavy rain",
    66: "Light freezing rain",
    67: "Heavy freezing rain",
    71: "Slight snow fall",
    73: "Moderate snow fall",
    75: "Heavy snow fall",
    77: "Snow grains",
    80: "Slight rain showers",
    81: "Moderate rain showers",
    82: "Violent rain showers",
    85: "Slight snow showers",
    86: "Heavy snow showers",
    95: "Thunderstorm",
    96: "Thunderstorm with slight hail",
    99: "Thunderstorm with heavy hail",
}


def _locations(ctx: Any, only_alerts: bool = False) -> list[dict[str, Any]]:
    with orm.db_session:
        rows = ctx.db.WeatherLocation.select(lambda loc: loc.enabled).order_by(lambda loc: loc.id)
        return [
            {"id": loc.id, "name": loc.name, "latitude": loc.latitude, "longitude": loc.longitude}
            for loc in rows
            if loc.include_active_weather_alerts or not only_alerts
        ]


def _each_location(ctx: Any, locations: list[dict[str, Any]], work: Callable[[dict], None]) -> str:
    run = each_unit(ctx, locations, work, lambda location: f"location {location['id']}",
                    catch=(HttpFailure, CollectorError, ValueError, KeyError, TypeError))
    return run.finish(ctx, "locations", "no enabled location")


def _local_time_ms(text: Any, utc_offset_seconds: Any) -> int | None:
    """Open-Meteo times (``2024-06-01T12:00``, local to ``timezone``) to epoch ms."""
    if not isinstance(text, str):
        return None
    try:
        local = datetime.fromisoformat(text)
    except ValueError:
        return None
    offset = int(utc_offset_seconds) if isinstance(utc_offset_seconds, (int, float)) else 0
    if local.tzinfo is None:
        local = local.replace(tzinfo=timezone(timedelta(seconds=offset)))
    return int(local.timestamp() * 1000)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


# ---- weather_openmeteo ----------------------------------------------------------------------


def _current(ctx: Any, url: str, location: dict, params: dict[str, Any]) -> tuple[dict, dict]:
    """One Open-Meteo answer for ``location`` and its ``current`` object (the forecast's and the
    air quality's alike); an answer without one is the collector's error."""
    data = ctx.http.get_json(url, params={"latitude": location["latitude"], "longitude": location["longitude"],
                                          **params})
    if not isinstance(data, dict) or not isinstance(data.get("current"), dict):
        raise CollectorError("answer has no 'current' object")
    return data, data["current"]


def collect_weather(ctx: Any) -> str:
    base = ctx.base_url(OPEN_METEO)
    days = int(ctx.config.get("forecastDays", 3))

    def work(location: dict) -> None:
        data, current = _current(ctx, f"{base}/v1/forecast", location, {
            "current": "temperature_2m,weather_code,is_day",
            "daily": "weather_code,temperature_2m_max,temperature_2m_min",
            "timezone": "auto",
            "forecast_days": days,
        })
        temp = _number(current.get("temperature_2m"))
        if temp is None:
            raise CollectorError("answer has no current temperature_2m")
        code = current.get("weather_code")
        forecast = []
        daily = data.get("daily") if isinstance(data.get("daily"), dict) else {}
        for i, day in enumerate(daily.get("time") or []):

            def at(name: str) -> Any:
                values = daily.get(name) or []
                return values[i] if i < len(values) else None

            forecast.append(
                {
                    "date": clip(day, 10),
                    "weather_code": at("weather_code"),
                    "description": WMO.get(at("weather_code"), ""),
                    "temp_max_c": _number(at("temperature_2m_max")),
                    "temp_min_c": _number(at("temperature_2m_min")),
                }
            )
        values = {
            "location_name": location["name"],
            "description": WMO.get(code, f"Weather code {code}"),
            "temp_c": temp,
            "observed_at_ms": _local_time_ms(current.get("time"), data.get("utc_offset_seconds")),
            "forecast_json": forecast,
            "integration_type": ctx.integration_type,
        }
        with orm.db_session:
            row = ctx.db.WeatherCurrent.get(location_id=location["id"])
            if row is None:
                ctx.db.WeatherCurrent(location_id=location["id"], **values)
            else:
                row.set(**values)

    return _each_location(ctx, _locations(ctx), work)


# ---- air_quality_openmeteo ------------------------------------------------------------------

AQ_FIELDS = ("european_aqi", "us_aqi", "pm10", "pm2_5", "ozone", "nitrogen_dioxide")


def collect_air_quality(ctx: Any) -> str:
    base = ctx.base_url(OPEN_METEO_AQ)

    def work(location: dict) -> None:
        data, current = _current(ctx, f"{base}/v1/air-quality", location,
                                 {"current": ",".join(AQ_FIELDS), "timezone": "auto"})
        quality = {name: _number(current.get(name)) for name in AQ_FIELDS}
        if all(value is None for value in quality.values()):
            raise CollectorError("answer has no air-quality values")
        quality["observed_at_ms"] = _local_time_ms(current.get("time"), data.get("utc_offset_seconds"))
        with orm.db_session:
            row = ctx.db.WeatherCurrent.get(location_id=location["id"])
            if row is None:
                ctx.db.WeatherCurrent(
                    location_id=location["id"],
                    location_name=location["name"],
                    air_quality_json=quality,
                    integration_type=ctx.integration_type,
                )
            else:
                row.air_quality_json = quality

    return _each_location(ctx, _locations(ctx), work)


# ---- weather_alerts_nws ---------------------------------------------------------------------


def _iso_ms(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return int(parsed.timestamp() * 1000)


def collect_alerts(ctx: Any) -> str:
    base = ctx.base_url(NWS)

    def work(location: dict) -> None:
        data = ctx.http.get_json(
            f"{base}/alerts/active",
            params={"point": f"{location['latitude']:.4f},{location['longitude']:.4f}"},
            accept="application/geo+json",
        )
        if not isinstance(data, dict) or not isinstance(data.get("features"), list):
            raise CollectorError("answer is not a GeoJSON FeatureCollection")
        alerts = {}
        for feature in data["features"]:
            props = feature.get("properties") if isinstance(feature, dict) else None
            if not isinstance(props, dict) or not props.get("event"):
                continue
            alert_id = clip(props.get("id") or feature.get("id") or props.get("headline"), 500)
            alerts[alert_id] = {
                "event": plain_text(props["event"], 500),
                "headline": plain_text(props.get("headline"), 2000),
                "severity": clip(props.get("severity") or "", 64),
                "excerpt": plain_text(props.get("description"), 4000),
                "location_name": location["name"],
                "starts_ms": _iso_ms(props.get("onset") or props.get("effective")),
                "ends_ms": _iso_ms(props.get("ends") or props.get("expires")),
                "integration_type": ctx.integration_type,
            }
        with orm.db_session:
            stored = {
                a.alert_id: a
                for a in ctx.db.WeatherAlert.select(
                    lambda a: a.location_id == location["id"] and a.integration_type == ctx.integration_type
                )
            }
            for alert_id, values in alerts.items():
                if alert_id in stored:
                    stored[alert_id].set(**values)
                else:
                    ctx.db.WeatherAlert(location_id=location["id"], alert_id=alert_id, **values)
            for alert_id, row in stored.items():
                if alert_id not in alerts:  # no longer active
                    row.delete()

    return _each_location(ctx, _locations(ctx, only_alerts=True), work)
