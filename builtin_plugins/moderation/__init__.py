"""Content moderation (spec 4.4, needs ``content.moderate``), over the contributed content lists.

On a ``suppressible`` list (jokes, trivia, RSS articles, photos, videos) ``PATCH
{suppressed}`` hides a row from every reader that is not a moderator (catalog, media,
slides, ticker) and restores it; ``DELETE`` removes the row and, when no row of any list
still uses it, its blob. A ``deletable`` list's rows (calendar events, latest stock
quotes, current-weather snapshots, weather alerts) can be deleted by their primary key.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

from hookspecs import ContentList, Feature, Operation, Route, hookimpl
from svc_host.kit.services import release_blob
from svc_host.kit.rest import lookup_id, not_found
from hookspecs.permissions import CONTENT_MODERATE, declare
from hookspecs.records import record


class SuppressBody(Schema):
    suppressed = fields.Boolean(required=True)


SuppressedSchema = record("SuppressedSchema", id=fields.String, suppressed=fields.Boolean)


def _get(entity: Any, **key: str) -> Any:
    """The row whose primary-key attributes equal the path parameters of the same names."""
    ids = {name: lookup_id(value) for name, value in key.items()}
    row = entity.get(**ids) if all(ids.values()) else None
    if row is None:
        raise not_found("content row")
    return row


class ModeratedResource:
    """One row of a content list, addressed by its primary key (the path parameters)."""

    def __init__(self, host: Any, item: ContentList):
        self.host = host
        self.item = item

    def _row(self, key: dict[str, str]) -> Any:
        return _get(getattr(self.host.db, self.item.entity), **key)

    def on_patch(self, req: Any, resp: Any, **key: str) -> None:
        row = self._row(key)
        row.suppressed = req.context.body["suppressed"]
        resp.media = {"id": row.id, "suppressed": row.suppressed}

    def on_delete(self, req: Any, resp: Any, **key: str) -> None:
        row = self._row(key)
        blob = getattr(row, self.item.blob_attribute) if self.item.blob_attribute else None
        row.delete()
        # Committed before the blob goes: a backup snapshot taken in between never holds a row
        # whose blob is missing (an orphan blob, if the unlink fails, is harmless).
        self.host.db.commit()
        release_blob(self.host, blob)
        resp.status = 204


@hookimpl
def register_routes(host: Any) -> list[Route]:
    tags = ("moderation",)
    routes = []
    for item in host.registries.content_lists.values():
        if not (item.suppressible or item.deletable):
            continue
        key = "/".join(f"{{{attribute.name}}}" for attribute in getattr(host.db, item.entity)._pk_attrs_)
        operations = {}
        if item.suppressible:
            operations["PATCH"] = Operation(CONTENT_MODERATE, f"suppress or restore one of {item.path}",
                                            body=SuppressBody, response=SuppressedSchema, tags=tags,
                                            publishes=("catalog",))
        summary = item.delete_summary or f"delete one of {item.path} and its blob"
        operations["DELETE"] = Operation(CONTENT_MODERATE, summary, status=204, tags=tags,
                                         publishes=("catalog",))
        routes.append(Route(f"/v1/content/{item.path}/{key}", ModeratedResource(host, item), operations))
    return routes


FEATURE = Feature(
    permissions=declare(CONTENT_MODERATE),
)
