"""Weather: the interests weather locations, the collectors that fill the current weather and
the alerts of each, and the slides and ticker tape that show them.

- tables (``models.py``): ``WeatherLocation`` (interests, spec 2.9), ``WeatherCurrent`` and
  ``WeatherAlert`` (catalog, spec 2.8);
- collectors (``collectors.py``): ``weather_openmeteo``, ``air_quality_openmeteo``,
  ``weather_alerts_nws``;
- REST (``routes.py``): ``/v1/interests/weather-locations[/{id}]``,
  ``/v1/media/weather-at-location/{location_id}``;
- types (``types.py``): slides ``weather_current``, ``weather_forecast``; ticker ``weather``
  (items in ``items.py``);
- content lists (``content.py``): ``weather-current``, ``weather-alerts`` (catalog,
  moderation deletes, cloud feed kinds ``weather_current``, ``weather_alert``).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.weather import collectors, content, models, routes, types
from hookspecs import ContentList, IntegrationType, Permission, Route, ScreenType, TickerType, hookimpl
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ, declare


@hookimpl
def register_permissions() -> list[Permission]:
    return declare(INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ)


@hookimpl
def register_entities(db: Any) -> None:
    models.define_entities(db)


@hookimpl
def register_integration_types() -> list[IntegrationType]:
    return [collectors.WEATHER, collectors.AIR_QUALITY, collectors.ALERTS]


@hookimpl
def register_screen_types() -> list[ScreenType]:
    return list(types.SCREEN_TYPES)


@hookimpl
def register_ticker_types() -> list[TickerType]:
    return list(types.TICKER_TYPES)


@hookimpl
def register_content_lists() -> list[ContentList]:
    return list(content.LISTS)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return routes.routes(host)


@hookimpl
def display_samples(host: Any) -> None:
    from builtin_plugins.weather import samples

    samples.write(host)
