"""Screens (slides, spec 2.6): the rows, the screen type registry's REST, and nothing else.

Routes: ``GET/POST /v1/screens``, ``GET/PATCH/DELETE /v1/screens/{id}``. Reads need a
valid key, writes ``screens.write`` (each write publishes the change event ``screens``).
The slide types come from the features that own their data (``register_screen_types``:
``clock``, ``weather``, ``news`` ...); a row's ``config_json`` is checked against its type's
schema. ``host.services[SCREENS]`` lists the enabled slides; the canvas's slides layer
(:mod:`.display`, Kivy-only) draws the program from it.
"""
from __future__ import annotations

from typing import Any

from marshmallow import fields, validate
from pony import orm

from hookspecs import Feature, LayerSpec, Permission, Route, hookimpl, weights
from hookspecs.permissions import OPERATORS
from hookspecs.records import Nullable
from hookspecs.services import SCREENS
from svc_host.rest.configurable import time_zone_check
from svc_host.rest.schemas import JsonObject, StorableSchema, client_id
from svc_host.rest.typed_rows import RowKind, list_rows, row_schema, typed_routes

MS = {"size": 64}
SCREENS_WRITE = "screens.write"
PUBLISHES = ("screens",)  # the change event of every write
DWELL = validate.Range(min=1, max=3600)
WEIGHT = validate.Range(min=0, max=1000)
SORT = validate.Range(min=-1_000_000, max=1_000_000)

KIND = RowKind(
    entity="Screen",
    registry="screen_types",
    type_field="screen_type",
    what="screen",
    fields=("id", "screen_type", "name", "description", "enabled", "dwell_seconds", "frequency_weight",
            "data_key", "require_news_photo", "sort_order", "config_json", "created_at_ms", "updated_at_ms"),
    defaults={"name": "", "description": "", "enabled": True, "dwell_seconds": 10.0, "frequency_weight": 1.0,
              "data_key": None, "require_news_photo": None, "sort_order": 0},
    extra_check=time_zone_check,
)


@hookimpl
def register_entities(db: Any) -> None:
    class Screen(db.Entity):
        _table_ = "svc_screen"
        id = orm.PrimaryKey(str, 128)
        screen_type = orm.Required(str, 64)
        name = orm.Optional(str, 200, default="")
        description = orm.Optional(str, 2000, default="")
        enabled = orm.Required(bool, default=True)
        dwell_seconds = orm.Required(float, default=10.0)
        frequency_weight = orm.Required(float, default=1.0)
        data_key = orm.Optional(str, 200, nullable=True)
        require_news_photo = orm.Optional(bool, nullable=True)
        sort_order = orm.Required(int, default=0)
        config_json = orm.Optional(orm.Json, nullable=True)
        created_at_ms = orm.Required(int, **MS)
        updated_at_ms = orm.Required(int, **MS)


class ScreenService:
    """``host.services[SCREENS]``: the enabled slides, for the canvas (any thread)."""

    def __init__(self, host: Any):
        self.host = host

    def enabled(self) -> list[dict[str, Any]]:
        with orm.db_session:
            rows = list_rows(self.host.db.Screen, KIND.fields, ("sort_order", "id"))
        return [row for row in rows if row["enabled"]]


@hookimpl
def startup(host: Any) -> None:
    host.services[SCREENS] = ScreenService(host)


class _ScreenFields(StorableSchema):
    screen_type = fields.String(validate=validate.Length(min=1, max=64))
    name = fields.String(allow_none=True, validate=validate.Length(max=200))
    description = fields.String(allow_none=True, validate=validate.Length(max=2000))
    enabled = fields.Boolean()
    dwell_seconds = fields.Float(allow_nan=False, validate=DWELL)
    frequency_weight = fields.Float(allow_nan=False, validate=WEIGHT,
                                    metadata={"description": weights.DESCRIPTION})
    data_key = fields.String(allow_none=True, validate=validate.Length(max=200))
    require_news_photo = fields.Boolean(allow_none=True)
    sort_order = fields.Integer(strict=True, validate=SORT)
    config_json = JsonObject(metadata={"description": "object, or a string holding a JSON object"})


class ScreenCreate(_ScreenFields):
    id = fields.String(required=True, validate=client_id)
    screen_type = fields.String(required=True, validate=validate.Length(min=1, max=64))
    config_json = JsonObject(required=True, metadata={"description": "object, or a string holding a JSON object"})


class ScreenPatch(_ScreenFields):
    pass


ScreenSchema = row_schema(
    "ScreenSchema", id=fields.String, screen_type=fields.String, name=fields.String, description=fields.String,
    enabled=fields.Boolean, dwell_seconds=fields.Float, frequency_weight=fields.Float,
    data_key=Nullable(fields.String), require_news_photo=Nullable(fields.Boolean), sort_order=fields.Integer,
    config_json=Nullable(fields.Dict), created_at_ms=fields.Integer, updated_at_ms=fields.Integer)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return typed_routes(host, KIND, "/v1/screens", "screen", SCREENS_WRITE, create=ScreenCreate, patch=ScreenPatch,
                        response=ScreenSchema, tags=["screens"], publishes=PUBLISHES)


FEATURE = Feature(
    permissions=[Permission(SCREENS_WRITE, "create, change and delete screens", OPERATORS)],
    display_layers=[LayerSpec("slides", 100, "builtin_plugins.screens.display:SlidesLayer", area="free",
                              topics=("screens", "curator", "catalog"), surface="screen",
                              description="the slide program: dwell, weighted round-robin spread around each cycle, crossfade, navigation")],
)
