"""``/v1/runtime/signals``: PUT/GET/DELETE one signal, GET every signal (CONTRACT "Runtime signals")."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from hookspecs import AUTHENTICATED, Operation, Route
from hookspecs.services import RUNTIME_SIGNALS, require
from hookspecs.records import Nullable, record
from svc_host.kit.rest import ApiError, EmptySchema, not_found, validation_failed
from builtin_plugins.runtime_signals.store import (
    MAX_TTL_SECONDS,
    SIGNAL_ID,
    VALUE_RULE,
    SignalError,
    check_value,
    valid_id,
)

RUNTIME_SIGNALS_WRITE = "runtime.signals_write"
PUBLISHES = ("runtime_signals",)  # the change-event topic of a signal set or deleted (not of an expiry)


class SignalValue(fields.Field):
    """A boolean, a number or a string of at most 1000 characters (never null, an object or a list)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        try:
            return check_value(value)
        except SignalError as exc:
            raise ValidationError(str(exc)) from None


class SignalPut(Schema):
    value = SignalValue(required=True, metadata={"description": VALUE_RULE})
    ttl_seconds = fields.Integer(strict=True, allow_none=True,
                                 validate=validate.Range(min=1, max=MAX_TTL_SECONDS),
                                 metadata={"description": "seconds until the signal is gone; absent or null: "
                                                          "it stays until deleted or the display restarts"})


SignalSchema = record("SignalSchema", id=fields.String, value=fields.Raw(metadata={"description": VALUE_RULE}),
                      updated_at_ms=fields.Integer, expires_at_ms=Nullable(fields.Integer))


SignalList = record("SignalList", items=fields.List(fields.Nested(SignalSchema)))


class SignalsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = {"items": require(self.host, RUNTIME_SIGNALS).items()}


class SignalResource:
    def __init__(self, host: Any):
        self.host = host

    def on_put(self, req: Any, resp: Any, id: str) -> None:  # noqa: A002
        if not valid_id(id):
            raise validation_failed({"id": [f"signal ids match {SIGNAL_ID.pattern}"]})
        body = req.context.body
        try:
            resp.media = require(self.host, RUNTIME_SIGNALS).put(id, body["value"], body.get("ttl_seconds"))
        except SignalError as exc:
            if exc.field is None:
                raise ApiError(409, "signal_limit_reached", str(exc)) from None
            raise validation_failed({exc.field: [str(exc)]}) from None

    def on_get(self, req: Any, resp: Any, id: str) -> None:  # noqa: A002
        signal = require(self.host, RUNTIME_SIGNALS).get(id) if valid_id(id) else None
        if signal is None:
            raise not_found("signal")
        resp.media = signal

    def on_delete(self, req: Any, resp: Any, id: str) -> None:  # noqa: A002
        if not (valid_id(id) and require(self.host, RUNTIME_SIGNALS).delete(id)):
            raise not_found("signal")
        resp.media = {}


def routes(host: Any) -> list[Route]:
    tags = ("runtime",)
    return [
        Route("/v1/runtime/signals", SignalsResource(host), {
            "GET": Operation(AUTHENTICATED, "every live runtime signal, by id", response=SignalList,
                             tags=tags),
        }, db_session=False),
        Route("/v1/runtime/signals/{id}", SignalResource(host), {
            "PUT": Operation(RUNTIME_SIGNALS_WRITE, "set a runtime signal (replaces its value and expiry)",
                             body=SignalPut, response=SignalSchema, tags=tags, publishes=PUBLISHES),
            "GET": Operation(AUTHENTICATED, "one live runtime signal", response=SignalSchema, tags=tags),
            "DELETE": Operation(RUNTIME_SIGNALS_WRITE, "remove a runtime signal", response=EmptySchema,
                                tags=tags, publishes=PUBLISHES),
        }, db_session=False),
    ]
