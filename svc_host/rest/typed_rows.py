"""Collection and item resources for typed rows (screens, ticker tapes, overlay schedules).

The resources share the rules of spec 2.3/2.5/2.6 and CONTRACT: POST creates with the
client's id (409 when taken) or, for an ``upsert`` kind, replaces the row with that id (an
omitted id becomes a uuid hex); the type must be registered (400); ``config_json`` is
validated against the type's schema whenever the type or the config changes; PATCH is
partial (an empty one is 400); DELETE answers 404 for a missing row; list routes add
``config_json_schema`` per row with ``include_config_schema=true``. A kind with its own
``resolve(host, stored, body)`` (overlays: legacy fields, schedule windows) builds and
checks the values itself, from the defaults on POST and from the stored row on PATCH.
:func:`typed_routes` declares a kind's two routes, :func:`row_schema` its response record.
"""
from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import falcon
import orjson
from marshmallow import Schema, fields

from hookspecs import AUTHENTICATED, Operation, Route
from hookspecs.records import FieldSpec, Omittable, record
from svc_host.storage import select_rows
from svc_host.rest.listcache import cached_list
from svc_host.rest.configurable import EmptySchema, IncludeSchemaQuery, require_type, stored_row, validate_config
from svc_host.http.errors import ApiError, conflict


@dataclass(frozen=True)
class RowKind:
    entity: str            # entity name on host.db
    registry: str          # attribute of host.registries
    type_field: str        # "screen_type" / "ticker_type"
    what: str              # "screen" / "ticker tape", for messages
    fields: Sequence[str]  # serialized attributes, in order
    defaults: dict[str, Any]
    # (type_id, config) -> [(pointer, message)] for rules beyond the JSON Schema.
    extra_check: Callable[[str, Any], list[tuple[str, str]]] | None = None
    order: Sequence[str] = ("sort_order", "id")  # of the list
    upsert: bool = False  # POST replaces the row with the same id (200) instead of 409
    # (host, stored values, body) -> the values to store, validated (400 otherwise); replaces
    # the type and config check of the other kinds.
    resolve: Callable[[Any, dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None


def _with_defaults(kind: RowKind, data: dict[str, Any]) -> dict[str, Any]:
    """A missing ``config_json`` reads as the kind's default (``{}`` for tapes and overlays)."""
    if data.get("config_json") is None and kind.defaults.get("config_json") is not None:
        data["config_json"] = kind.defaults["config_json"]
    return data


def serialize(kind: RowKind, row: Any, schema: Any = None) -> dict[str, Any]:
    data = _with_defaults(kind, {name: getattr(row, name) for name in kind.fields})
    if schema is not None:
        data["config_json_schema"] = schema
    return data


def list_rows(entity: Any, names: Sequence[str], order_by: Sequence[str]) -> list[dict[str, Any]]:
    """Every row of ``entity`` as plain dicts, read with one SQL statement, no entity objects.

    List routes are the hottest reads of the display configuration; materialising Pony
    objects costs about 0.1 ms per row, a plain ``SELECT`` of the same columns a tenth of
    that. Only what the drivers return differently from Pony is converted: SQLite's 0/1
    booleans and JSON text (orjson: half the standard library's time).
    """
    attrs = [entity._adict_[name] for name in names]
    columns = ", ".join(f'"{attr.column}"' for attr in attrs)
    order = ", ".join(f'"{entity._adict_[name].column}"' for name in order_by)
    found = select_rows(entity._database_, f'SELECT {columns} FROM "{entity._table_}" ORDER BY {order}')
    booleans = [name for name, attr in zip(names, attrs) if attr.py_type is bool]
    documents = [name for name, attr in zip(names, attrs) if getattr(attr.py_type, "__name__", "") == "Json"]
    rows = [dict(zip(names, row)) for row in found]
    for row in rows:
        for name in booleans:
            if row[name] is not None:
                row[name] = bool(row[name])
        for name in documents:
            if isinstance(row[name], (str, bytes)):
                row[name] = load_document(row[name])
    return rows


def load_document(text: str | bytes) -> Any:
    """Stored JSON text parsed as the standard library parses it, through orjson (half the
    time) unless orjson reads it differently: NaN or Infinity (refused), an integer past
    64 bits (read as a float, so a float that large sends the text to the standard library)."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
    stack = [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float and abs(item) >= 2.0 ** 63:
            return json.loads(text)
    return data


def _schema_of(host: Any, kind: RowKind, type_id: str) -> dict[str, Any]:
    item = getattr(host.registries, kind.registry).get(type_id)
    # A row whose type's plugin was removed keeps its data; its schema is then unknown.
    return dict(item.config_schema) if item is not None else {}


_STAMPS = ("id", "created_at_ms", "updated_at_ms")


def _stored(kind: RowKind, values: dict[str, Any]) -> dict[str, Any]:
    """The resolved values that are columns of the row (never its id or time stamps)."""
    return {name: value for name, value in values.items() if name in kind.fields and name not in _STAMPS}


def _check(host: Any, kind: RowKind, type_id: Any, config: Any) -> None:
    registry = getattr(host.registries, kind.registry)
    require_type(registry, type_id, kind.type_field)
    validate_config(registry, type_id, config, extra_check=kind.extra_check)


class TypedCollection:
    def __init__(self, host: Any, kind: RowKind):
        self.host = host
        self.kind = kind

    @cached_list(lambda self: [getattr(self.host.db, self.kind.entity)._table_])
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        entity = getattr(self.host.db, self.kind.entity)
        include = req.context.query.get("include_config_schema", False)
        items = [_with_defaults(self.kind, item)
                 for item in list_rows(entity, self.kind.fields, self.kind.order)]
        if include:
            for item in items:
                item["config_json_schema"] = _schema_of(self.host, self.kind, item[self.kind.type_field])
        resp.media = {"items": items}

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = dict(req.context.body)
        entity = getattr(self.host.db, self.kind.entity)
        if self.kind.resolve is not None:
            row_id = body.pop("id", None) or uuid.uuid4().hex
            resolved = self.kind.resolve(self.host, dict(self.kind.defaults), body)
            values = {"id": row_id, **_stored(self.kind, resolved)}
        else:
            values = {**self.kind.defaults, **{k: v for k, v in body.items() if v is not None}}
            _check(self.host, self.kind, values[self.kind.type_field], values.get("config_json", {}))
        now = self.host.clock.now_ms()
        row = entity.get(id=values["id"])
        if row is not None and self.kind.upsert:
            row.set(updated_at_ms=now, **_stored(self.kind, values))
        elif row is not None:
            raise conflict(f"{self.kind.what} {values['id']!r} already exists")
        else:
            row = entity(**values, created_at_ms=now, updated_at_ms=now)
            resp.status = falcon.HTTP_200 if self.kind.upsert else falcon.HTTP_201
        resp.media = serialize(self.kind, row)


class TypedItem:
    def __init__(self, host: Any, kind: RowKind):
        self.host = host
        self.kind = kind

    def _row(self, id: str) -> Any:
        return stored_row(getattr(self.host.db, self.kind.entity), id, self.kind.what)

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        row = self._row(id)
        include = req.context.query.get("include_config_schema", False)
        resp.media = serialize(self.kind, row, _schema_of(self.host, self.kind, getattr(row, self.kind.type_field))
                               if include else None)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        row = self._row(id)
        body = dict(req.context.body)
        if not body:
            raise ApiError(400, "validation_failed", "send at least one field to change",
                           {"_schema": ["empty update"]})
        if self.kind.resolve is not None:
            stored = {name: getattr(row, name) for name in self.kind.fields if name not in _STAMPS}
            row.set(**_stored(self.kind, self.kind.resolve(self.host, stored, body)))
            row.updated_at_ms = self.host.clock.now_ms()
            resp.media = serialize(self.kind, row)
            return
        type_id = body.get(self.kind.type_field) or getattr(row, self.kind.type_field)
        config = body["config_json"] if body.get("config_json") is not None else row.config_json
        if self.kind.type_field in body or "config_json" in body:
            _check(self.host, self.kind, type_id, config)
        for name, value in body.items():
            if value is None:
                value = self.kind.defaults.get(name)
                if name in ("config_json", self.kind.type_field):
                    continue
            setattr(row, name, value)
        row.updated_at_ms = self.host.clock.now_ms()
        resp.media = serialize(self.kind, row)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        self._row(id).delete()
        resp.media = {}


def row_schema(name: str, /, **specs: FieldSpec) -> type[Schema]:
    """The response record of one row of a kind: ``specs`` (always present), then the
    ``config_json_schema`` that ``include_config_schema=true`` adds."""
    schema = record(name, **specs, config_json_schema=Omittable(fields.Dict(
        metadata={"description": "only with include_config_schema=true"})))
    schema.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)  # as record does
    return schema


def typed_routes(host: Any, kind: RowKind, path: str, noun: str, write: str, *, create: Any, patch: Any,
                 response: type[Schema], tags: Sequence[str], publishes: Sequence[str],
                 summaries: Mapping[str, str] | None = None) -> list[Route]:
    """The routes of a kind: ``path`` lists its rows (any valid key) and creates one, ``path/{id}``
    reads, changes and deletes one; writes need ``write`` and publish ``publishes``.

    ``create``/``patch`` are the body schemas, ``response`` the record of one row (the list's
    record, ``<Name>List``, is made from it). The summaries are said of ``noun`` ("list
    screens", "create a screen", "one screen", "change a screen", "delete a screen");
    ``summaries`` replaces some of them by key (``list``, ``create``, ``one``, ``change``,
    ``delete``). An ``upsert`` kind's POST answers 200, the others' 201.
    """
    article = "an" if noun[0] in "aeiou" else "a"
    said = {"list": f"list {noun}s", "create": f"create {article} {noun}", "one": f"one {noun}",
            "change": f"change {article} {noun}", "delete": f"delete {article} {noun}", **(summaries or {})}
    listing = record(f"{response.__name__.removesuffix('Schema')}List", items=fields.List(fields.Nested(response)))
    listing.__module__ = response.__module__
    return [
        Route(path, TypedCollection(host, kind), {
            "GET": Operation(AUTHENTICATED, said["list"], query=IncludeSchemaQuery, response=listing, tags=tags),
            "POST": Operation(write, said["create"], body=create, response=response,
                              status=200 if kind.upsert else 201, tags=tags, publishes=publishes),
        }),
        Route(f"{path}/{{id}}", TypedItem(host, kind), {
            "GET": Operation(AUTHENTICATED, said["one"], query=IncludeSchemaQuery, response=response, tags=tags),
            "PATCH": Operation(write, said["change"], body=patch, response=response, tags=tags,
                               publishes=publishes),
            "DELETE": Operation(write, said["delete"], response=EmptySchema, tags=tags, publishes=publishes),
        }),
    ]
