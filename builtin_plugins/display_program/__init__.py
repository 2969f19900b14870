"""Navigation and program telemetry of the canvas (the canvas itself is the host's compositor,
drawing the layers the feature plugins contribute: ``svc_host/display``).

- ``startup`` publishes the telemetry ring buffers (``host.services[PROGRAM_TELEMETRY]``),
  where the slides and marquee layers record their lines.
- ``POST /v1/display/navigation`` (``navigation.control``) posts ``navigate`` on the
  display bus (the compositor hands it to the layer of that surface); 503
  ``navigation_unavailable`` without a bus (headless).
- ``GET /v1/display/screen`` (any valid key): what the screen shows (CONTRACT "What the screen
  shows"): ``{state, current, skipped, failing}`` as the canvas's compositor publishes it
  (``host.services[SCREEN_REPORT]``, read under its lock: this never touches Kivy, and the canvas
  never waits for it); ``headless`` without a canvas, ``starting`` until it has drawn. Its ``sync``
  is ``{group, program_hash, cycle_ms}`` (displays in step: the screens service's ``sync()``, read
  from the database, the same with or without a canvas); ``group`` is ``""`` when the display is
  in no sync group (``program_hash`` and ``cycle_ms`` still describe its program).
- ``GET /v1/telemetry/programs`` and ``/v1/telemetry/ticker-programs``
  (``telemetry.read``): newest first, ``limit`` 1-500 (default 10), optional ``since_ms``.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import AUTHENTICATED, Feature, Operation, Route, hookimpl
from hookspecs.services import DISPLAY, DISPLAY_MODE, PROGRAM_TELEMETRY, SCREEN_REPORT, SCREENS, service
from builtin_plugins.display_program.telemetry import CAPACITY, ProgramTelemetry
from svc_host.kit.rest import ApiError
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
    name = fields.String()
    dwell_seconds = fields.Float()


ProgramLine = record("ProgramLine", at_ms=fields.Integer, reason=fields.String,
                     slides=fields.List(fields.Nested(SlideLine)))


ProgramList = record("ProgramList", items=fields.List(fields.Nested(ProgramLine)))


TickerItem = record("TickerItem", ordinal=fields.Integer, kind=fields.String, body=fields.String)


TickerProgramLine = record("TickerProgramLine", at_ms=fields.Integer, items=fields.List(fields.Nested(TickerItem)))


TickerProgramList = record("TickerProgramList", items=fields.List(fields.Nested(TickerProgramLine)))


SCREEN_STATES = ("showing", "nothing_to_show", "off", "starting", "headless")
CurrentSlide = record("CurrentSlide", screen_id=fields.Raw, screen_type=fields.String,
                      since_ms=fields.Integer(metadata={"description": "when it came on screen"}))
SkippedSlide = record("SkippedSlide", screen_id=fields.Raw, screen_type=fields.String,
                      reason=fields.String(validate=validate.OneOf(("type_unavailable", "renderer_failed"))),
                      message=fields.String)
FailingRenderer = record("FailingRenderer", kind=fields.String(validate=validate.OneOf(("screen", "ticker", "overlay"))),
                         type=fields.String, plugin=fields.String, message=fields.String,
                         count=fields.Integer(metadata={"description": "failures in a row"}),
                         since_ms=fields.Integer(metadata={"description": "the first of them"}))
SyncState = record("SyncState",
                   group=fields.String(metadata={"description": "the sync_group setting; \"\": in no group"}),
                   program_hash=fields.String(metadata={"description": "a hash of what decides the slide cycle (the "
                                                                       "enabled slides' ids, types, order, dwell, "
                                                                       "weight and config): equal on displays with "
                                                                       "the same program"}),
                   cycle_ms=fields.Integer(metadata={"description": "the length of one cycle of the program, ms "
                                                                    "(0: no slide in it)"}))


class ScreenResponse(Schema):
    state = fields.String(required=True, validate=validate.OneOf(SCREEN_STATES),
                          metadata={"description": "off: the display's power; headless: no canvas"})
    current = fields.Nested(CurrentSlide, required=True, allow_none=True,
                            metadata={"description": "the slide on screen (null: none)"})
    skipped = fields.List(fields.Nested(SkippedSlide), required=True,
                          metadata={"description": "enabled slides that cannot be shown now, with why"})
    failing = fields.List(fields.Nested(FailingRenderer), required=True,
                          metadata={"description": "renderers failing now"})
    sync = fields.Nested(SyncState, required=True,
                         metadata={"description": "displays in step: the sync group and what decides the cycle"})


class ScreenResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        report = service(self.host, SCREEN_REPORT)
        screens = service(self.host, SCREENS)
        sync = screens.sync() if screens is not None else {"group": "", "program_hash": "", "cycle_ms": 0}
        if report is not None:
            resp.media = {**report.snapshot(), "sync": sync}
            return
        headless = self.host.display_bus is None or service(self.host, DISPLAY_MODE) == "headless"
        dark = getattr(service(self.host, DISPLAY), "blanked", False)  # dark before its first frame
        state = "headless" if headless else "off" if dark else "starting"
        resp.media = {"state": state, "current": None, "skipped": [], "failing": [], "sync": sync}


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
    host.services[PROGRAM_TELEMETRY] = ProgramTelemetry(host.clock, host)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return [
        Route("/v1/display/navigation", NavigationResource(host), {
            "POST": Operation(NAVIGATION_CONTROL, "move the slide program or the ticker back or forward",
                              body=NavigationBody, response=NavigationResponse, status=202, tags=["display"]),
        }, db_session=False),
        Route("/v1/display/screen", ScreenResource(host), {
            "GET": Operation(AUTHENTICATED, "what the screen shows: the slide on screen, the slides skipped and "
                                            "why, the renderers failing", response=ScreenResponse, tags=["display"]),
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
