"""Screens (slides, spec 2.6): the rows, the screen type registry's REST, and nothing else.

Routes: ``GET/POST /v1/screens``, ``GET/PATCH/DELETE /v1/screens/{id}``. Reads need a
valid key, writes ``screens.write`` (each write publishes the change event ``screens``).
The slide types come from the features that own their data (``register_screen_types``:
``clock``, ``weather``, ``news`` ...); a row's ``config_json`` is checked against its type's
schema. ``host.services[SCREENS]`` lists the enabled slides; the canvas's slides layer
(:mod:`.display`, Kivy-only) draws the program from it; ``sync()`` is the ``sync`` of ``GET
/v1/display/screen`` (the ``sync_group`` setting, the program's :mod:`.timetable` hash and cycle).
"""
from __future__ import annotations

from typing import Any

from marshmallow import fields, validate
from pony import orm

from hookspecs import Feature, LayerSpec, Permission, Route, hookimpl
from hookspecs.permissions import OPERATORS
from hookspecs.records import Nullable
from hookspecs.services import SCREENS, SETTINGS, service
from svc_host.kit.services import curated
from builtin_plugins.screens.timetable import timetable
from svc_host.kit import weights
from svc_host.kit.rest import JsonObject, RowKind, StorableSchema, client_id, list_rows, row_schema, typed_routes
from svc_host.kit.formatting import time_zone_check

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

    def program(self) -> list[dict[str, Any]]:
        """The slides of the program: the enabled ones the curator keeps (none while it turns the
        slides off), with a weight of at least one appearance (what the slides layer cycles)."""
        rows, controls = curated(self.host, "screens", self.enabled())
        return [dict(row) for row in rows if weights.appearances(row.get("frequency_weight", 1)) > 0] \
            if controls["screens_enabled"] else []

    def sync_group(self) -> str:
        """The ``sync_group`` display setting ("" : not in a group)."""
        settings = service(self.host, SETTINGS)
        value = settings.get("sync_group") if settings is not None else ""
        return value if isinstance(value, str) else ""

    def sync(self) -> dict[str, Any]:
        """``{group, program_hash, cycle_ms}`` (docs/display.md, "Displays in step")."""
        table = timetable(self.program())
        return {"group": self.sync_group(), "program_hash": table.program_hash, "cycle_ms": table.cycle_ms}


@hookimpl
def startup(host: Any) -> None:
    host.services[SCREENS] = ScreenService(host)


class _ScreenFields(StorableSchema):
    screen_type = fields.String(validate=validate.Length(min=1, max=64))
    name = fields.String(allow_none=True, validate=validate.Length(max=200))
    description = fields.String(allow_none=True, validate=validate.Length(max=2000))
    enabled = fields.Boolean()
    # the defaults a create takes (KIND.defaults), said in the OpenAPI document so a client's
    # form starts from them
    dwell_seconds = fields.Float(allow_nan=False, validate=DWELL, metadata={"default": KIND.defaults["dwell_seconds"]})
    frequency_weight = fields.Float(allow_nan=False, validate=WEIGHT,
                                    metadata={"description": weights.DESCRIPTION,
                                              "default": KIND.defaults["frequency_weight"]})
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
                              topics=("screens", "curator", "catalog", "settings"), surface="screen",
                              description="the slide program: dwell, weighted round-robin spread around each cycle, transitions (never text on text), navigation, displays in step (sync_group)")],
)
