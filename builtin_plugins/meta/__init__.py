"""Meta routes (spec 4.10): every registered type with its JSON Schema and example.

The lists come from the host's registries, so a plugin's types appear here without this
plugin knowing them. Reads need only a valid key.
"""
from __future__ import annotations

from typing import Any

import falcon
from marshmallow import fields

from hookspecs import AUTHENTICATED, Operation, Route, hookimpl
from hookspecs.records import record
from svc_host.kit.rest import TypeDescriptorSchema, describe_type

REGISTRIES = (
    ("screen_types", "screen_types", "screen_type"),
    ("ticker_tape_types", "ticker_types", "ticker_type"),
    ("overlay_types", "overlay_types", "overlay_type"),
    ("integration_types", "integration_types", "integration_type"),
)


def describe(host: Any, registry_name: str, id_field: str) -> list[dict[str, Any]]:
    registry = getattr(host.registries, registry_name)
    items = []
    for item in sorted(registry, key=lambda t: t.id):
        data = describe_type(item, id_field)
        if id_field == "integration_type":
            data["family"] = item.family
            data["requires_accounts"] = bool(item.requires_accounts)
            data["required_account_types"] = list(item.required_account_types)
        items.append(data)
    return items


ScreenTypeSchema = record("ScreenTypeSchema", TypeDescriptorSchema, screen_type=fields.String)


TickerTypeSchema = record("TickerTypeSchema", TypeDescriptorSchema, ticker_type=fields.String)


OverlayTypeSchema = record("OverlayTypeSchema", TypeDescriptorSchema, overlay_type=fields.String)


IntegrationTypeSchema = record("IntegrationTypeSchema", TypeDescriptorSchema, integration_type=fields.String,
                               family=fields.String, requires_accounts=fields.Boolean,
                               required_account_types=fields.List(fields.String()))


ConfigSchemas = record("ConfigSchemas", screen_types=fields.List(fields.Nested(ScreenTypeSchema)),
                       ticker_tape_types=fields.List(fields.Nested(TickerTypeSchema)),
                       overlay_types=fields.List(fields.Nested(OverlayTypeSchema)),
                       integration_types=fields.List(fields.Nested(IntegrationTypeSchema)))


ScreenTypeList = record("ScreenTypeList", items=fields.List(fields.Nested(ScreenTypeSchema)))


TickerTypeList = record("TickerTypeList", items=fields.List(fields.Nested(TickerTypeSchema)))


class ConfigSchemasResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {key: describe(self.host, registry, id_field) for key, registry, id_field in REGISTRIES}


class TypeListResource:
    def __init__(self, host: Any, registry: str, id_field: str):
        self.host = host
        self.registry = registry
        self.id_field = id_field

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"items": describe(self.host, self.registry, self.id_field)}


@hookimpl
def register_routes(host: Any) -> list[Route]:
    tags = ["meta"]
    return [
        Route("/v1/meta/config-schemas", ConfigSchemasResource(host), {
            "GET": Operation(AUTHENTICATED, "every type with its config schema and example",
                             response=ConfigSchemas, tags=tags),
        }, db_session=False),
        Route("/v1/meta/screen-types", TypeListResource(host, "screen_types", "screen_type"), {
            "GET": Operation(AUTHENTICATED, "screen types", response=ScreenTypeList, tags=tags),
        }, db_session=False),
        Route("/v1/meta/ticker-tape-types", TypeListResource(host, "ticker_types", "ticker_type"), {
            "GET": Operation(AUTHENTICATED, "ticker tape types", response=TickerTypeList, tags=tags),
        }, db_session=False),
    ]
