"""Ticker tapes (spec 2.5) and the item snapshot (spec 2.4); the ticker types come from the
features (``register_ticker_types``: ``clock``'s time, ``weather``, ``news`` ...).

Routes: ``GET/POST /v1/ticker/tapes``, ``GET/PATCH/DELETE /v1/ticker/tapes/{id}`` and
``GET /v1/ticker/items``. Reads need a valid key, writes ``ticker.write`` (each write
publishes the change event ``ticker``). The canvas's marquee layer (:mod:`.display`,
Kivy-only) draws the ticker band from ``host.services[TICKER]``.
"""
from __future__ import annotations

from typing import Any

import falcon
from marshmallow import fields, validate
from pony import orm

from hookspecs import AUTHENTICATED, Feature, LayerSpec, Operation, Permission, Route, hookimpl
from hookspecs.records import Nullable, record
from hookspecs.services import TICKER
from hookspecs.permissions import OPERATORS
from svc_host.kit import weights
from svc_host.kit.rest import JsonObject, RowKind, StorableSchema, cached_list, client_id, row_schema, typed_routes
from svc_host.kit.formatting import time_zone_check
from builtin_plugins.ticker.items import TAPE_FIELDS, TickerService, build_ticker

MS = {"size": 64}
TICKER_WRITE = "ticker.write"
PUBLISHES = ("ticker",)  # the change event of every write

KIND = RowKind(
    entity="TickerTape",
    registry="ticker_types",
    type_field="ticker_type",
    what="ticker tape",
    fields=TAPE_FIELDS,
    defaults={"name": "", "description": "", "enabled": True, "frequency_weight": 1.0, "sort_order": 0,
              "config_json": {}},
    extra_check=time_zone_check,
)


@hookimpl
def register_entities(db: Any) -> None:
    class TickerTape(db.Entity):
        _table_ = "svc_ticker_tape"
        id = orm.PrimaryKey(str, 128)
        ticker_type = orm.Required(str, 64)
        name = orm.Optional(str, 200, default="")
        description = orm.Optional(str, 2000, default="")
        enabled = orm.Required(bool, default=True)
        frequency_weight = orm.Required(float, default=1.0)
        sort_order = orm.Required(int, default=0)
        config_json = orm.Optional(orm.Json, nullable=True)
        created_at_ms = orm.Required(int, **MS)
        updated_at_ms = orm.Required(int, **MS)


@hookimpl
def startup(host: Any) -> None:
    host.services[TICKER] = TickerService(host)


class _TapeFields(StorableSchema):
    ticker_type = fields.String(validate=validate.Length(min=1, max=64))
    name = fields.String(allow_none=True, validate=validate.Length(max=200))
    description = fields.String(allow_none=True, validate=validate.Length(max=2000))
    enabled = fields.Boolean()
    frequency_weight = fields.Float(allow_nan=False, validate=validate.Range(min=0, max=1000),
                                    metadata={"description": weights.DESCRIPTION})
    sort_order = fields.Integer(strict=True, validate=validate.Range(min=-1_000_000, max=1_000_000))
    config_json = JsonObject(metadata={"description": "object, or a string holding a JSON object"})


class TapeCreate(_TapeFields):
    id = fields.String(required=True, validate=client_id)
    ticker_type = fields.String(required=True, validate=validate.Length(min=1, max=64))


class TapePatch(_TapeFields):
    pass


TapeSchema = row_schema(
    "TapeSchema", id=fields.String, ticker_type=fields.String, name=fields.String, description=fields.String,
    enabled=fields.Boolean, frequency_weight=fields.Float, sort_order=fields.Integer,
    config_json=Nullable(fields.Dict), created_at_ms=fields.Integer, updated_at_ms=fields.Integer)


TickerItemSchema = record("TickerItemSchema", ordinal=fields.Integer, kind=fields.String, body=fields.String)


TickerItems = record("TickerItems", items=fields.List(fields.Nested(TickerItemSchema)))


class TickerItemsResource:
    def __init__(self, host: Any):
        self.host = host

    def tables(self) -> list[str] | None:
        """The tables the items are built from: the tapes, the key-values (plugin marquees), the
        display settings and what every registered ticker type reads; None when a type does
        not say (then every request builds them)."""
        names = ["TickerTape", "KeyValue", "DisplaySetting"]
        for item_type in self.host.registries.ticker_types:
            if item_type.reads is None:
                return None
            names += item_type.reads
        entities = [getattr(self.host.db, name, None) for name in dict.fromkeys(names)]
        return [entity._table_ for entity in entities if entity is not None]

    def second(self, req: falcon.Request) -> int:
        """The request's instant, kept for the builders: the cache holds a body for one second."""
        req.context.ticker_now_ms = self.host.clock.now_ms()
        return req.context.ticker_now_ms // 1000

    @cached_list(tables, second)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        now_ms = getattr(req.context, "ticker_now_ms", None)
        resp.media = {"items": build_ticker(self.host, self.host.clock.now_ms() if now_ms is None else now_ms)}


@hookimpl
def register_routes(host: Any) -> list[Route]:
    tags = ["ticker"]
    return [
        *typed_routes(host, KIND, "/v1/ticker/tapes", "ticker tape", TICKER_WRITE, create=TapeCreate, patch=TapePatch,
                      response=TapeSchema, tags=tags, publishes=PUBLISHES),
        Route("/v1/ticker/items", TickerItemsResource(host), {
            "GET": Operation(AUTHENTICATED, "current ticker items (built in memory)", response=TickerItems,
                             tags=tags),
        }),
    ]


FEATURE = Feature(
    permissions=[Permission(TICKER_WRITE, "create, change and delete ticker tapes", OPERATORS)],
    display_layers=[LayerSpec("marquee", 500, "builtin_plugins.ticker.display:MarqueeLayer", area="ticker",
                              topics=("ticker", "curator", "settings"), surface="ticker",
                              description="the ticker band: every enabled tape, scrolled")],
)
