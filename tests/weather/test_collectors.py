"""weather_openmeteo, air_quality_openmeteo and weather_alerts_nws against documented formats."""

from __future__ import annotations

from pony import orm
from hookspecs.services import INTEGRATIONS

FORECAST = {
    "latitude": 52.52,
    "longitude": 13.419998,
    "generationtime_ms": 0.05,
    "utc_offset_seconds": 7200,
    "timezone": "Europe/Berlin",
    "timezone_abbreviation": "CEST",
    "elevation": 38.0,
    "current_units": {
        "time": "iso8601",
        "interval": "seconds",
        "temperature_2m": "°C",
        "weather_code": "wmo code",
        "is_day": "",
    },
    "current": {
        "time": "2024-06-01T14:15",
        "interval": 900,
        "temperature_2m": 21.4,
        "weather_code": 3,
        "is_day": 1,
    },
    "daily_units": {
        "time": "iso8601",
        "weather_code": "wmo code",
        "temperature_2m_max": "°C",
        "temperature_2m_min": "°C",
    },
    "daily": {
        "time": ["2024-06-01", "2024-06-02"],
        "weather_code": [3, 61],
        "temperature_2m_max": [23.1, 19.0],
        "temperature_2m_min": [12.2, 11.5],
    },
}

AIR = {
    "latitude": 52.5,
    "longitude": 13.4,
    "utc_offset_seconds": 0,
    "timezone": "GMT",
    "current": {
        "time": "2024-06-01T12:00",
        "interval": 3600,
        "european_aqi": 23,
        "us_aqi": 41,
        "pm10": 12.3,
        "pm2_5": 7.1,
        "ozone": 80.0,
        "nitrogen_dioxide": 9.4,
    },
}

NWS_ALERTS = {
    "@context": ["https://geojson.org/geojson-ld/geojson-context.jsonld"],
    "type": "FeatureCollection",
    "features": [
        {
            "id": "https://api.weather.gov/alerts/urn:oid:2.49.0.1.840.0.abc",
            "type": "Feature",
            "geometry": None,
            "properties": {
                "@id": "https://api.weather.gov/alerts/urn:oid:2.49.0.1.840.0.abc",
                "id": "urn:oid:2.49.0.1.840.0.abc",
                "areaDesc": "Travis, TX",
                "effective": "2024-06-01T10:00:00-05:00",
                "onset": "2024-06-01T12:00:00-05:00",
                "expires": "2024-06-01T20:00:00-05:00",
                "ends": "2024-06-01T21:00:00-05:00",
                "status": "Actual",
                "messageType": "Alert",
                "category": "Met",
                "severity": "Severe",
                "certainty": "Likely",
                "urgency": "Expected",
                "event": "Severe Thunderstorm Warning",
                "headline": "Severe Thunderstorm Warning issued June 1 at 10:00AM CDT",
                "description": "At 1000 AM CDT, a severe thunderstorm was located near Austin.",
                "instruction": "Move indoors.",
            },
        }
    ],
    "title": "Current watches, warnings, and advisories",
    "updated": "2024-06-01T15:00:00+00:00",
}


def _locations(host):
    with orm.db_session:
        host.db.WeatherLocation(id="berlin", name="Berlin", latitude=52.52, longitude=13.41)
        host.db.WeatherLocation(
            id="austin",
            name="Austin",
            latitude=30.2672,
            longitude=-97.7431,
            include_active_weather_alerts=True,
        )
        host.db.WeatherLocation(id="off", name="Off", latitude=1, longitude=1, enabled=False)


def _base(host, type_id, url):
    with orm.db_session:
        config = dict(host.db.Integration[type_id].config_json or {})
        host.db.Integration[type_id].config_json = {**config, "baseUrl": url}


def test_open_meteo_current_weather(host, upstream):
    _locations(host)
    upstream.json("/v1/forecast", FORECAST)
    _base(host, "weather_openmeteo", upstream.url)
    result = host.services[INTEGRATIONS].run_now("weather_openmeteo")
    assert result.status == "ok" and result.message == "2 locations updated"
    with orm.db_session:
        row = host.db.WeatherCurrent["berlin"]
        assert (row.location_name, row.temp_c, row.description) == ("Berlin", 21.4, "Overcast")
        assert row.observed_at_ms == 1717244100000  # 14:15 at UTC+2 = 12:15Z
        assert row.forecast_json[1] == {
            "date": "2024-06-02",
            "weather_code": 61,
            "description": "Slight rain",
            "temp_max_c": 19.0,
            "temp_min_c": 11.5,
        }
        assert row.integration_type == "weather_openmeteo"
        assert host.db.WeatherCurrent.get(location_id="off") is None
    queries = [r.query for r in upstream.requests_to("/v1/forecast")]
    assert sorted(q["latitude"][0] for q in queries) == ["30.2672", "52.52"]
    assert "temperature_2m" in queries[0]["current"][0] and queries[0]["timezone"] == ["auto"]
    assert host.services[INTEGRATIONS].run_now("weather_openmeteo").status == "ok"
    with orm.db_session:
        assert host.db.WeatherCurrent.select().count() == 2


def test_open_meteo_air_quality_merges_into_the_snapshot(host, upstream):
    _locations(host)
    upstream.json("/v1/forecast", FORECAST)
    upstream.json("/v1/air-quality", AIR)
    _base(host, "weather_openmeteo", upstream.url)
    _base(host, "air_quality_openmeteo", upstream.url)
    engine = host.services[INTEGRATIONS]
    assert engine.run_now("air_quality_openmeteo").status == "ok"
    assert engine.run_now("weather_openmeteo").status == "ok"
    with orm.db_session:
        row = host.db.WeatherCurrent["berlin"]
        assert row.air_quality_json["european_aqi"] == 23 and row.air_quality_json["pm2_5"] == 7.1
        assert row.temp_c == 21.4


def test_nws_alerts_for_opted_in_locations(host, upstream):
    _locations(host)
    upstream.json("/alerts/active", NWS_ALERTS)
    _base(host, "weather_alerts_nws", upstream.url)
    engine = host.services[INTEGRATIONS]
    assert engine.run_now("weather_alerts_nws").status == "ok"
    assert [r.query["point"] for r in upstream.requests_to("/alerts/active")] == [["30.2672,-97.7431"]]
    assert upstream.requests_to("/alerts/active")[0].headers["Accept"] == "application/geo+json"
    assert "svc-display" in upstream.requests_to("/alerts/active")[0].headers["User-Agent"]
    with orm.db_session:
        alert = host.db.WeatherAlert.get(location_id="austin", alert_id="urn:oid:2.49.0.1.840.0.abc")
        assert (alert.event, alert.severity, alert.location_name) == (
            "Severe Thunderstorm Warning",
            "Severe",
            "Austin",
        )
        assert alert.excerpt.startswith("At 1000 AM CDT")
        assert alert.ends_ms == 1717293600000
    upstream.json("/alerts/active", {"type": "FeatureCollection", "features": []})
    assert engine.run_now("weather_alerts_nws").status == "ok"
    with orm.db_session:
        assert host.db.WeatherAlert.select().count() == 0  # expired alerts go
