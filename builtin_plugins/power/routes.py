"""``/v1/display/power`` (CONTRACT "Display power"): read the state, set the schedule, override."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from builtin_plugins.power import schedule as sched
from builtin_plugins.power.backends import BACKENDS, PANEL_STATES
from builtin_plugins.power.controller import TOPIC
from hookspecs import AUTHENTICATED, Operation, Route
from hookspecs.services import DISPLAY_POWER, SETTINGS, require, service
from hookspecs.records import Nullable, record
from svc_host.kit.rest import ApiError, validation_failed

DISPLAY_POWER_PERMISSION = "display.power"
MAX_UNTIL_MS = 2 ** 53


Window = record("Window", days=fields.List(fields.String(validate=validate.OneOf(sched.DAYS))),
                on=fields.String(metadata={"description": "HH:MM (24 h), display time zone"}),
                off=fields.String(metadata={"description": "HH:MM; earlier than on: runs past midnight"}))


Override = record("Override", state=fields.String(validate=validate.OneOf(("on", "off"))),
                  until_ms=Nullable(fields.Integer))


PowerStatus = record("PowerStatus", state=fields.String(validate=validate.OneOf(("on", "off"))),
                     reason=fields.String(validate=validate.OneOf(("schedule", "manual", "default"))),
                     backend=fields.String(validate=validate.OneOf(BACKENDS)), backend_available=fields.Boolean,
                     panel_state=fields.String(validate=validate.OneOf(PANEL_STATES)),
                     next_change_at_ms=Nullable(fields.Integer), schedule=fields.List(fields.Nested(Window)),
                     override=Nullable(fields.Nested(Override)))


class SchedulePut(Schema):
    # checked by schedule.validate, which names the bad item (/schedule/1/off) as the CONTRACT asks
    schedule = fields.Raw(required=True, metadata=sched.JSON_SCHEMA)


class PowerPost(Schema):
    state = fields.String(required=True, validate=validate.OneOf(("on", "off", "auto")))
    until_ms = fields.Integer(strict=True, allow_none=True,
                              metadata={"description": "epoch ms; absent: until the next scheduled change"})


def writable(host: Any) -> Any:
    """The power service, when the schedule and the override can be stored (the settings plugin runs)."""
    if service(host, SETTINGS) is None:
        raise ApiError(503, "power_settings_unavailable",
                       "the schedule and the override are settings: the settings plugin is disabled")
    return require(host, DISPLAY_POWER)


class PowerResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = require(self.host, DISPLAY_POWER).status()

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        power = writable(self.host)
        until = body.get("until_ms")
        if body["state"] == "auto" and until is not None:
            raise validation_failed({"until_ms": ["not with state auto (auto drops the override)"]})
        if until is not None and not power.now() < until <= MAX_UNTIL_MS:
            raise validation_failed({"until_ms": ["must be a future time in epoch milliseconds"]})
        resp.media = power.save_override(body["state"], until, explicit="until_ms" in body)


class ScheduleResource:
    def __init__(self, host: Any):
        self.host = host

    def on_put(self, req: Any, resp: Any) -> None:
        try:
            schedule = sched.validate(req.context.body["schedule"])
        except sched.ScheduleError as exc:
            raise ApiError(400, "invalid_power_schedule", f"{exc.pointer}: {exc}",
                           {"pointer": exc.pointer, "reason": str(exc)}) from None
        resp.media = writable(self.host).save_schedule(schedule)


def routes(host: Any) -> list[Route]:
    tags = ("display",)
    return [
        Route("/v1/display/power", PowerResource(host), {
            "GET": Operation(AUTHENTICATED, "the display's power state, schedule and override",
                             response=PowerStatus, tags=tags),
            "POST": Operation(DISPLAY_POWER_PERMISSION, "turn the display on or off now (a manual override), "
                              "or back to its schedule (state auto)", body=PowerPost, response=PowerStatus,
                              tags=tags, publishes=(TOPIC,)),
        }),
        Route("/v1/display/power/schedule", ScheduleResource(host), {
            "PUT": Operation(DISPLAY_POWER_PERMISSION, "replace the weekly power schedule", body=SchedulePut,
                             response=PowerStatus, tags=tags, publishes=(TOPIC,)),
        }),
    ]
