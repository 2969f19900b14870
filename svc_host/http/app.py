"""The Falcon WSGI app factory.

``create_app(host)`` builds the app from the route registry: every route method comes
with its :class:`Operation` (permission, body/query schemas), the middleware checks the
Bearer token and the permission, parses and validates the body and query with the same
marshmallow schemas that feed ``/v1/openapi.json``, and every error leaves in the
CONTRACT shape.
"""
from __future__ import annotations

import functools
import itertools
import json
import logging
import secrets
import unicodedata
from typing import Any

import falcon
import orjson
from marshmallow import EXCLUDE, Schema, ValidationError
from pony import orm

from hookspecs import AUTHENTICATED, PUBLIC, Operation, Route
from svc_host.http.errors import ApiError, handle_api_error, handle_http_error, handle_unexpected
from svc_host.http.openapi import build_openapi
from svc_host.plugins import HOST_PLUGIN_NAME, PluginError
from svc_host.storage import unstorable_text

log = logging.getLogger("svc_host.http")

DEFAULT_MAX_BODY = 1024 * 1024
BEARER_REQUIRED = "a valid API key is required (Authorization: Bearer <key>)"
# Arrays and objects in a JSON body may nest this deep (no route's schema needs more than a
# handful of levels); deeper bodies answer 400 invalid_json. docs/reliability.md.
MAX_JSON_DEPTH = 64
BODY_METHODS = ("POST", "PUT", "PATCH")
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _schema_instance(schema: Any) -> Schema | None:
    """The schema to load with: an instance as given, a class made once (a marshmallow
    ``Schema()`` deep-copies its declared fields, about 20 µs per request for a page query;
    ``load`` keeps no state on the instance, so one serves every thread)."""
    if schema is None:
        return None
    return _schema_of_class(schema) if isinstance(schema, type) else schema


@functools.lru_cache(maxsize=None)
def _schema_of_class(schema: type) -> Schema:
    return schema()


# Request ids: unique, not secret (they only tie an answer to its log lines), so a random
# prefix per process and a counter instead of a uuid4 per request (1% of the server's busy
# samples at 16 connections, docs/performance.md). itertools.count is atomic under the GIL.
_REQUEST_ID_PREFIX = secrets.token_hex(4)
_REQUEST_NUMBERS = itertools.count()


class RequestContextMiddleware:
    """A request id for every request, echoed in ``X-Request-Id`` and in error logs."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.request_id = f"{_REQUEST_ID_PREFIX}{next(_REQUEST_NUMBERS) & 0xFFFFFFFF:08x}"
        req.context.principal = None
        req.context.body = None
        req.context.query = {}
        resp.set_header("X-Request-Id", req.context.request_id)


class AuthAndValidationMiddleware:
    """Bearer auth, the route's permission, and body/query validation, before any responder."""

    def __init__(self, host: Any, operations: dict[tuple[str, str], Operation],
                 principal_of: Any = None, unauthorized_message: str = BEARER_REQUIRED):
        self.host = host
        self.operations = operations
        self.principal_of = principal_of or self._principal
        self.unauthorized_message = unauthorized_message

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource: Any, params: dict) -> None:
        if resource is None:
            return
        operation = self.operations.get((req.uri_template, req.method))
        if operation is None:  # Falcon answers 405 / OPTIONS itself
            return
        if any(_impossible_id(value) for value in params.values()):  # no stored row can have such an id
            raise ApiError(404, "not_found", "no such resource")
        for name, value in req.params.items():
            if unstorable_text(value):
                raise ApiError(400, "validation_failed", "request validation failed",
                               {name: [UNSTORABLE_MESSAGE]})
        principal = self.principal_of(req)
        req.context.principal = principal
        refused = permission_refusal(operation, principal, self.unauthorized_message)
        if refused is not None:
            raise refused
        if operation.query is not None:
            req.context.query = self._load_query(req, operation)
        if req.method in BODY_METHODS and operation.raw_body is None:
            req.context.body = self._load_body(req, operation)

    def _principal(self, req: falcon.Request) -> Any:
        header = req.get_header("Authorization")
        req.context.bearer_presented = bool(header)
        return bearer_principal(self.host, header)

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
        except RecursionError:  # nested past the parser's own stack: far past the limit below
            data = None
            depth = MAX_JSON_DEPTH + 1
        else:
            depth = json_depth(data)
        if depth > MAX_JSON_DEPTH:
            raise ApiError(400, "invalid_json", f"the body nests arrays and objects more than {MAX_JSON_DEPTH} deep")
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


def bearer_principal(host: Any, authorization: str | None) -> Any:
    """The principal of an ``Authorization: Bearer <key>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        return None
    return host.authenticate(token)


def permission_refusal(operation: Operation, principal: Any, unauthorized_message: str = BEARER_REQUIRED
                       ) -> ApiError | None:
    """Why ``principal`` (None: no valid key) may not call ``operation``: 401 or 403, else None."""
    if operation.permission == PUBLIC:
        return None
    if principal is None:
        return ApiError(401, "unauthorized", unauthorized_message)
    if operation.permission != AUTHENTICATED and not principal.has(operation.permission) \
            and not (operation.scoped and principal.has_scoped(operation.permission)):
        return ApiError(403, "forbidden", f"this key lacks the permission {operation.permission!r}")
    return None


UNSTORABLE_MESSAGE = "contains a NUL character or a lone surrogate, which cannot be stored"


def _impossible_id(value: Any) -> bool:
    """A path id no row can have: unstorable text, or only whitespace and control characters
    (the databases refuse or strip such keys; every route takes its ids through here)."""
    if not isinstance(value, str):
        return False
    return unstorable_text(value) or all(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in value)


def json_depth(data: Any) -> int:
    """How deep arrays and objects nest in parsed JSON (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((value, depth + 1) for value in item)
    return deepest


def _unstorable_path(data: Any) -> str | None:
    """The dotted path of the first unstorable string (keys included) in parsed JSON, or None.

    Iterative (client data may nest deeply), in document order."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            children = []
            for key, value in item.items():
                if unstorable_text(key):
                    return path or "_schema"
                children.append((value, f"{path}.{key}" if path else str(key)))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(reversed([(value, f"{path}.{index}" if path else str(index))
                                   for index, value in enumerate(item)]))
        elif unstorable_text(item):
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


def dumps_json(media: Any) -> bytes:
    """Response bodies through orjson (a fifth of stdlib json's time on a 50-row list,
    docs/performance.md); what orjson refuses (integers past 64 bits, non-string keys) goes
    through the standard library as before."""
    try:
        return orjson.dumps(media)
    except TypeError:
        return json.dumps(media, ensure_ascii=False).encode()


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


def create_app(host: Any, core_routes: list[Route] | None = None, *, principal_of: Any = None,
               unauthorized_message: str = BEARER_REQUIRED, openapi_info: dict[str, Any] | None = None,
               defer_openapi: bool = False) -> falcon.App:
    """Build the WSGI app from the host's routes (plus the host's own core routes).

    ``host`` needs ``routes``, ``middleware``, ``authenticate(token)`` (for the default
    Bearer principal) and receives ``operations`` and ``openapi``. The controller reuses
    this factory with its own ``principal_of(req)`` (session cookies), 401 message and
    ``openapi_info`` (``title``, ``description``, ``security_scheme``: see ``build_openapi``).
    With ``defer_openapi`` (an in-process test client: most tests never ask for the document, the
    costliest part of the app) ``host.openapi`` is built on its first read, from the same routes;
    a server builds it here, so a schema apispec cannot document stops startup.
    """
    from svc_host.http.core_routes import core_routes as default_core_routes

    routes: list[tuple[str, Route]] = [(HOST_PLUGIN_NAME, r) for r in (core_routes or default_core_routes(host))]
    routes += list(host.routes)

    operations: dict[tuple[str, str], Operation] = {}
    owners: dict[str, str] = {}
    middleware = [RequestContextMiddleware()]
    middleware += [item for _name, item in host.middleware]
    app = falcon.App(middleware=middleware + [
        AuthAndValidationMiddleware(host, operations, principal_of, unauthorized_message)])
    app.req_options.strip_url_path_trailing_slash = True
    app.req_options.auto_parse_qs_csv = False
    app.resp_options.secure_cookies_by_default = True
    app.resp_options.media_handlers[falcon.MEDIA_JSON] = falcon.media.JSONHandler(dumps=dumps_json)
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
    build = functools.partial(build_openapi, routes, host, **(openapi_info or {}))
    if defer_openapi and isinstance(getattr(type(host), "openapi", None), property):
        host.openapi = None  # (a document of an earlier app is not this one's)
        host.openapi_builder = build  # svc_host.host.Host builds it on first read
    else:
        host.openapi = build()
    return app
