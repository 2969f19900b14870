"""Typed, configurable rows (screens, ticker tapes, overlays): shared validation and shapes.

Each row names a type from one of the host's type registries and carries a
``config_json`` object that must validate against that type's JSON Schema. The helpers
here raise the CONTRACT errors for an unknown type or a config that does not match, and
describe types the same way for the meta routes and ``include_config_schema=true``.
"""
from __future__ import annotations

from typing import Any, Callable

from marshmallow import Schema, fields

from svc_host.rest.schemas import CLIENT_ID, BooleanText, StorableSchema
from svc_host.http.errors import ApiError, not_found


class IncludeSchemaQuery(StorableSchema):
    """``include_config_schema=true`` adds ``config_json_schema`` to every row."""

    include_config_schema = BooleanText(load_default=False)


def unknown_type(registry: Any, type_id: Any, field: str) -> ApiError:
    known = sorted(t.id for t in registry)
    return ApiError(400, "validation_failed", f"unknown {registry.kind} type {str(type_id)[:64]!r}",
                    {field: [f"must be one of: {', '.join(known)}"]})


def require_type(registry: Any, type_id: Any, field: str) -> Any:
    """The registered type ``type_id`` or 400 naming the known ones."""
    item = registry.get(type_id) if isinstance(type_id, str) else None
    if item is None:
        raise unknown_type(registry, type_id, field)
    return item


def validate_config(registry: Any, type_id: str, config: Any, field: str = "config_json",
                    extra_check: Callable[[str, Any], list[tuple[str, str]]] | None = None) -> None:
    """400 ``validation_failed`` when ``config`` does not match the type's schema.

    ``details[field]`` maps the JSON pointer of each failing location inside the config
    (``/`` is the config itself) to its messages. ``extra_check(type_id, config)`` adds
    (pointer, message) pairs for rules a schema cannot express (an existing IANA zone).
    """
    problems = registry.validate_config(type_id, config)
    if not problems and extra_check is not None:
        problems = extra_check(type_id, config)
    if problems:
        by_pointer: dict[str, list[str]] = {}
        for pointer, message in problems:
            by_pointer.setdefault(pointer, []).append(message[:500])
        raise ApiError(400, "validation_failed",
                       f"{field} does not match the schema of {registry.kind} type {type_id!r}",
                       {field: by_pointer})


def describe_type(item: Any, id_field: str) -> dict[str, Any]:
    """A type as the meta routes list it: id, label, schema and example."""
    return {
        id_field: item.id,
        "label": item.label,
        "description": item.description,
        "config_json_schema": dict(item.config_schema),
        "example_config_json": dict(item.example_config),
    }


def row_id(value: str, what: str) -> str:
    """A path id: anything that could never have been stored is simply not found."""
    if not isinstance(value, str) or not CLIENT_ID.match(value):
        raise not_found(what)
    return value


def stored_row(entity: Any, value: str, what: str) -> Any:
    """The row of ``entity`` whose id is the path id ``value``; 404 "``what`` not found" otherwise."""
    row = entity.get(id=row_id(value, what))
    if row is None:
        raise not_found(what)
    return row


class TypeDescriptorSchema(Schema):
    label = fields.String(required=True)
    description = fields.String()
    config_json_schema = fields.Dict(required=True)
    example_config_json = fields.Dict(required=True)


class EmptySchema(Schema):
    """The ``{}`` answer of a delete."""
