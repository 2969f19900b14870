"""``/v1/adoption/origins``: the stored allowed origins, listed and removed (``adoption.admin``).

An origin is added by adoption or the environment only; removing one takes effect at the next
request (the middleware reads the stored list). One still in ``SVC_DISPLAY_HTTP_CORS_ORIGINS``
is stored again at the next start.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Operation, Route
from hookspecs.permissions import ADOPTION_ADMIN
from svc_host.kit.rest import ORIGIN_MAX, EmptySchema, normalize_origin, not_found

from builtin_plugins.cors.store import SOURCES
from hookspecs.services import CORS
from hookspecs.records import record


OriginSchema = record("OriginSchema", origin=fields.String, source=fields.String(validate=validate.OneOf(SOURCES)),
                      created_at_ms=fields.Integer)


OriginList = record("OriginList", items=fields.List(fields.Nested(OriginSchema)))


# ASCII controls and space spelled out, not ``\s``: Python's ``\s`` also matches U+0085 and
# ECMAScript's (the OpenAPI document's regex dialect) does not, so the two would disagree
ORIGIN_PATTERN = r"^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\x00-\x20]+/?$"
"""An http(s) origin as a browser sends or a person types it (scheme and host, an optional port
and trailing slash); the OpenAPI document states it, so a client sees the format."""


class OriginQuery(Schema):
    origin = fields.String(required=True, validate=[validate.Length(min=1, max=ORIGIN_MAX),
                                                    validate.Regexp(ORIGIN_PATTERN, error="not an http(s) origin")],
                           metadata={"description": "the origin to remove (normalised as when stored)",
                                     "pattern": ORIGIN_PATTERN})


class OriginsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = {"items": self.host.services[CORS].list()}

    def on_delete(self, req: Any, resp: Any) -> None:
        given = req.context.query["origin"]
        origin = normalize_origin(given)
        # of the form but not an origin that could be stored (a bad port, host name): none is stored
        if origin is None or not self.host.services[CORS].forget(origin):
            raise not_found("stored origin")
        resp.media = {}


def routes(host: Any) -> list[Route]:
    tags = ["adoption"]
    return [Route("/v1/adoption/origins", OriginsResource(host), {
        "GET": Operation(ADOPTION_ADMIN, "the stored allowed CORS origins (adoption and environment)",
                         response=OriginList, tags=tags),
        "DELETE": Operation(ADOPTION_ADMIN, "remove a stored allowed origin", query=OriginQuery,
                            response=EmptySchema, tags=tags),
    })]
