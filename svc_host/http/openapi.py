"""``/v1/openapi.json``: generated from the same Route/Operation objects that serve requests."""
from __future__ import annotations

import re
from typing import Any, Callable

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields

from hookspecs import PUBLIC, Route

_PATH_PARAM = re.compile(r"{([A-Za-z_][A-Za-z0-9_]*)}")


class ErrorSchema(Schema):
    code = fields.String(required=True, metadata={"description": "snake_case error code"})
    message = fields.String(required=True)
    details = fields.Dict(metadata={"description": "per-field messages or extra facts"})


def _name_resolver() -> Callable[[Any], str]:
    """apispec's schema-name resolver for one document: a schema class's name without its
    ``Schema`` suffix, qualified by its module when another class (another plugin's
    ``TickerItem``, a second ``EmptySchema``) already has that name, so every component name is
    one class and apispec never warns "Multiple schemas resolved to the name ..."."""
    owners: dict[str, type] = {}

    def resolve(schema: Any) -> str:
        cls = schema if isinstance(schema, type) else type(schema)
        name = cls.__name__
        name = name[:-6] if name.endswith("Schema") and len(name) > 6 else name
        if owners.setdefault(name, cls) is not cls:
            name = f"{cls.__module__.replace('.', '_')}_{name}"
            owners.setdefault(name, cls)
        return name

    return resolve


BEARER_SCHEME = ("bearerAuth", {"type": "http", "scheme": "bearer"})


def build_openapi(routes: list[tuple[str, Route]], host: Any, title: str = "svc-display",
                  description: str = "REST interface of the svc-display signage host.",
                  security_scheme: tuple[str, dict[str, Any]] = BEARER_SCHEME) -> dict[str, Any]:
    from svc_host import __version__

    spec = APISpec(
        title=title,
        version=__version__,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin(schema_name_resolver=_name_resolver())],
        info={"description": description},
    )
    scheme_name, scheme = security_scheme
    spec.components.security_scheme(scheme_name, scheme)
    spec.components.schema("Error", schema=ErrorSchema)
    error_response = {
        "description": "error in the CONTRACT shape",
        "content": {"application/json": {"schema": "Error"}},
    }
    for plugin, route in sorted(routes, key=lambda item: item[1].path):
        params = [
            {"in": "path", "name": name, "required": True, "schema": {"type": "string", "minLength": 1}}
            for name in _PATH_PARAM.findall(route.path)
        ]
        operations = {}
        for method, op in route.operations.items():
            content: dict[str, Any] = {}
            if op.response is not None:
                content = {op.response_content_type: {"schema": op.response}}
            elif op.status != 204:
                content = {op.response_content_type: {"schema": {}}}
            for media_type in op.response_alternatives:
                content[media_type] = {"schema": {"type": "string"}}
            success = {"description": op.summary or "success"}
            if content:
                success["content"] = content
            entry: dict[str, Any] = {
                "summary": op.summary,
                "operationId": f"{method.lower()}_{_operation_name(route.path)}",
                "tags": list(op.tags) or [plugin],
                "responses": {str(op.status): success, "default": error_response},
                "x-permission": op.permission,
            }
            if op.permission == PUBLIC:
                entry["security"] = []
            else:
                entry["security"] = [{scheme_name: []}]
            parameters = list(params)
            if op.query is not None:
                parameters.append({"in": "query", "schema": op.query})
            if parameters:
                entry["parameters"] = parameters
            if op.body is not None:
                entry["requestBody"] = {"required": True, "content": {"application/json": {"schema": op.body}}}
            elif op.raw_body is not None:
                entry["requestBody"] = {
                    "required": True,
                    "content": {op.raw_body: {"schema": {"type": "string", "format": "binary"}}},
                }
            operations[method.lower()] = entry
        spec.path(path=route.path, operations=operations)
    return spec.to_dict()


def _operation_name(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_")
