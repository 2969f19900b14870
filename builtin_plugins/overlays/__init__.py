"""Overlay schedules (spec 2.3, 4.3), the 18 builtin overlay types and the "active now" service.

Routes: ``GET/POST /v1/display/overlays``, ``PATCH/DELETE /v1/display/overlays/{id}`` (plus
``GET`` of one row). Reads need a valid key, writes ``overlays.write``. Other plugins ask
``host.services["overlays"].active(now)`` for the overlays to draw now.
"""
from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from typing import Any

import falcon
from marshmallow import Schema, fields, validate
from pony import orm

from builtin_plugins.common.lazy_renderer import with_renderers
from hookspecs import AUTHENTICATED, Migration, Operation, Route, hookimpl
from builtin_plugins.common.configurable import (
    EmptySchema,
    IncludeSchemaQuery,
    require_type,
    row_id,
    time_zone_check,
    validate_config,
)
from builtin_plugins.common.runtime import display_zone, key_value
from builtin_plugins.common.schemas import JsonObject, StorableSchema, client_id
from builtin_plugins.overlays.schedule import WINDOW_FIELDS, is_active_on, window_problems
from builtin_plugins.overlays.types import TYPES
from svc_host.http.errors import ApiError, not_found, validation_failed
from svc_host.permissions import OVERLAYS_WRITE

MS = {"size": 64}
SEED_ID = "default_birthday_example_may_13"
GLOBAL_SWITCH_KEY = "display.overlay.enabled"
OFF_VALUES = ("false", "0", "off", "no")
LEGACY_TYPES = {"hearts_rain": "shape_rain"}
FIELDS = ("id", "overlay_type", "label", "enabled", "config_json", *WINDOW_FIELDS, "created_at_ms", "updated_at_ms")
DEFAULTS: dict[str, Any] = {"label": "", "enabled": True, "config_json": {}, "repeat_annually": True,
                            "end_month": None, "end_day": None, "year_exact": None, "nth_week_of_month": None,
                            "nth_weekday": None}


@hookimpl
def register_entities(db: Any) -> None:
    class OverlaySchedule(db.Entity):
        _table_ = "svc_overlay_schedule"
        id = orm.PrimaryKey(str, 128)
        overlay_type = orm.Required(str, 64)
        label = orm.Optional(str, 200, default="")
        enabled = orm.Required(bool, default=True)
        config_json = orm.Optional(orm.Json, nullable=True)
        repeat_annually = orm.Required(bool, default=True)
        start_month = orm.Required(int)
        start_day = orm.Required(int)
        end_month = orm.Optional(int, nullable=True)
        end_day = orm.Optional(int, nullable=True)
        year_exact = orm.Optional(int, nullable=True)
        nth_week_of_month = orm.Optional(int, nullable=True)
        nth_weekday = orm.Optional(int, nullable=True)
        created_at_ms = orm.Required(int, **MS)
        updated_at_ms = orm.Required(int, **MS)


@hookimpl
def register_overlay_types() -> list:
    return with_renderers("overlay", TYPES)


def _seed_birthday_example(db: Any) -> None:
    if db.OverlaySchedule.get(id=SEED_ID) is None:
        now = int(time.time() * 1000)
        db.OverlaySchedule(id=SEED_ID, overlay_type="birthday_confetti", label="Birthday example (May 13)",
                           enabled=False, repeat_annually=True, start_month=5, start_day=13,
                           config_json={"messages": ["Happy birthday!"], "shapes": ["mix"]},
                           created_at_ms=now, updated_at_ms=now)


def _hearts_rain_to_shape_rain(db: Any) -> None:
    for row in db.OverlaySchedule.select(lambda o: o.overlay_type == "hearts_rain"):
        row.overlay_type = "shape_rain"
        config = dict(row.config_json or {})
        config.setdefault("shapes", ["heart"])
        row.config_json = config


@hookimpl
def register_migrations() -> list[Migration]:
    return [
        Migration("hearts_rain_to_shape_rain", _hearts_rain_to_shape_rain, "legacy overlay type hearts_rain"),
        Migration("seed_default_birthday_example", _seed_birthday_example,
                  "a disabled birthday_confetti example on May 13 (first start only)"),
    ]


# ---- request handling ----------------------------------------------------------------

def serialize(row: Any, schema: dict | None = None) -> dict[str, Any]:
    data = {name: getattr(row, name) for name in FIELDS}
    data["config_json"] = data["config_json"] or {}
    if schema is not None:
        data["config_json_schema"] = schema
    return data


def _legacy_messages(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise validation_failed({"messages_json": ["must be a JSON array of strings"]}) from None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise validation_failed({"messages_json": ["must be a JSON array of strings"]})
    return value


def resolve(host: Any, base: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """Merge ``body`` over ``base``, map legacy input, validate type, window and config."""
    body = dict(body)
    kind = body.pop("overlay_kind", None)
    messages = body.pop("messages_json", None)
    data = {**base, **body}
    if "overlay_type" not in body and kind is not None:
        data["overlay_type"] = kind
    config = dict(data.get("config_json") or {})
    if data.get("overlay_type") in LEGACY_TYPES:
        data["overlay_type"] = LEGACY_TYPES[data["overlay_type"]]
        config.setdefault("shapes", ["heart"])
    if messages is not None:
        merged = list(config.get("messages") or [])
        merged += [m for m in _legacy_messages(messages) if m not in merged]
        config["messages"] = merged
    data["config_json"] = config
    if data.get("overlay_type") is None:
        raise validation_failed({"overlay_type": ["required (or legacy overlay_kind)"]})
    registry = host.registries.overlay_types
    require_type(registry, data["overlay_type"], "overlay_type")
    problems = window_problems(data)
    if problems:
        raise validation_failed(problems, "the schedule window is invalid")
    validate_config(registry, data["overlay_type"], config, extra_check=time_zone_check)
    return data


def _schema_of(host: Any, overlay_type: str) -> dict:
    item = host.registries.overlay_types.get(overlay_type)
    return dict(item.config_schema) if item is not None else {}


class _OverlayFields(StorableSchema):
    overlay_type = fields.String(validate=validate.Length(min=1, max=64))
    label = fields.String(allow_none=True, validate=validate.Length(max=200))
    enabled = fields.Boolean()
    config_json = JsonObject(allow_none=True, metadata={"description": "object, or a string holding one"})
    repeat_annually = fields.Boolean()
    start_month = fields.Integer(strict=True, validate=validate.Range(min=1, max=12))
    start_day = fields.Integer(strict=True, validate=validate.Range(min=1, max=31))
    end_month = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=12))
    end_day = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=31))
    year_exact = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1970, max=9999))
    nth_week_of_month = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=5),
                                       metadata={"description": "1-4, or 5 for the last"})
    nth_weekday = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=7),
                                 metadata={"description": "ISO weekday: 1 = Monday ... 7 = Sunday"})
    overlay_kind = fields.String(validate=validate.Length(min=1, max=64),
                                 metadata={"description": "legacy: mapped into overlay_type"})
    messages_json = fields.Raw(metadata={"description": "legacy: JSON array of strings (or a string holding "
                                                        "one), merged into config_json.messages"})


class OverlayUpsert(_OverlayFields):
    id = fields.String(validate=client_id, metadata={"description": "omitted: a new id is generated"})
    start_month = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=12))
    start_day = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=31))


class OverlayPatch(_OverlayFields):
    pass


class OverlaySchema(Schema):
    id = fields.String(required=True)
    overlay_type = fields.String(required=True)
    label = fields.String(required=True)
    enabled = fields.Boolean(required=True)
    config_json = fields.Dict(required=True)
    repeat_annually = fields.Boolean(required=True)
    start_month = fields.Integer(required=True)
    start_day = fields.Integer(required=True)
    end_month = fields.Integer(required=True, allow_none=True)
    end_day = fields.Integer(required=True, allow_none=True)
    year_exact = fields.Integer(required=True, allow_none=True)
    nth_week_of_month = fields.Integer(required=True, allow_none=True)
    nth_weekday = fields.Integer(required=True, allow_none=True)
    created_at_ms = fields.Integer(required=True)
    updated_at_ms = fields.Integer(required=True)
    config_json_schema = fields.Dict(metadata={"description": "only with include_config_schema=true"})


class OverlayList(Schema):
    items = fields.List(fields.Nested(OverlaySchema), required=True)


def _clean(body: dict[str, Any]) -> dict[str, Any]:
    """None means "default" for the optional fields; ``label: null`` is the empty label."""
    data = dict(body)
    if data.get("label", "") is None:
        data["label"] = ""
    if "config_json" in data and data["config_json"] is None:
        data["config_json"] = {}
    return data


class OverlayCollection:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        include = req.context.query.get("include_config_schema", False)
        rows = self.host.db.OverlaySchedule.select().order_by(lambda o: (o.start_month, o.start_day, o.id))
        resp.media = {"items": [serialize(r, _schema_of(self.host, r.overlay_type) if include else None)
                                for r in rows]}

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = _clean(req.context.body)
        overlay_id = body.pop("id", None) or uuid.uuid4().hex
        entity = self.host.db.OverlaySchedule
        data = resolve(self.host, dict(DEFAULTS), body)
        now = self.host.clock.now_ms()
        row = entity.get(id=overlay_id)
        if row is None:
            row = entity(id=overlay_id, created_at_ms=now, updated_at_ms=now,
                         **{k: v for k, v in data.items() if k in FIELDS})
        else:
            row.set(updated_at_ms=now, **{k: v for k, v in data.items() if k in FIELDS})
        resp.media = serialize(row)


class OverlayItem:
    def __init__(self, host: Any):
        self.host = host

    def _row(self, id: str) -> Any:
        row = self.host.db.OverlaySchedule.get(id=row_id(id, "overlay"))
        if row is None:
            raise not_found("overlay")
        return row

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        row = self._row(id)
        include = req.context.query.get("include_config_schema", False)
        resp.media = serialize(row, _schema_of(self.host, row.overlay_type) if include else None)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        row = self._row(id)
        body = _clean(req.context.body)
        if not body:
            raise ApiError(400, "validation_failed", "send at least one field to change", {"_schema": ["empty"]})
        current = {name: getattr(row, name) for name in FIELDS if name not in ("id", "created_at_ms")}
        data = resolve(self.host, current, body)
        row.set(**{k: v for k, v in data.items() if k in FIELDS and k not in ("id", "created_at_ms")})
        row.updated_at_ms = self.host.clock.now_ms()
        resp.media = serialize(row)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        self._row(id).delete()
        resp.media = {}


# ---- the service other plugins call ---------------------------------------------------

class OverlayService:
    """``active(now)``: the enabled overlays whose window contains today, unless switched off."""

    def __init__(self, host: Any):
        self.host = host

    def globally_enabled(self) -> bool:
        with orm.db_session:
            value = key_value(self.host, GLOBAL_SWITCH_KEY)
        return value is None or value.strip().lower() not in OFF_VALUES

    def active(self, now: Any = None) -> list[dict[str, Any]]:
        """Serialized overlay rows active at ``now`` (epoch ms, aware datetime, or None = host clock)."""
        with orm.db_session:
            if not self.globally_enabled():
                return []
            tz = display_zone(self.host)
            if now is None:
                now = self.host.clock.now_ms()
            moment = now.astimezone(tz) if isinstance(now, dt.datetime) else \
                dt.datetime.fromtimestamp(now / 1000, tz=tz)
            today = moment.date()
            active = []
            for row in self.host.db.OverlaySchedule.select(lambda o: o.enabled).order_by(lambda o: o.id):
                created_year = dt.datetime.fromtimestamp(row.created_at_ms / 1000, tz=tz).year
                if is_active_on(row, today, created_year):
                    active.append(serialize(row))
            return active


@hookimpl
def startup(host: Any) -> None:
    host.services["overlays"] = OverlayService(host)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    tags = ["overlays"]
    return [
        Route("/v1/display/overlays", OverlayCollection(host), {
            "GET": Operation(AUTHENTICATED, "overlay schedules", query=IncludeSchemaQuery, response=OverlayList,
                             tags=tags),
            "POST": Operation(OVERLAYS_WRITE, "create or replace an overlay schedule (upsert by id)",
                              body=OverlayUpsert, response=OverlaySchema, tags=tags),
        }),
        Route("/v1/display/overlays/{id}", OverlayItem(host), {
            "GET": Operation(AUTHENTICATED, "one overlay schedule", query=IncludeSchemaQuery,
                             response=OverlaySchema, tags=tags),
            "PATCH": Operation(OVERLAYS_WRITE, "change an overlay schedule (merged with the stored row)",
                               body=OverlayPatch, response=OverlaySchema, tags=tags),
            "DELETE": Operation(OVERLAYS_WRITE, "delete an overlay schedule", response=EmptySchema, tags=tags),
        }),
    ]
