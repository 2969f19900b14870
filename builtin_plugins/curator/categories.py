"""Curator categories (spec 2.10, 4.11): the vocabulary of content categories.

A seeded set is reserved (403 ``reserved_category`` on delete); a category that calendar
events use cannot be deleted (409 ``category_in_use_calendar``), nor one that joke or
trivia interests use (409 ``category_in_use``).
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate, validates_schema
from pony import orm

from builtin_plugins.common.text import Text
from builtin_plugins.common.content import content_model_present
from builtin_plugins.common.schemas import SLUG, require_some, slug
from hookspecs import AUTHENTICATED, Migration, Operation, Route
from svc_host.http.errors import ApiError, conflict, not_found
from svc_host.permissions import CURATOR_WRITE

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


class CategoryListSchema(Schema):
    items = fields.List(fields.Nested(CategorySchema), required=True)


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
        if content_model_present(db) and (
                db.CalendarEvent.exists(category_id=id) or db.CalendarEventCategory.exists(category_id=id)):
            raise conflict(f"calendar events use category {id!r}", "category_in_use_calendar")
        if content_model_present(db) and (db.JokeCategory.exists(id=id) or db.TriviaCategory.exists(id=id)):
            raise conflict(f"joke or trivia interests use category {id!r}", "category_in_use")
        row.delete()
        resp.status = 204


def routes(host: Any) -> list[Route]:
    return [
        Route("/v1/curator/categories", CategoriesResource(host), {
            "GET": Operation(AUTHENTICATED, "list curator categories", response=CategoryListSchema),
            "POST": Operation(CURATOR_WRITE, "create a curator category", body=CategoryCreateBody,
                              response=CategorySchema, status=201),
        }),
        Route("/v1/curator/categories/{id}", CategoryResource(host), {
            "GET": Operation(AUTHENTICATED, "one curator category", response=CategorySchema),
            "PATCH": Operation(CURATOR_WRITE, "change a curator category (null clears an icon field)",
                               body=CategoryPatchBody, response=CategorySchema),
            "DELETE": Operation(CURATOR_WRITE, "delete a non-reserved, unused curator category", status=204),
        }),
    ]
