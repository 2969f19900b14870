"""Weather: the interests weather locations, the collectors that fill the current weather and
the alerts of each, and the slides and ticker tape that show them.

- tables (``models.py``): ``WeatherLocation`` (interests, spec 2.9), ``WeatherCurrent`` and
  ``WeatherAlert`` (catalog, spec 2.8);
- collectors (``collectors.py``): ``weather_openmeteo``, ``air_quality_openmeteo``,
  ``weather_alerts_nws``;
- REST (``routes.py``): ``/v1/interests/weather-locations[/{id}]``,
  ``/v1/media/weather-at-location/{location_id}``;
- types (``types.json``): slides ``weather_current``, ``weather_forecast``; ticker ``weather``
  (items in ``items.py``); the three collectors;
- content lists (``content.py``): ``weather-current``, ``weather-alerts`` (catalog,
  moderation deletes, cloud feed kinds ``weather_current``, ``weather_alert``).
"""
from __future__ import annotations


from builtin_plugins.weather import content, models, routes
from hookspecs import Feature
from hookspecs.catalog import load_types
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ, declare


TYPES = load_types(__name__)
FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ),
    entities=models.define_entities,
    types=TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.weather.samples:write",
)
