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


from builtin_plugins.weather import collectors, content, models, routes, types
from hookspecs import Feature
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ, declare


FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ),
    entities=models.define_entities,
    integration_types=[collectors.WEATHER, collectors.AIR_QUALITY, collectors.ALERTS],
    screen_types=types.SCREEN_TYPES,
    ticker_types=types.TICKER_TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.weather.samples:write",
)
