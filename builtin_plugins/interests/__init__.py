"""Interests (spec 2.9, 4.7): what the collectors fetch.

Five resources share one shape of routes: ``GET``/``POST`` on the collection, ``GET``/
``PATCH``/``DELETE`` on a row. Mutators answer ``{}``; a delete is refused with 409 while
catalog rows still reference the row. The tables live in ``content_model``.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from marshmallow import Schema, ValidationError, fields, validate, validates_schema
from pony import orm

from builtin_plugins.common.text import StorableJsonObject, Text, no_nul
from builtin_plugins.common.content import category_exists, content_model_present
from builtin_plugins.common.schemas import CLIENT_ID, client_id, require_some
from hookspecs import Operation, Route, hookimpl
from svc_host.http.errors import ApiError, conflict, not_found
from svc_host.permissions import INTERESTS_READ, INTERESTS_WRITE

MIN_POLL_SECONDS = 60
MAX_POLL_SECONDS = 7 * 24 * 3600
MAX_ARTICLES = 500
MAX_POOL = 1000
SYMBOL = validate.Regexp(r"^[A-Za-z0-9.^=\-]{1,32}$", error="must be 1-32 characters of letters, digits, '.', '^', '=' or '-'")
NAME = validate.Length(min=1, max=200)
CATEGORY = validate.Length(min=1, max=64)


class ListQuery(Schema):
    """Optional paging: without ``limit`` the whole list is returned."""

    limit = fields.Integer(validate=validate.Range(min=1, max=100))
    offset = fields.Integer(validate=validate.Range(min=0, max=10_000_000))


class EmptySchema(Schema):
    pass


# ---- schemas per resource ---------------------------------------------------------------

class WeatherLocationBody(Schema):
    id = Text(validate=client_id)
    name = Text(required=True, validate=NAME)
    latitude = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-180, max=180))
    enabled = fields.Boolean()
    include_active_weather_alerts = fields.Boolean()


class WeatherLocationPatch(WeatherLocationBody):
    class Meta:
        exclude = ("id",)

    name = Text(validate=NAME)
    latitude = fields.Float(allow_nan=False, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(allow_nan=False, validate=validate.Range(min=-180, max=180))


class RssFeedBody(Schema):
    id = Text(validate=client_id)
    url = fields.Url(required=True, schemes={"http", "https"}, require_tld=False,
                     validate=[validate.Length(max=2048), no_nul])
    title = Text(allow_none=True, validate=validate.Length(max=500))
    category = Text(validate=CATEGORY)
    poll_seconds = fields.Integer(validate=validate.Range(min=MIN_POLL_SECONDS, max=MAX_POLL_SECONDS))
    max_articles = fields.Integer(validate=validate.Range(min=1, max=MAX_ARTICLES))
    enabled = fields.Boolean()


class RssFeedPatch(RssFeedBody):
    class Meta:
        exclude = ("id",)

    url = fields.Url(schemes={"http", "https"}, require_tld=False, validate=[validate.Length(max=2048), no_nul])


class StockSymbolBody(Schema):
    id = Text(validate=client_id)
    symbol = Text(required=True, validate=SYMBOL)
    display_name = Text(validate=validate.Length(max=200))
    category = Text(validate=CATEGORY)
    enabled = fields.Boolean()


class StockSymbolPatch(StockSymbolBody):
    class Meta:
        exclude = ("id",)

    symbol = Text(validate=SYMBOL)


class JokeCategoryBody(Schema):
    id = Text(required=True, validate=validate.Length(min=1, max=64))
    enabled = fields.Boolean()
    pool_size = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))
    config_json = StorableJsonObject(allow_none=True)


class JokeCategoryPatch(JokeCategoryBody):
    class Meta:
        exclude = ("id",)


class TriviaCategoryBody(JokeCategoryBody):
    min_questions = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))
    max_questions = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))


class TriviaCategoryPatch(TriviaCategoryBody):
    class Meta:
        exclude = ("id",)


def _non_empty_patch(schema_cls: type) -> type:
    """A PATCH schema that also rejects an empty body."""

    def _some(self: Schema, data: dict, **kwargs: Any) -> None:
        require_some(data, list(self.fields))

    return type(schema_cls.__name__, (schema_cls,), {"_some": validates_schema(_some)})


# ---- serializers ------------------------------------------------------------------------

def weather_location_json(row: Any) -> dict:
    return {"id": row.id, "name": row.name, "latitude": row.latitude, "longitude": row.longitude,
            "enabled": row.enabled, "include_active_weather_alerts": row.include_active_weather_alerts}


def rss_feed_json(row: Any) -> dict:
    return {"id": row.id, "url": row.url, "title": row.title or None, "category": row.category,
            "poll_seconds": row.poll_seconds, "max_articles": row.max_articles, "enabled": row.enabled,
            "last_fetched_at": row.last_fetched_at, "consecutive_failures": row.consecutive_failures,
            "next_retry_at": row.next_retry_at}


def stock_symbol_json(row: Any) -> dict:
    return {"id": row.id, "symbol": row.symbol, "display_name": row.display_name, "category": row.category,
            "enabled": row.enabled}


def joke_category_json(row: Any) -> dict:
    return {"id": row.id, "enabled": row.enabled, "pool_size": row.pool_size, "config_json": row.config_json}


def trivia_category_json(row: Any) -> dict:
    return {**joke_category_json(row), "min_questions": row.min_questions, "max_questions": row.max_questions}


# ---- checks -----------------------------------------------------------------------------

def _check_category(db: Any, data: dict, name: str) -> None:
    if name in data and not category_exists(db, data[name]):
        raise ApiError(400, "validation_failed", "unknown content category",
                       {name: [f"{data[name]!r} is not a curator category"]})


def _check_id_is_category(db: Any, data: dict, row: Any) -> None:
    _check_category(db, data, "id")


def _check_trivia_bounds(db: Any, data: dict, row: Any) -> None:
    low = data.get("min_questions", row.min_questions if row is not None else 10)
    high = data.get("max_questions", row.max_questions if row is not None else 50)
    if low > high:
        raise ApiError(400, "validation_failed", "min_questions exceeds max_questions",
                       {"min_questions": ["must not exceed max_questions"]})


def _check_feed(db: Any, data: dict, row: Any) -> None:
    _check_category(db, data, "category")


def _check_stock(db: Any, data: dict, row: Any) -> None:
    _check_category(db, data, "category")
    if "symbol" in data:
        data["symbol"] = data["symbol"].upper()


@dataclass(frozen=True)
class Kind:
    path: str
    entity: str
    label: str
    serialize: Callable[[Any], dict]
    create: type
    patch: type
    referenced: Callable[[Any, str], bool]
    reference_message: str
    check: Callable[[Any, dict, Any], None] = lambda db, data, row: None
    server_ids: bool = True
    extra: dict = field(default_factory=dict)


KINDS = [
    Kind("weather-locations", "WeatherLocation", "weather location", weather_location_json,
         WeatherLocationBody, WeatherLocationPatch,
         lambda db, i: db.WeatherCurrent.exists(location_id=i) or db.WeatherAlert.exists(location_id=i),
         "current-weather or weather-alert rows reference this location"),
    Kind("rss-feeds", "RssFeed", "RSS feed", rss_feed_json, RssFeedBody, RssFeedPatch,
         lambda db, i: db.RssArticle.exists(feed_id=i), "RSS articles exist for this feed", _check_feed),
    Kind("stock-symbols", "StockSymbol", "stock symbol", stock_symbol_json, StockSymbolBody, StockSymbolPatch,
         lambda db, i: db.StockQuote.exists(symbol_id=i), "stock quotes exist for this symbol", _check_stock),
    Kind("joke-categories", "JokeCategory", "joke category", joke_category_json, JokeCategoryBody,
         JokeCategoryPatch, lambda db, i: db.Joke.exists(category_id=i), "jokes reference this category",
         _check_id_is_category, server_ids=False),
    Kind("trivia-categories", "TriviaCategory", "trivia category", trivia_category_json, TriviaCategoryBody,
         TriviaCategoryPatch, lambda db, i: db.TriviaQuestion.exists(category_id=i),
         "trivia questions reference this category",
         lambda db, data, row: (_check_id_is_category(db, data, row), _check_trivia_bounds(db, data, row)),
         server_ids=False),
]


class CollectionResource:
    def __init__(self, host: Any, kind: Kind):
        self.host = host
        self.kind = kind

    def on_get(self, req: Any, resp: Any) -> None:
        entity = getattr(self.host.db, self.kind.entity)
        query = entity.select().order_by(lambda r: r.id)
        paging = req.context.query
        if "limit" not in paging and "offset" not in paging:
            resp.media = {"items": [self.kind.serialize(r) for r in query]}
            return
        limit, offset = paging.get("limit", 25), paging.get("offset", 0)
        resp.media = {"items": [self.kind.serialize(r) for r in query.limit(limit, offset=offset)],
                      "total": query.count(), "limit": limit, "offset": offset}

    def on_post(self, req: Any, resp: Any) -> None:
        db = self.host.db
        entity = getattr(db, self.kind.entity)
        data = dict(req.context.body)
        self.kind.check(db, data, None)
        data.setdefault("id", uuid.uuid4().hex)
        if entity.get(id=data["id"]) is not None:
            raise conflict(f"{self.kind.label} {data['id']!r} already exists")
        entity(**data)
        resp.status = 201
        resp.media = {}


class ItemResource:
    def __init__(self, host: Any, kind: Kind):
        self.host = host
        self.kind = kind

    def _row(self, row_id: str) -> Any:
        entity = getattr(self.host.db, self.kind.entity)
        row = entity.get(id=row_id) if CLIENT_ID.match(row_id) else None
        if row is None:
            raise not_found(self.kind.label)
        return row

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        resp.media = self.kind.serialize(self._row(id))

    def on_patch(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        data = dict(req.context.body)
        self.kind.check(self.host.db, data, row)
        row.set(**data)
        resp.media = {}

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        if self.kind.referenced(self.host.db, row.id):
            raise conflict(f"{self.kind.label} {id!r} is in use: {self.kind.reference_message}")
        row.delete()
        resp.media = {}


def _routes(host: Any, kind: Kind) -> list[Route]:
    base = f"/v1/interests/{kind.path}"
    tags = ("interests",)
    return [
        Route(base, CollectionResource(host, kind), {
            "GET": Operation(INTERESTS_READ, f"list {kind.label}s", query=ListQuery, tags=tags),
            "POST": Operation(INTERESTS_WRITE, f"add a {kind.label}", body=kind.create, response=EmptySchema,
                              status=201, tags=tags),
        }),
        Route(base + "/{id}", ItemResource(host, kind), {
            "GET": Operation(INTERESTS_READ, f"one {kind.label}", tags=tags),
            "PATCH": Operation(INTERESTS_WRITE, f"change a {kind.label}", body=_non_empty_patch(kind.patch),
                               response=EmptySchema, tags=tags),
            "DELETE": Operation(INTERESTS_WRITE, f"delete an unreferenced {kind.label}", response=EmptySchema,
                                tags=tags),
        }),
    ]


@hookimpl
def register_routes(host: Any) -> list[Route]:
    if not content_model_present(host.db):
        return []
    return [route for kind in KINDS for route in _routes(host, kind)]
