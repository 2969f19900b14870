"""Curator categories (spec 2.10, 4.11): the vocabulary of content categories.

A seeded set is reserved (403 ``reserved_category`` on delete); a category that a content
list guards cannot be deleted while its rows use it (the 409 code is the list's
``category_guard``: ``category_in_use_calendar`` for calendar events, ``category_in_use``
for joke and trivia interests). ``host.services[CATEGORIES]`` tells other plugins whether
a category exists.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate, validates_schema
from pony import orm

from svc_host.kit.rest import SLUG, ApiError, Text, conflict, lookup_id, not_found, require_some, slug
from hookspecs import AUTHENTICATED, Migration, Operation, Route
from hookspecs.permissions import CURATOR_WRITE
from hookspecs.records import record

# id -> (label, material icon name); seeded once and reserved.
SEEDED_CATEGORIES: dict[str, tuple[str, str]] = {
    "general": ("General", "category"),
    "news": ("News", "newspaper"),
    "jokes": ("Jokes", "sentiment_very_satisfied"),
    "trivia": ("Trivia", "quiz"),
    "photos": ("Photos", "photo_library"),
    "videos": ("Videos", "video_library"),
    "weather": ("Weather", "partly_cloudy_day"),
    "calendar": ("Calendar", "calendar_month"),
    "stocks": ("Stocks", "monitoring"),
    "tasks": ("Tasks", "checklist"),
    "alerts": ("Alerts", "notifications"),
    "quotes": ("Quotes", "format_quote"),
}

LABEL = validate.Length(min=1, max=200)
PUBLISHES = ("curator",)  # the change event of every write
ICON = validate.Length(min=1, max=100)
BLOB_KEY = validate.Length(min=1, max=512)


def define_entities(db: Any) -> None:
    class CuratorCategory(db.Entity):
        _table_ = "svc_curator_category"
        id = orm.PrimaryKey(str, 64)
        label = orm.Required(str, 200)
        material_icon_name = orm.Optional(str, 100, nullable=True)
        icon_blob_key = orm.Optional(str, 512, nullable=True)
        reserved = orm.Required(bool, default=False)


def seed_categories(db: Any) -> None:
    for category_id, (label, icon) in SEEDED_CATEGORIES.items():
        row = db.CuratorCategory.get(id=category_id)
        if row is None:
            db.CuratorCategory(id=category_id, label=label, material_icon_name=icon, reserved=True)
        else:
            row.reserved = True


MIGRATIONS = [Migration("seed_categories", seed_categories, "the reserved default curator categories")]


def _label(value: str) -> str:
    value = value.strip()
    if not value:
        raise ApiError(400, "validation_failed", "invalid label", {"label": ["must not be blank"]})
    return value


class CategorySchema(Schema):
    id = Text(required=True)
    label = Text(required=True)
    material_icon_name = Text(allow_none=True)
    icon_blob_key = Text(allow_none=True)
    reserved = fields.Boolean(required=True)


CategoryListSchema = record("CategoryListSchema", items=fields.List(fields.Nested(CategorySchema)))


class CategoryCreateBody(Schema):
    id = Text(required=True, validate=slug)
    label = Text(required=True, validate=LABEL)
    material_icon_name = Text(allow_none=True, validate=ICON)
    icon_blob_key = Text(allow_none=True, validate=BLOB_KEY)


class CategoryPatchBody(Schema):
    label = Text(validate=LABEL)
    material_icon_name = Text(allow_none=True, validate=ICON)
    icon_blob_key = Text(allow_none=True, validate=BLOB_KEY)

    @validates_schema
    def _some(self, data: dict, **kwargs: Any) -> None:
        require_some(data, ["label", "material_icon_name", "icon_blob_key"])


def category_json(row: Any) -> dict:
    return {"id": row.id, "label": row.label, "material_icon_name": row.material_icon_name or None,
            "icon_blob_key": row.icon_blob_key or None, "reserved": row.reserved}


def _uses(db: Any, item: Any, category_id: str) -> bool:
    """Whether a row of the content list ``item`` uses ``category_id`` (its column or its links)."""
    if getattr(db, item.entity).exists(**{item.category_attribute: category_id}):
        return True
    if item.category_links:
        entity, _, category_attribute = item.category_links
        return getattr(db, entity).exists(**{category_attribute: category_id})
    return False


class Categories:
    """``host.services[CATEGORIES]``: whether a content category exists, and its label (inside a
    ``db_session``)."""

    def __init__(self, db: Any):
        self.db = db

    def exists(self, category_id: str) -> bool:
        category_id = lookup_id(category_id)  # a blank or space-padded id names none
        return category_id is not None and self.db.CuratorCategory.get(id=category_id) is not None

    def label(self, category_id: str) -> str | None:
        category_id = lookup_id(category_id)
        row = self.db.CuratorCategory.get(id=category_id) if category_id is not None else None
        return row.label if row is not None and row.label else None


class CategoriesResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        rows = self.host.db.CuratorCategory.select().order_by(lambda c: c.id)
        resp.media = {"items": [category_json(r) for r in rows]}

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        db = self.host.db
        if db.CuratorCategory.get(id=body["id"]) is not None:
            raise conflict(f"category {body['id']!r} already exists")
        row = db.CuratorCategory(id=body["id"], label=_label(body["label"]),
                                 material_icon_name=body.get("material_icon_name"),
                                 icon_blob_key=body.get("icon_blob_key"), reserved=False)
        resp.status = 201
        resp.media = category_json(row)


class CategoryResource:
    def __init__(self, host: Any):
        self.host = host

    def _row(self, category_id: str) -> Any:
        row = self.host.db.CuratorCategory.get(id=category_id) if SLUG.match(category_id) else None
        if row is None:
            raise not_found("category")
        return row

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        resp.media = category_json(self._row(id))

    def on_patch(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        body = req.context.body
        if "label" in body:
            row.label = _label(body["label"])
        for name in ("material_icon_name", "icon_blob_key"):
            if name in body:
                setattr(row, name, body[name])
        resp.media = category_json(row)

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        db = self.host.db
        if row.reserved:
            raise ApiError(403, "reserved_category", f"category {id!r} is a reserved default")
        for item in self.host.registries.content_lists.values():
            if item.category_guard and _uses(db, item, id):
                raise conflict(f"{item.label or item.path} use category {id!r}", item.category_guard)
        row.delete()
        resp.status = 204


def routes(host: Any) -> list[Route]:
    return [
        Route("/v1/curator/categories", CategoriesResource(host), {
            "GET": Operation(AUTHENTICATED, "list curator categories", response=CategoryListSchema),
            "POST": Operation(CURATOR_WRITE, "create a curator category", body=CategoryCreateBody,
                              response=CategorySchema, status=201, publishes=PUBLISHES),
        }),
        Route("/v1/curator/categories/{id}", CategoryResource(host), {
            "GET": Operation(AUTHENTICATED, "one curator category", response=CategorySchema),
            "PATCH": Operation(CURATOR_WRITE, "change a curator category (null clears an icon field)",
                               body=CategoryPatchBody, response=CategorySchema, publishes=PUBLISHES),
            "DELETE": Operation(CURATOR_WRITE, "delete a non-reserved, unused curator category", status=204,
                                publishes=PUBLISHES),
        }),
    ]
