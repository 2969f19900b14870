"""The Falcon WSGI app factory.

``create_app(host)`` builds the app from the route registry: every route method comes
with its :class:`Operation` (permission, body/query schemas), the middleware checks the
Bearer token and the permission, parses and validates the body and query with the same
marshmallow schemas that feed ``/v1/openapi.json``, and every error leaves in the
CONTRACT shape.
"""
from __future__ import annotations

import functools
import json
import logging
import uuid
from typing import Any

import falcon
from marshmallow import EXCLUDE, Schema, ValidationError
from pony import orm

from hookspecs import AUTHENTICATED, PUBLIC, Operation, Route
from svc_host.http.errors import ApiError, handle_api_error, handle_http_error, handle_unexpected
from svc_host.http.openapi import build_openapi
from svc_host.plugins import HOST_PLUGIN_NAME, PluginError
from svc_host.storage import unstorable_text

log = logging.getLogger("svc_host.http")

DEFAULT_MAX_BODY = 1024 * 1024
BODY_METHODS = ("POST", "PUT", "PATCH")
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _schema_instance(schema: Any) -> Schema | None:
    if schema is None:
        return None
    return schema() if isinstance(schema, type) else schema


class RequestContextMiddleware:
    """A request id for every request, echoed in ``X-Request-Id`` and in error logs."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.request_id = uuid.uuid4().hex[:16]
        req.context.principal = None
        req.context.body = None
        req.context.query = {}
        resp.set_header("X-Request-Id", req.context.request_id)


class AuthAndValidationMiddleware:
    """Bearer auth, the route's permission, and body/query validation, before any responder."""

    def __init__(self, host: Any, operations: dict[tuple[str, str], Operation]):
        self.host = host
        self.operations = operations

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource: Any, params: dict) -> None:
        if resource is None:
            return
        operation = self.operations.get((req.uri_template, req.method))
        if operation is None:  # Falcon answers 405 / OPTIONS itself
            return
        if any(unstorable_text(value) for value in params.values()):  # no stored row can have such an id
            raise ApiError(404, "not_found", "no such resource")
        for name, value in req.params.items():
            if unstorable_text(value):
                raise ApiError(400, "validation_failed", "request validation failed",
                               {name: [UNSTORABLE_MESSAGE]})
        principal = self._principal(req)
        req.context.principal = principal
        if operation.permission != PUBLIC:
            if principal is None:
                raise ApiError(401, "unauthorized", "a valid API key is required (Authorization: Bearer <key>)")
            if operation.permission != AUTHENTICATED and not principal.has(operation.permission):
                raise ApiError(403, "forbidden", f"this key lacks the permission {operation.permission!r}")
        if operation.query is not None:
            req.context.query = self._load_query(req, operation)
        if req.method in BODY_METHODS and operation.raw_body is None:
            req.context.body = self._load_body(req, operation)

    def _principal(self, req: falcon.Request) -> Any:
        header = req.get_header("Authorization")
        req.context.bearer_presented = bool(header)
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > 512:
            return None
        return self.host.authenticate(token)

    @staticmethod
    def _load_query(req: falcon.Request, operation: Operation) -> dict:
        raw = {key: (value[-1] if isinstance(value, list) else value) for key, value in req.params.items()}
        try:
            return _schema_instance(operation.query).load(raw, unknown=EXCLUDE)
        except ValidationError as exc:
            raise ApiError(400, "validation_failed", "invalid query parameters", _flatten(exc.messages)) from None

    def _load_body(self, req: falcon.Request, operation: Operation) -> Any:
        raw = read_body(req, operation.max_body or DEFAULT_MAX_BODY)
        schema = _schema_instance(operation.body)
        if not raw.strip():
            if schema is None:
                return None
            raise ApiError(400, "invalid_json", "a JSON object body is required")
        content_type = (req.content_type or "").split(";")[0].strip().lower()
        if content_type and content_type != "application/json" and not content_type.endswith("+json"):
            raise ApiError(415, "unsupported_media_type", "send the body as application/json")
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise ApiError(400, "invalid_json", "the body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "invalid_json", "the body must be a JSON object")
        bad = _unstorable_path(data)
        if bad is not None:
            raise ApiError(400, "validation_failed", "request validation failed", {bad: [UNSTORABLE_MESSAGE]})
        if schema is None:
            return data
        try:
            return schema.load(data)
        except ValidationError as exc:
            raise ApiError(400, "validation_failed", "request validation failed", _flatten(exc.messages)) from None


UNSTORABLE_MESSAGE = "contains a NUL character or a lone surrogate, which cannot be stored"


def _unstorable_path(data: Any, path: str = "") -> str | None:
    """The dotted path of the first unstorable string (keys included) in parsed JSON, or None."""
    if isinstance(data, dict):
        for key, value in data.items():
            here = f"{path}.{key}" if path else str(key)
            if unstorable_text(key):
                return path or "_schema"
            found = _unstorable_path(value, here)
            if found is not None:
                return found
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found = _unstorable_path(value, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    elif unstorable_text(data):
        return path or "_schema"
    return None


def read_body(req: falcon.Request, cap: int) -> bytes:
    """The request body, or 413 ``payload_too_large`` past ``cap`` bytes."""
    if req.content_length is not None and req.content_length > cap:
        raise ApiError(413, "payload_too_large", f"the body exceeds {cap} bytes")
    data = req.bounded_stream.read(cap + 1)
    if len(data) > cap:
        raise ApiError(413, "payload_too_large", f"the body exceeds {cap} bytes")
    return data


def _flatten(messages: Any) -> dict:
    """marshmallow messages keyed by field; nested dict messages keep their structure."""
    if isinstance(messages, dict):
        return {str(k): v for k, v in messages.items()}
    return {"_schema": messages}


def _proxy_resource(route: Route, plugin: str) -> Any:
    """A resource exposing only the methods that have an Operation, each in a db_session."""
    attrs = {}
    for method in route.operations:
        if method not in HTTP_METHODS:
            raise PluginError(plugin, f"route {route.path!r} declares unsupported method {method!r}")
        responder = getattr(route.resource, "on_" + method.lower(), None)
        if responder is None:
            raise PluginError(plugin, f"route {route.path!r} declares {method} but has no on_{method.lower()}")
        if route.db_session:
            responder = orm.db_session(responder)
        attrs["on_" + method.lower()] = _as_method(responder)
    return type(type(route.resource).__name__, (), attrs)()


def _as_method(responder: Any) -> Any:
    @functools.wraps(responder)
    def method(self, req, resp, **params):  # noqa: ANN001
        return responder(req, resp, **params)

    return method


def create_app(host: Any, core_routes: list[Route] | None = None) -> falcon.App:
    """Build the WSGI app from the host's routes (plus the host's own core routes)."""
    from svc_host.http.core_routes import core_routes as default_core_routes

    routes: list[tuple[str, Route]] = [(HOST_PLUGIN_NAME, r) for r in (core_routes or default_core_routes(host))]
    routes += list(host.routes)

    operations: dict[tuple[str, str], Operation] = {}
    owners: dict[str, str] = {}
    middleware = [RequestContextMiddleware()]
    middleware += [item for _name, item in host.middleware]
    app = falcon.App(middleware=middleware + [AuthAndValidationMiddleware(host, operations)])
    app.req_options.strip_url_path_trailing_slash = True
    app.req_options.auto_parse_qs_csv = False
    app.resp_options.secure_cookies_by_default = True
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_http_error)
    app.add_error_handler(ApiError, handle_api_error)

    for plugin, route in routes:
        if route.path in owners:
            raise PluginError(plugin, f"route {route.path!r} is already served by {owners[route.path]!r}")
        app.add_route(route.path, _proxy_resource(route, plugin))
        owners[route.path] = plugin
        for method, operation in route.operations.items():
            operations[(route.path, method)] = operation

    host.operations = operations
    host.openapi = build_openapi(routes, host)
    return app
