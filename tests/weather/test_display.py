"""The weather slides' content steps (``builtin_plugins/weather/display.py``), without a canvas."""
from __future__ import annotations

import pytest
from pony import orm

from tests.display import fixture_plugin
from tests.display.layers import prepare

AIR = "Fair (31)"  # the European index in words (20-40: fair); the slide writes "Air quality: Fair (31)"


@pytest.fixture
def seeded(make_host):
    host = make_host()
    with orm.db_session:
        fixture_plugin.seed(host)
    return host


def test_a_weather_slide_shows_the_location_its_data_key_names(seeded):
    assert prepare(seeded, "screen", "weather_current", {"id": "w", "data_key": "home", "config_json": {}})["name"] == \
        "Home"
    assert prepare(seeded, "screen", "weather_current", {"id": "w", "data_key": "away", "config_json": {}}) is None
    assert prepare(seeded, "screen", "weather_forecast", {"id": "f", "config_json": {"locationId": "away"}}) is None


def test_weather_screens_honour_days_air_quality_and_alerts(seeded):
    with orm.db_session:
        row = seeded.db.WeatherCurrent["home"]
        row.air_quality_json = {"european_aqi": 31, "us_aqi": 44}
        seeded.db.WeatherAlert(location_id="home", alert_id="w1", event="Wind", headline="Gale warning",
                               location_name="Home", integration_type="weather_openmeteo")
    plain = prepare(seeded, "screen", "weather_current", {"id": "w", "config_json": {"locationId": "home"}})
    assert plain["air"] == "" and plain["warnings"] == []
    full = prepare(seeded, "screen", "weather_current", {"id": "w", "config_json": {
        "locationId": "home", "showAirQuality": True, "showAlerts": True}})
    assert full["air"] == AIR and full["warnings"] == ["Gale warning"]
    one_day = prepare(seeded, "screen", "weather_forecast", {"id": "f", "config_json": {"locationId": "home", "days": 1}})
    assert [d["label"] for d in one_day["days"]] == ["Mon"]
