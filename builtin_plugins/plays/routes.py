"""``GET /v1/telemetry/plays`` (``telemetry.read``): the plays that started in ``[from_ms, to_ms)``,
oldest first, ``limit`` (1 to 100,000, default 1000) at a time, ``next_cursor`` for the next page
(null on the last). ``screen_id`` and ``kind`` narrow it. ``Accept: text/csv`` answers the same
rows as CSV (a header row, then one row per play), the next page's cursor in the ``Next-Cursor``
header. The rows in the database are all that is served: a play on screen now is written when it ends.
"""
from __future__ import annotations

from typing import Any

import falcon
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from hookspecs import Operation, Route
from hookspecs.permissions import TELEMETRY_READ
from hookspecs.records import Nullable, record

from builtin_plugins.plays.recorder import ID_MAX, KINDS
from builtin_plugins.plays.store import decode_cursor, items, page, to_csv

MAX_LIMIT = 100_000
CSV = "text/csv"
EPOCH_MS = validate.Range(min=0, max=2 ** 53)


class Cursor(fields.String):
    """A ``next_cursor`` of this route, loaded as ``(started_ms, id)``; anything else is refused."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> tuple[int, int]:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return decode_cursor(text)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


class PlaysQuery(Schema):
    from_ms = fields.Integer(load_default=None, validate=EPOCH_MS,
                             metadata={"description": "plays that started at or after (epoch ms)"})
    to_ms = fields.Integer(load_default=None, validate=EPOCH_MS,
                           metadata={"description": "plays that started before (epoch ms)"})
    screen_id = fields.String(load_default=None, validate=validate.Length(min=1, max=ID_MAX))
    kind = fields.String(load_default=None, validate=validate.OneOf(KINDS))
    limit = fields.Integer(load_default=1000, validate=validate.Range(min=1, max=MAX_LIMIT))
    cursor = Cursor(load_default=None, metadata={"description": "next_cursor of the page before (opaque)"})

    @validates_schema
    def _window(self, data: dict, **_kwargs: Any) -> None:
        if data.get("from_ms") is not None and data.get("to_ms") is not None and data["to_ms"] < data["from_ms"]:
            raise ValidationError("must not be before from_ms", "to_ms")


Play = record("Play", screen_id=fields.String, screen_type=fields.String, label=fields.String,
              started_ms=fields.Integer, ended_ms=fields.Integer,
              complete=fields.Boolean(metadata={"description": "it stayed its whole dwell (slides), or was not "
                                                               "cut short (alerts, overlays)"}),
              kind=fields.String(validate=validate.OneOf(KINDS)))
PlayPage = record("PlayPage", items=fields.List(fields.Nested(Play)), next_cursor=Nullable(fields.String))


def wants_csv(req: falcon.Request) -> bool:
    """The client asks for CSV by name, over JSON (``*/*`` and no Accept answer JSON)."""
    accept = (req.accept or "").lower()
    return CSV in accept and req.client_prefers(["application/json", CSV]) == CSV


class PlaysResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = req.context.query
        rows, next_cursor = page(self.host.db, query["limit"], query["from_ms"], query["to_ms"],
                                 query["screen_id"], query["kind"], query["cursor"])
        if wants_csv(req):
            resp.content_type = f"{CSV}; charset=utf-8"
            resp.text = to_csv(rows)
            if next_cursor is not None:
                resp.set_header("Next-Cursor", next_cursor)
            return
        resp.media = {"items": items(rows), "next_cursor": next_cursor}


def routes(host: Any) -> list[Route]:
    return [Route("/v1/telemetry/plays", PlaysResource(host), {
        "GET": Operation(TELEMETRY_READ, "proof of play: the slides, alerts and overlays shown, oldest first "
                                         "(Accept: text/csv for CSV)",
                         query=PlaysQuery, response=PlayPage, tags=["telemetry"],
                         response_alternatives=(CSV,)),
    })]
