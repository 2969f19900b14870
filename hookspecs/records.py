"""Response records: the marshmallow schema of a JSON object a route answers with.

CONTRACT: a response field is always present (``null`` where the value is unknown), so every
field of a response schema is ``required`` in ``/v1/openapi.json``. :func:`record` owns that
rule: it builds the schema class from the fields and makes each one required; a field that
may be ``null`` says so with :func:`Nullable`, the rare one that may be absent (an extra
asked for by a query parameter) with :func:`Omittable`.

    AdoptionClient = record("AdoptionClientSchema", id=fields.String, identifier=fields.String,
                            created_at_ms=fields.Integer, note=Nullable(fields.String))

A field is a marshmallow field class or instance (an instance keeps its metadata,
validators and nesting). The class is named ``name`` in its caller's module: the OpenAPI
component is named after the class (without a ``Schema`` suffix), exactly as for a class
statement.
"""
from __future__ import annotations

import sys
from typing import Any, Union

from marshmallow import Schema, fields

FieldSpec = Union[fields.Field, type[fields.Field]]


def _field(spec: FieldSpec) -> fields.Field:
    return spec() if isinstance(spec, type) else spec


def Nullable(spec: FieldSpec) -> fields.Field:  # noqa: N802  (reads as a type, like the field classes)
    """A field whose value may be ``null`` (it is still always present)."""
    field = _field(spec)
    field.allow_none = True
    return field


class _Omittable:
    def __init__(self, field: fields.Field):
        self.field = field


def Omittable(spec: FieldSpec) -> Any:  # noqa: N802
    """A field that may be absent from the object (not required): only what the caller asks for."""
    return _Omittable(_field(spec))


def record(name: str, base: type[Schema] = Schema, /, **specs: FieldSpec | _Omittable) -> type[Schema]:
    """A response schema class named ``name``: ``base``'s fields, then ``specs`` in order, each
    required unless :func:`Omittable`."""
    declared: dict[str, fields.Field] = {}
    for key, spec in specs.items():
        if isinstance(spec, _Omittable):
            declared[key] = spec.field
        else:
            declared[key] = _field(spec)
            declared[key].required = True
    schema = base.from_dict(declared, name=name)
    # As collections.namedtuple does: the class belongs to the module that declared it (the
    # OpenAPI document qualifies a component name by its module when two classes share it).
    schema.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return schema
