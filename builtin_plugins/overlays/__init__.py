"""Overlay schedules (spec 2.3, 4.3) and the "active now" service; the overlay types come from
the features (``register_overlay_types``: ``effects``, ``clock``, ``calendar`` ...).

Routes: ``GET/POST /v1/display/overlays``, ``PATCH/DELETE /v1/display/overlays/{id}`` (plus
``GET`` of one row). Reads need a valid key, writes ``overlays.write`` (each write publishes
the change event ``overlays``). Other plugins ask ``host.services[OVERLAYS].active(now)``
for the overlays to draw now; the canvas's overlays layer (:mod:`.display`, Kivy-only) does.
"""
from __future__ import annotations

import datetime as dt
import json
import time
from types import SimpleNamespace
from typing import Any, Mapping

from marshmallow import fields, validate
from pony import orm

from hookspecs import Feature, LayerSpec, Migration, Permission, Route, hookimpl
from hookspecs.records import Nullable
from hookspecs.permissions import OPERATORS
from svc_host.kit.rest import (JsonObject, RowKind, StorableSchema, client_id, require_type, row_schema,
                               serialize as serialize_typed_row, typed_routes, validate_config, validation_failed)
from svc_host.kit.formatting import time_zone_check
from hookspecs.services import OVERLAYS, SETTINGS, service
from svc_host.kit.services import display_zone
from builtin_plugins.overlays.schedule import WINDOW_FIELDS, is_active_on, window_problems

MS = {"size": 64}
OVERLAYS_WRITE = "overlays.write"
SEED_ID = "default_birthday_example_may_13"
GLOBAL_SWITCH_KEY = "display.overlay.enabled"
OFF_VALUES = ("false", "0", "off", "no")
PUBLISHES = ("overlays",)  # the change event of every write
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


# ---- request handling ----------------------------------------------------------------

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
    if "start_month" not in base:  # a POST (create or replace): what a window left out means
        _default_window(data, body)
    if data.get("overlay_type") is None:
        raise validation_failed({"overlay_type": ["required (or legacy overlay_kind)"]})
    registry = host.registries.overlay_types
    require_type(registry, data["overlay_type"], "overlay_type")
    problems = window_problems(data)
    if problems:
        raise validation_failed(problems, "the schedule window is invalid")
    validate_config(registry, data["overlay_type"], config, extra_check=time_zone_check)
    return data


DATE_FIELDS = ("start_month", "start_day", "end_month", "end_day", "nth_week_of_month", "nth_weekday")


def _default_window(data: dict[str, Any], body: dict[str, Any]) -> None:
    """No date at all: the whole year (every year, or ``year_exact``'s), so the first overlay a
    newcomer writes shows at once. A start without an end stays the one day the spec reads
    (birthdays, holidays), said in the schema's descriptions; the end is not filled in, or a
    later PATCH of the start alone would make the window run into the next year."""
    if all(body.get(name) is None for name in DATE_FIELDS):
        data.update(start_month=1, start_day=1, end_month=12, end_day=31)


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
                                                        "one), merged into config_json.messages",
                                         "anyOf": [{"type": "array", "items": {"type": "string"}},
                                                   {"type": "string"}, {"type": "null"}]})


class OverlayUpsert(_OverlayFields):
    id = fields.String(validate=client_id, metadata={"description": "omitted: a new id is generated"})
    start_month = fields.Integer(strict=True, validate=validate.Range(min=1, max=12),
                                 metadata={"description": "with no date field at all: the whole year (Jan 1 - Dec 31)"})
    end_month = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=12),
                               metadata={"description": "with end_day, the window's last day (inclusive); omitted with a start: "
                                                "the start day only (a one-day window)"})


class OverlayPatch(_OverlayFields):
    pass


OverlaySchema = row_schema(
    "OverlaySchema", id=fields.String, overlay_type=fields.String, label=fields.String, enabled=fields.Boolean,
    config_json=fields.Dict, repeat_annually=fields.Boolean, start_month=fields.Integer, start_day=fields.Integer,
    end_month=Nullable(fields.Integer), end_day=Nullable(fields.Integer), year_exact=Nullable(fields.Integer),
    nth_week_of_month=Nullable(fields.Integer), nth_weekday=Nullable(fields.Integer),
    created_at_ms=fields.Integer, updated_at_ms=fields.Integer)


def _clean(body: dict[str, Any]) -> dict[str, Any]:
    """None means "default" for the optional fields; ``label: null`` is the empty label."""
    data = dict(body)
    if data.get("label", "") is None:
        data["label"] = ""
    if "config_json" in data and data["config_json"] is None:
        data["config_json"] = {}
    return data


KIND = RowKind(
    entity="OverlaySchedule",
    registry="overlay_types",
    type_field="overlay_type",
    what="overlay",
    fields=FIELDS,
    defaults=DEFAULTS,
    order=("start_month", "start_day", "id"),
    upsert=True,
    resolve=lambda host, stored, body: resolve(host, stored, _clean(body)),
)


def serialize(row: Any) -> dict[str, Any]:
    return serialize_typed_row(KIND, row)


# ---- the service other plugins call ---------------------------------------------------

class OverlayService:
    """``active(now)``: the enabled overlays whose window contains today, unless switched off."""

    def __init__(self, host: Any):
        self.host = host

    def globally_enabled(self) -> bool:
        """The key-value ``display.overlay.enabled`` (the settings plugin's store): ``false``,
        ``0``, ``off`` or ``no`` (any case) switch every overlay off."""
        settings = service(self.host, SETTINGS)
        value = settings.key_value(GLOBAL_SWITCH_KEY) if settings is not None else None
        return value is None or value.strip().lower() not in OFF_VALUES

    def _today(self, now: Any) -> dt.date:
        tz = display_zone(self.host)
        if now is None:
            now = self.host.clock.now_ms()
        moment = now.astimezone(tz) if isinstance(now, dt.datetime) else dt.datetime.fromtimestamp(now / 1000, tz=tz)
        return moment.date()

    def _active_on(self, row: Any, today: dt.date) -> bool:
        created_ms = getattr(row, "created_at_ms", None)
        created_year = today.year if not isinstance(created_ms, int) else \
            dt.datetime.fromtimestamp(created_ms / 1000, tz=display_zone(self.host)).year
        try:
            return bool(row.enabled) and is_active_on(row, today, created_year)
        except (TypeError, ValueError, AttributeError, IndexError):  # a malformed row never shows
            return False

    def is_active(self, row: Mapping[str, Any], now: Any = None) -> bool:
        """The one rule, for a row given as a dict (spec 2.3 fields, as a program source or
        ``GET /v1/overlays`` gives it): enabled, the global switch on, and today (in the
        display timezone) inside its window. A row without ``created_at_ms`` counts as
        created this year. The canvas asks this; it never re-implements windows."""
        with orm.db_session:
            if not self.globally_enabled():
                return False
        values = {**DEFAULTS, "enabled": False, **{k: v for k, v in row.items() if k in FIELDS}}
        values.setdefault("start_month", None)
        values.setdefault("start_day", None)
        return self._active_on(SimpleNamespace(**values), self._today(now))

    def next_change_ms(self, now: Any = None) -> int | None:
        """When :meth:`active` may next change with the clock alone: the next midnight in the
        display timezone (windows are whole days)."""
        tz = display_zone(self.host)
        tomorrow = self._today(now) + dt.timedelta(days=1)
        return int(dt.datetime.combine(tomorrow, dt.time(), tzinfo=tz).timestamp() * 1000)

    def enabled(self) -> list[dict[str, Any]]:
        """Every enabled overlay row (whatever its window or the global switch), in id order."""
        with orm.db_session:
            return [serialize(row) for row in
                    self.host.db.OverlaySchedule.select(lambda o: o.enabled).order_by(lambda o: o.id)]

    def active(self, now: Any = None) -> list[dict[str, Any]]:
        """Serialized overlay rows active at ``now`` (epoch ms, aware datetime, or None = host clock)."""
        with orm.db_session:
            if not self.globally_enabled():
                return []
            today = self._today(now)
            return [serialize(row) for row in
                    self.host.db.OverlaySchedule.select(lambda o: o.enabled).order_by(lambda o: o.id)
                    if self._active_on(row, today)]


@hookimpl
def startup(host: Any) -> None:
    host.services[OVERLAYS] = OverlayService(host)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return typed_routes(host, KIND, "/v1/display/overlays", "overlay schedule", OVERLAYS_WRITE, create=OverlayUpsert,
                        patch=OverlayPatch, response=OverlaySchema, tags=["overlays"], publishes=PUBLISHES,
                        summaries={"list": "overlay schedules",
                                   "create": "create or replace an overlay schedule (upsert by id)",
                                   "change": "change an overlay schedule (merged with the stored row)"})


FEATURE = Feature(
    permissions=[Permission(OVERLAYS_WRITE, "create, change and delete overlays", OPERATORS)],
    migrations=[
            Migration("hearts_rain_to_shape_rain", _hearts_rain_to_shape_rain, "legacy overlay type hearts_rain"),
            Migration("seed_default_birthday_example", _seed_birthday_example,
                      "a disabled birthday_confetti example on May 13 (first start only)"),
        ],
    display_layers=[LayerSpec("overlays", 200, "builtin_plugins.overlays.display:OverlaysLayer", area="content",
                              topics=("overlays", "curator", "settings", "catalog"),
                              description="the overlays active now, over the slides")],
)
