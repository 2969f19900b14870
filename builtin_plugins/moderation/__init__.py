"""Content moderation (spec 4.4, needs ``content.moderate``).

``PATCH {suppressed}`` hides a joke, trivia question, RSS article, photo or video from every
reader that is not a moderator (catalog, media, slides, ticker) and restores it; ``DELETE``
removes the row and, when no other row uses it, its blob. Calendar events (junction rows
cascade), latest stock quotes, current-weather snapshots and weather alerts can be deleted.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

from builtin_plugins.common.content import MODERATED, content_model_present, lookup_id
from hookspecs import Operation, Route, hookimpl
from svc_host.http.errors import not_found
from svc_host.permissions import CONTENT_MODERATE

BLOB_USERS = {"image_blob_key": ("RssArticle",), "media_blob_key": ("Photo", "Video")}


class SuppressBody(Schema):
    suppressed = fields.Boolean(required=True)


class SuppressedSchema(Schema):
    id = fields.String(required=True)
    suppressed = fields.Boolean(required=True)


def _release_blob(host: Any, attribute: str, key: str | None) -> None:
    """Delete the blob ``key`` unless another row still uses it."""
    if not key:
        return
    db = host.db
    for name in BLOB_USERS[attribute]:
        entity = getattr(db, name)
        if entity.exists(**{attribute: key}):
            return
    host.blobs.delete(key)


def _get(entity: Any, **key: str) -> Any:
    """The row whose primary-key attributes equal the path parameters of the same names."""
    ids = {name: lookup_id(value) for name, value in key.items()}
    row = entity.get(**ids) if all(ids.values()) else None
    if row is None:
        raise not_found("content row")
    return row


class ModeratedResource:
    def __init__(self, host: Any, entity_name: str, blob_attribute: str | None):
        self.host = host
        self.entity_name = entity_name
        self.blob_attribute = blob_attribute

    def on_patch(self, req: Any, resp: Any, id: str) -> None:
        row = _get(getattr(self.host.db, self.entity_name), id=id)
        row.suppressed = req.context.body["suppressed"]
        resp.media = {"id": row.id, "suppressed": row.suppressed}

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        row = _get(getattr(self.host.db, self.entity_name), id=id)
        key = getattr(row, self.blob_attribute) if self.blob_attribute else None
        row.delete()
        self.host.db.flush()
        if self.blob_attribute:
            _release_blob(self.host, self.blob_attribute, key)
        resp.status = 204


class DeleteOnlyResource:
    def __init__(self, host: Any, entity_name: str):
        self.host = host
        self.entity_name = entity_name

    def on_delete(self, req: Any, resp: Any, **params: str) -> None:
        row = _get(getattr(self.host.db, self.entity_name), **params)
        row.delete()
        resp.status = 204


@hookimpl
def register_routes(host: Any) -> list[Route]:
    if not content_model_present(host.db):
        return []
    tags = ("moderation",)
    routes = [
        Route(f"/v1/content/{path}/{{id}}", ModeratedResource(host, entity, blob), {
            "PATCH": Operation(CONTENT_MODERATE, f"suppress or restore one of {path}", body=SuppressBody,
                               response=SuppressedSchema, tags=tags),
            "DELETE": Operation(CONTENT_MODERATE, f"delete one of {path} and its blob", status=204, tags=tags),
        })
        for path, (entity, blob) in MODERATED.items()
    ]
    for path, entity, summary in [
        ("calendar-events/{id}", "CalendarEvent", "delete a calendar event (its category rows cascade)"),
        ("stock-quotes/{symbol_id}", "StockQuote", "delete the latest quote of a symbol (the symbol stays)"),
        ("weather-current/{location_id}", "WeatherCurrent", "delete a cached current-weather snapshot"),
        ("weather-alerts/{location_id}/{alert_id}", "WeatherAlert", "delete one weather alert"),
    ]:
        routes.append(Route(f"/v1/content/{path}", DeleteOnlyResource(host, entity), {
            "DELETE": Operation(CONTENT_MODERATE, summary, status=204, tags=tags)}))
    return routes
