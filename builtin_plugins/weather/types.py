"""The weather slide and ticker types: their ``config_json`` schemas, examples and item builder."""
from __future__ import annotations

from hookspecs import ScreenType, TickerType
from hookspecs.schema import ID_REF, TEMPERATURE_UNIT, boolean, integer, obj
from builtin_plugins.weather import items

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="weather_current",
        label="Current weather",
        description="Current conditions of one interests weather location.",
        renderer="builtin_plugins.weather.display:weather_current",
        config_schema=obj("weather_current", {
            "locationId": ID_REF,
            "temperatureUnit": TEMPERATURE_UNIT,
            "showAirQuality": boolean(),
            "showAlerts": boolean(),
        }, required=("locationId",)),
        example_config={"locationId": "home", "temperatureUnit": "c", "showAirQuality": True, "showAlerts": True},
    ),
    ScreenType(
        id="weather_forecast",
        label="Weather forecast",
        description="Daily forecast of one interests weather location.",
        renderer="builtin_plugins.weather.display:weather_forecast",
        config_schema=obj("weather_forecast", {
            "locationId": ID_REF,
            "days": integer(1, 10),
            "temperatureUnit": TEMPERATURE_UNIT,
        }, required=("locationId",)),
        example_config={"locationId": "home", "days": 5, "temperatureUnit": "f"},
    ),
]

TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="weather",
        label="Weather",
        description="Current weather of one location (all locations when locationId is omitted).",
        config_schema=obj("weather", {
            "locationId": ID_REF,
            "temperatureUnit": TEMPERATURE_UNIT,
        }),
        example_config={"locationId": "home", "temperatureUnit": "f"},
        build_items=items.weather_items,
        reads=("WeatherCurrent", "WeatherLocation"),
    ),
]
