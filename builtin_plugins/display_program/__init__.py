"""Navigation and program telemetry of the canvas (the canvas itself is the host's compositor,
drawing the layers the feature plugins contribute: ``svc_host/display``).

- ``startup`` publishes the telemetry ring buffers (``host.services[PROGRAM_TELEMETRY]``),
  where the slides and marquee layers record their lines.
- ``POST /v1/display/navigation`` (``navigation.control``) posts ``navigate`` on the
  display bus (the compositor hands it to the layer of that surface); 503
  ``navigation_unavailable`` without a bus (headless).
- ``GET /v1/telemetry/programs`` and ``/v1/telemetry/ticker-programs``
  (``telemetry.read``): newest first, ``limit`` 1-500 (default 10), optional ``since_ms``.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Feature, Operation, Route, hookimpl
from hookspecs.services import PROGRAM_TELEMETRY
from builtin_plugins.display_program.telemetry import CAPACITY, ProgramTelemetry
from svc_host.http.errors import ApiError
from hookspecs.permissions import NAVIGATION_CONTROL, TELEMETRY_READ, declare
from hookspecs.records import record


class NavigationBody(Schema):
    surface = fields.String(required=True, validate=validate.OneOf(["screen", "ticker"]))
    direction = fields.String(required=True, validate=validate.OneOf(["back", "forward"]))


NavigationResponse = record("NavigationResponse", surface=fields.String, direction=fields.String, queued=fields.Boolean)


class TelemetryQuery(Schema):
    limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=CAPACITY))
    since_ms = fields.Integer(load_default=None, allow_none=True,
                              validate=validate.Range(min=0, max=2 ** 53))


class SlideLine(Schema):
    id = fields.Raw()
    screen_type = fields.String()
    dwell_seconds = fields.Float()


ProgramLine = record("ProgramLine", at_ms=fields.Integer, reason=fields.String,
                     slides=fields.List(fields.Nested(SlideLine)))


ProgramList = record("ProgramList", items=fields.List(fields.Nested(ProgramLine)))


TickerItem = record("TickerItem", ordinal=fields.Integer, kind=fields.String, body=fields.String)


TickerProgramLine = record("TickerProgramLine", at_ms=fields.Integer, items=fields.List(fields.Nested(TickerItem)))


TickerProgramList = record("TickerProgramList", items=fields.List(fields.Nested(TickerProgramLine)))


class NavigationResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        bus = self.host.display_bus
        if bus is None:
            raise ApiError(503, "navigation_unavailable", "the display runs without a navigation bus (headless)")
        body = req.context.body
        bus.post("navigate", surface=body["surface"], direction=body["direction"])
        resp.status = 202
        resp.media = {"surface": body["surface"], "direction": body["direction"], "queued": True}


class TelemetryResource:
    def __init__(self, host: Any, buffer_name: str):
        self.host = host
        self.buffer_name = buffer_name

    def on_get(self, req: Any, resp: Any) -> None:
        telemetry = self.host.services[PROGRAM_TELEMETRY]
        query = req.context.query
        resp.media = {"items": getattr(telemetry, self.buffer_name).query(query["limit"], query.get("since_ms"))}


@hookimpl
def startup(host: Any) -> None:
    host.services[PROGRAM_TELEMETRY] = ProgramTelemetry(host.clock)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return [
        Route("/v1/display/navigation", NavigationResource(host), {
            "POST": Operation(NAVIGATION_CONTROL, "move the slide program or the ticker back or forward",
                              body=NavigationBody, response=NavigationResponse, status=202, tags=["display"]),
        }, db_session=False),
        Route("/v1/telemetry/programs", TelemetryResource(host, "programs"), {
            "GET": Operation(TELEMETRY_READ, "recent slide-program changes (newest first)",
                             query=TelemetryQuery, response=ProgramList, tags=["telemetry"]),
        }, db_session=False),
        Route("/v1/telemetry/ticker-programs", TelemetryResource(host, "ticker_programs"), {
            "GET": Operation(TELEMETRY_READ, "recent ticker marquee cycles (newest first)",
                             query=TelemetryQuery, response=TickerProgramList, tags=["telemetry"]),
        }, db_session=False),
    ]


FEATURE = Feature(
    permissions=declare(NAVIGATION_CONTROL, TELEMETRY_READ),
)
