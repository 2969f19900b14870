"""``hookspecs.records.record``: a response schema whose every field is required, as the OpenAPI
document states it (the component named after the class, in the declaring module)."""
from marshmallow import Schema, fields

from hookspecs import PUBLIC, Operation, Route
from hookspecs.records import Nullable, Omittable, record
from svc_host.http.openapi import build_openapi

Base = record("Base", id=fields.String)
Thing = record("ThingSchema", Base, count=fields.Integer, note=Nullable(fields.String(metadata={"description": "d"})),
               extra=Omittable(fields.Dict), tags=fields.List(fields.String()))


class Resource:
    def on_get(self, req, resp):  # pragma: no cover  (never called: only documented)
        resp.media = {}


def component(schema, name):
    route = Route("/v1/thing", Resource(), {"GET": Operation(PUBLIC, "a thing", response=schema)})
    return build_openapi([("test", route)], host=None)["components"]["schemas"][name]


def test_every_field_is_required_but_the_omittable_one_and_nullable_says_so():
    assert issubclass(Thing, Base) and issubclass(Thing, Schema)
    assert Thing.__name__ == "ThingSchema" and Thing.__module__ == __name__
    declared = Thing._declared_fields
    assert list(declared) == ["id", "count", "note", "extra", "tags"]
    assert {name for name, field in declared.items() if field.required} == {"id", "count", "note", "tags"}
    assert [name for name, field in declared.items() if field.allow_none] == ["note"]
    assert Thing().dump({"id": "a", "count": 1, "note": None, "tags": []}) == \
        {"id": "a", "count": 1, "note": None, "tags": []}


def test_the_openapi_component_is_the_one_a_class_statement_gives():
    class ThingSchema(Base):
        count = fields.Integer(required=True)
        note = fields.String(required=True, allow_none=True, metadata={"description": "d"})
        extra = fields.Dict()
        tags = fields.List(fields.String(), required=True)

    assert component(Thing, "Thing") == component(ThingSchema, "Thing")
    assert sorted(component(Thing, "Thing")["required"]) == ["count", "id", "note", "tags"]
