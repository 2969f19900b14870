"""Media lookups (spec 2.12, 4.8): blobs by key, and single rows the display and clients show.

``GET /v1/media/<path>/{id}`` serves every contributed content list with a ``media`` shape
(this feature's photos and videos, and the jokes, trivia and RSS articles of others).
Rows that are missing or suppressed answer 404; blobs answer 404 when the file or its
content-type metadata is missing, or when only suppressed rows use them.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import AUTHENTICATED, Operation, Route
from hookspecs.permissions import TELEMETRY_READ
from svc_host.kit.rest import lookup_id, not_found


class BlobQuery(Schema):
    key = fields.String(required=True, validate=validate.Length(min=1, max=512))


class BlobResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        key = req.context.query["key"]
        blob = self.host.blobs.get(key)
        if blob is None or self._only_suppressed_rows_use(key):
            raise not_found("blob")
        try:
            handle = open(blob.path, "rb")
        except OSError:
            raise not_found("blob") from None
        resp.content_type = blob.content_type
        resp.set_stream(handle, blob.size)
        resp.set_header("X-Content-Type-Options", "nosniff")
        resp.set_header("Cache-Control", "private, max-age=300")

    def _only_suppressed_rows_use(self, key: str) -> bool:
        """A suppressed row's blob is hidden like the row (404), unless a row still shown uses it."""
        used = hidden = False
        for item in self.host.registries.content_lists.values():
            if item.blob_attribute is None:
                continue
            entity = getattr(self.host.db, item.entity)
            if item.suppressible:
                hidden = hidden or entity.exists(**{item.blob_attribute: key, "suppressed": True})
                used = used or entity.exists(**{item.blob_attribute: key, "suppressed": False})
            else:
                used = used or entity.exists(**{item.blob_attribute: key})
        return hidden and not used


class RowResource:
    def __init__(self, host: Any, entity_name: str, serialize: Any):
        self.host = host
        self.entity_name = entity_name
        self.serialize = serialize

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        row_id = lookup_id(id)
        row = getattr(self.host.db, self.entity_name).get(id=row_id) if row_id else None
        if row is None or getattr(row, "suppressed", False):
            raise not_found("media row")
        resp.media = self.serialize(row)


def routes(host: Any) -> list[Route]:
    tags = ("media",)
    found = [
        Route("/v1/media/blob-by-key", BlobResource(host), {
            "GET": Operation(TELEMETRY_READ, "raw blob bytes with their stored content type", query=BlobQuery,
                             response_content_type="*/*", tags=tags)}),
    ]
    for item in host.registries.content_lists.values():
        if item.media is not None:
            found.append(Route(f"/v1/media/{item.path}/{{id}}", RowResource(host, item.entity, item.media), {
                "GET": Operation(AUTHENTICATED, f"one of {item.path} (404 when missing or suppressed)",
                                 tags=tags)}))
    return found
