"""Calendar events entered by hand (spec 4.5): ``POST /v1/curator/manual/calendar-events``.

Times are epoch milliseconds or ISO 8601 (without an offset: the display timezone); the
categories must be curator categories. The answer is 201 ``{id}``.
"""
from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from hookspecs.content import MANUAL_ENTRY
from svc_host.kit.services import display_zone
from svc_host.kit.rest import ApiError, Text, require_category

MAX_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z


# what Instant takes, for /v1/openapi.json (clients draw their forms from it)
INSTANT_SCHEMA = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_MS, "description": "epoch milliseconds"},
                            {"type": "string", "format": "date-time",
                             "description": "ISO 8601; without an offset: the display's time zone"}]}


class Instant(fields.Field):
    """Epoch milliseconds (integer) or an ISO 8601 string; kept raw, resolved by the responder."""

    default_error_messages = {"invalid": "must be epoch milliseconds or an ISO 8601 date-time"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise self.make_error("invalid")
        if isinstance(value, int) and not 0 <= value <= MAX_EPOCH_MS:
            raise ValidationError("must be between 0 and 253402300799999")
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value.strip())
            except ValueError:
                raise self.make_error("invalid") from None
        return value


class CalendarEventBody(Schema):
    title = Text(required=True, validate=validate.Length(min=1, max=2000))
    start_ms = Instant(required=True, metadata=INSTANT_SCHEMA)
    end_ms = Instant(required=True, metadata=INSTANT_SCHEMA)
    all_day = fields.Boolean(load_default=False)
    category_id = Text(validate=validate.Length(min=1, max=64))
    category_ids = fields.List(Text(validate=validate.Length(min=1, max=64)),
                               validate=validate.Length(min=1, max=32))
    location = Text(validate=validate.Length(max=2000))
    description = Text(validate=validate.Length(max=20000))

    @validates_schema
    def _category(self, data: dict, **kwargs: Any) -> None:
        if "category_id" not in data and "category_ids" not in data:
            raise ValidationError({"category_id": ["send category_id or category_ids"]})


def to_epoch_ms(value: Any, zone: ZoneInfo, field: str) -> int:
    """Epoch ms from an integer or an ISO 8601 string (no offset: the display timezone)."""
    if isinstance(value, int):
        return value
    moment = datetime.fromisoformat(value.strip())
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    try:
        ms = int(moment.timestamp() * 1000)
    except (OverflowError, ValueError, OSError):
        ms = -1
    if not 0 <= ms <= MAX_EPOCH_MS:
        raise ApiError(400, "validation_failed", "time out of range", {field: ["must be after 1970-01-01"]})
    return ms


class CalendarEventResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        db = self.host.db
        zone = display_zone(self.host)
        start = to_epoch_ms(body["start_ms"], zone, "start_ms")
        end = to_epoch_ms(body["end_ms"], zone, "end_ms")
        if end < start:
            raise ApiError(400, "validation_failed", "the event ends before it starts",
                           {"end_ms": ["must not be before start_ms"]})
        given = ([body["category_id"]] if "category_id" in body else []) + list(body.get("category_ids", []))
        categories = list(dict.fromkeys(given))
        for category in categories:
            field = "category_ids" if "category_ids" in body else "category_id"
            require_category(self.host, field, category)
        row_id = uuid.uuid4().hex
        event = db.CalendarEvent(id=row_id, title=body["title"], location=body.get("location", ""),
                                 description=body.get("description", ""), source=MANUAL_ENTRY, start_ms=start,
                                 end_ms=end, all_day=body["all_day"], category_id=categories[0])
        for category in categories[1:]:
            db.CalendarEventCategory(event=event, category_id=category)
        resp.status = 201
        resp.media = {"id": row_id}
