"""Weather REST: the interests list of weather locations (spec 4.7) and the weather lookup of
one location (spec 4.8, ``GET /v1/media/weather-at-location/{location_id}``)."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Operation, Route
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, TELEMETRY_READ
from svc_host.kit.rest import EntityKind, Text, client_id, entity_routes, lookup_id, not_found

NAME = validate.Length(min=1, max=200)


class WeatherLocationBody(Schema):
    id = Text(validate=client_id)
    name = Text(required=True, validate=NAME)
    latitude = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-180, max=180))
    enabled = fields.Boolean()
    include_active_weather_alerts = fields.Boolean()


class WeatherLocationPatch(WeatherLocationBody):
    class Meta:
        exclude = ("id",)

    name = Text(validate=NAME)
    latitude = fields.Float(allow_nan=False, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(allow_nan=False, validate=validate.Range(min=-180, max=180))


def weather_location_json(row: Any) -> dict:
    return {"id": row.id, "name": row.name, "latitude": row.latitude, "longitude": row.longitude,
            "enabled": row.enabled, "include_active_weather_alerts": row.include_active_weather_alerts}


LOCATIONS = EntityKind("weather-locations", "WeatherLocation", "weather location", weather_location_json,
                       WeatherLocationBody, WeatherLocationPatch,
                       lambda db, i: (db.WeatherCurrent.exists(location_id=i)
                                      or db.WeatherAlert.exists(location_id=i)),
                       "current-weather or weather-alert rows reference this location")


class WeatherResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any, location_id: str) -> None:
        db = self.host.db
        key = lookup_id(location_id)
        location = db.WeatherLocation.get(id=key) if key else None
        if location is None:
            raise not_found("weather location")
        item = {"location_id": location.id, "location_name": location.name, "latitude": location.latitude,
                "longitude": location.longitude, "enabled": location.enabled}
        current = db.WeatherCurrent.get(location_id=location.id)
        if current is not None:
            item.update({"observed_at_ms": current.observed_at_ms, "current_temp_c": current.temp_c,
                         "current_description": current.description,
                         "current_icon_blob_key": current.icon_blob_key})
        resp.media = item


def routes(host: Any) -> list[Route]:
    return [
        *entity_routes(host, LOCATIONS, "/v1/interests/weather-locations", INTERESTS_READ, INTERESTS_WRITE,
                       ("interests",), publishes=("catalog",)),
        Route("/v1/media/weather-at-location/{location_id}", WeatherResource(host), {
            "GET": Operation(TELEMETRY_READ, "a weather location with its current snapshot",
                             tags=("media",))}),
    ]
