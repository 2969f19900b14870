"""Collection and item resources for plain rows of one entity (the interests lists of spec 4.7).

One :class:`EntityKind` says what a list is (its entity on ``host.db``, its marshmallow
bodies, its JSON shape, what still references a row); :func:`entity_routes` serves it with
the same five routes everywhere: ``GET``/``POST`` on the collection, ``GET``/``PATCH``/
``DELETE`` on a row. Mutators answer ``{}``; ids are the client's or a uuid hex; a delete
is refused with 409 while ``referenced(db, id)`` holds; a list is whole unless ``limit`` or
``offset`` is given.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from marshmallow import Schema, fields, validate, validates_schema

from hookspecs import Operation, Route
from hookspecs.services import CATEGORIES, service
from svc_host.http.errors import ApiError, conflict
from svc_host.rest.configurable import EmptySchema, stored_row
from svc_host.rest.schemas import require_some
from svc_host.rest.text import Text


ROW_ID_MAX = 300


def lookup_id(value: Any) -> str | None:
    """An id usable in a lookup: None when it cannot name a row (not a string, empty, too long,
    NUL characters, or spaces around it: Pony strips a string it looks up, as it stripped every
    stored one, and refuses one that strips to nothing with a ValueError), which the caller
    answers with 404 (a path id) or 400 (a body field)."""
    if not isinstance(value, str) or not value or len(value) > ROW_ID_MAX or "\x00" in value \
            or value != value.strip():
        return None
    return value


def category_exists(host: Any, category_id: Any) -> bool:
    """True when ``category_id`` names a content category (False without the curator plugin)."""
    categories = service(host, CATEGORIES)
    return categories is not None and isinstance(category_id, str) and categories.exists(category_id)


def require_category(host: Any, field: str, value: Any) -> None:
    """400 ``validation_failed`` unless ``value`` names a content category (the curator's
    vocabulary; none exists without the curator plugin)."""
    if not category_exists(host, value):
        raise ApiError(400, "validation_failed", "unknown content category",
                       {field: [f"{value!r} is not a curator category"]})


class IdSchema(Schema):
    """The ``{id}`` answer of a create."""

    id = Text(required=True)


class ListQuery(Schema):
    """Optional paging: without ``limit`` the whole list is returned."""

    limit = fields.Integer(validate=validate.Range(min=1, max=100))
    offset = fields.Integer(validate=validate.Range(min=0, max=10_000_000))


@dataclass(frozen=True)
class EntityKind:
    """One list: ``path`` (URL segment), ``entity`` (name on ``host.db``), ``label`` (messages),
    ``serialize(row)``, the ``create``/``patch`` body schemas, ``referenced(db, id)`` with the
    409 message, and ``check(host, data, row)`` for rules beyond the schema (``row`` is None on create)."""

    path: str
    entity: str
    label: str
    serialize: Callable[[Any], dict]
    create: type
    patch: type
    referenced: Callable[[Any, str], bool]
    reference_message: str
    check: Callable[[Any, dict, Any], None] = lambda host, data, row: None


def non_empty_patch(schema_cls: type) -> type:
    """A PATCH schema that also rejects an empty body."""

    def _some(self: Schema, data: dict, **kwargs: Any) -> None:
        require_some(data, list(self.fields))

    return type(schema_cls.__name__, (schema_cls,), {"_some": validates_schema(_some)})


class CollectionResource:
    def __init__(self, host: Any, kind: EntityKind):
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
        self.kind.check(self.host, data, None)
        data.setdefault("id", uuid.uuid4().hex)
        if entity.get(id=data["id"]) is not None:
            raise conflict(f"{self.kind.label} {data['id']!r} already exists")
        entity(**data)
        resp.status = 201
        resp.media = {}


class ItemResource:
    def __init__(self, host: Any, kind: EntityKind):
        self.host = host
        self.kind = kind

    def _row(self, row_id: str) -> Any:
        return stored_row(getattr(self.host.db, self.kind.entity), row_id, self.kind.label)

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        resp.media = self.kind.serialize(self._row(id))

    def on_patch(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        data = dict(req.context.body)
        self.kind.check(self.host, data, row)
        row.set(**data)
        resp.media = {}

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        row = self._row(id)
        if self.kind.referenced(self.host.db, row.id):
            raise conflict(f"{self.kind.label} {id!r} is in use: {self.kind.reference_message}")
        row.delete()
        resp.media = {}


def entity_routes(host: Any, kind: EntityKind, base: str, read: str, write: str,
                  tags: Sequence[str] = (), publishes: Sequence[str] = ()) -> list[Route]:
    """The five routes of ``kind`` under ``base`` (``/v1/interests/weather-locations``);
    reads need ``read``, writes ``write`` and publish the change events ``publishes``."""
    tags, publishes = tuple(tags), tuple(publishes)
    return [
        Route(base, CollectionResource(host, kind), {
            "GET": Operation(read, f"list {kind.label}s", query=ListQuery, tags=tags),
            "POST": Operation(write, f"add a {kind.label}", body=kind.create, response=EmptySchema,
                              status=201, tags=tags, publishes=publishes),
        }),
        Route(base + "/{id}", ItemResource(host, kind), {
            "GET": Operation(read, f"one {kind.label}", tags=tags),
            "PATCH": Operation(write, f"change a {kind.label}", body=non_empty_patch(kind.patch),
                               response=EmptySchema, tags=tags, publishes=publishes),
            "DELETE": Operation(write, f"delete an unreferenced {kind.label}", response=EmptySchema,
                                tags=tags, publishes=publishes),
        }),
    ]
