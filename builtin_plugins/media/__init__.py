"""Media lookups (spec 2.12, 4.8): blobs by key, and single rows the display and clients show.

Rows that are missing or suppressed answer 404; blobs answer 404 when the file or its
content-type metadata is missing.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from builtin_plugins.common.content import (
    content_model_present,
    joke_json,
    lookup_id,
    photo_json,
    rss_article_json,
    trivia_json,
    video_json,
)
from hookspecs import AUTHENTICATED, Operation, Route, hookimpl
from svc_host.http.errors import not_found
from svc_host.permissions import TELEMETRY_READ


class BlobQuery(Schema):
    key = fields.String(required=True, validate=validate.Length(min=1, max=512))


def _media_article(row: Any) -> dict:
    item = rss_article_json(row)
    return {name: item[name] for name in ("id", "feed_id", "title", "summary", "link", "image_blob_key",
                                          "published_at_ms")}


MEDIA_ROWS = {
    "rss-articles": ("RssArticle", _media_article),
    "photos": ("Photo", photo_json),
    "videos": ("Video", video_json),
    "jokes": ("Joke", joke_json),
    "trivia": ("TriviaQuestion", trivia_json),
}


class BlobResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        blob = self.host.blobs.get(req.context.query["key"])
        if blob is None:
            raise not_found("blob")
        try:
            handle = open(blob.path, "rb")
        except OSError:
            raise not_found("blob") from None
        resp.content_type = blob.content_type
        resp.set_stream(handle, blob.size)
        resp.set_header("X-Content-Type-Options", "nosniff")
        resp.set_header("Cache-Control", "private, max-age=300")


class RowResource:
    def __init__(self, host: Any, entity_name: str, serialize: Any):
        self.host = host
        self.entity_name = entity_name
        self.serialize = serialize

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        row_id = lookup_id(id)
        row = getattr(self.host.db, self.entity_name).get(id=row_id) if row_id else None
        if row is None or row.suppressed:
            raise not_found("media row")
        resp.media = self.serialize(row)


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


@hookimpl
def register_routes(host: Any) -> list[Route]:
    if not content_model_present(host.db):
        return []
    tags = ("media",)
    routes = [
        Route("/v1/media/blob-by-key", BlobResource(host), {
            "GET": Operation(TELEMETRY_READ, "raw blob bytes with their stored content type", query=BlobQuery,
                             response_content_type="*/*", tags=tags)}),
        Route("/v1/media/weather-at-location/{location_id}", WeatherResource(host), {
            "GET": Operation(TELEMETRY_READ, "a weather location with its current snapshot", tags=tags)}),
    ]
    for path, (entity, serialize) in MEDIA_ROWS.items():
        routes.append(Route(f"/v1/media/{path}/{{id}}", RowResource(host, entity, serialize), {
            "GET": Operation(AUTHENTICATED, f"one of {path} (404 when missing or suppressed)", tags=tags)}))
    return routes
