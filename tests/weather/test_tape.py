"""The weather ticker tape over HTTP: units from the tape, the key-value, then the setting."""
import pytest
from pony import orm

from tests.ticker.tapes import _items, _kv, _tape
from hookspecs.services import SETTINGS

pytestmark = pytest.mark.svc_display_storage


def _weather(host):
    with orm.db_session:
        host.db.WeatherCurrent(location_id="home", location_name="Home", description="Light rain", temp_c=21.4,
                               integration_type="weather_openmeteo")
        host.db.WeatherCurrent(location_id="cabin", location_name="Cabin", description="", temp_c=-3.0,
                               integration_type="weather_openmeteo")


def test_weather_units_tape_then_key_value_then_setting(ticker):
    _weather(ticker.host)
    _tape(ticker, "w", "weather", {"locationId": "home"})
    assert _items(ticker)[0]["body"] == "Home: 21°C, Light rain"
    with orm.db_session:
        ticker.host.services[SETTINGS].set("display_weather_temperature_unit", "f")
    assert _items(ticker)[0]["body"] == "Home: 71°F, Light rain"
    _kv(ticker.host, "display.weather.temperature_unit", "c")
    assert _items(ticker)[0]["body"] == "Home: 21°C, Light rain"
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {"locationId": "home", "temperatureUnit": "f"}})
    assert _items(ticker)[0]["body"] == "Home: 71°F, Light rain"
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {}})
    assert [i["body"] for i in _items(ticker)] == ["Cabin: -3°C", "Home: 21°C, Light rain"]
    with orm.db_session:
        ticker.host.db.WeatherLocation(id="cabin", name="Cabin", latitude=1.0, longitude=2.0, enabled=False)
    assert [i["body"] for i in _items(ticker)] == ["Home: 21°C, Light rain"]
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {"locationId": "nowhere"}})
    assert _items(ticker) == []
