"""Manual curator entries (spec 4.5): photos, videos, jokes, trivia and calendar events.

Rows get provenance ``manual_entry``. Uploaded bytes are checked for what they are
(``media_check``) and stored as blobs; the answer is 201 ``{id}`` (plus ``blob_key``).
"""
from __future__ import annotations

import base64
import binascii
import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from builtin_plugins.common.text import Text
from builtin_plugins.common.content import MANUAL_ENTRY, category_exists, content_model_present
from builtin_plugins.common.timezone import display_zone
from builtin_plugins.manual_entries.media_check import (
    PHOTO_EXTENSIONS,
    PHOTO_TYPES,
    VIDEO_EXTENSIONS,
    MediaError,
    check_image,
    check_video,
)
from hookspecs import Operation, Route, hookimpl
from svc_host.http.errors import ApiError
from svc_host.permissions import CURATOR_WRITE

MiB = 1024 * 1024
MAX_PHOTO_BYTES = 8 * MiB
MAX_VIDEO_BYTES = 50 * MiB
JSON_ALLOWANCE = 64 * 1024  # other fields and JSON punctuation around the base64 text
MAX_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z


def _base64_cap(decoded: int) -> int:
    """Request-body cap for ``decoded`` bytes sent as base64 (with line breaks) inside JSON."""
    encoded = (decoded + 2) // 3 * 4
    return encoded + encoded // 38 + JSON_ALLOWANCE


class IdSchema(Schema):
    id = Text(required=True)


class BlobIdSchema(IdSchema):
    blob_key = Text(required=True)


TEXT = validate.Length(min=1, max=4000)
OPTION = validate.Length(min=1, max=1000)


class PhotoBody(Schema):
    category = Text(required=True, validate=validate.Length(min=1, max=64))
    bytes_base64 = Text(required=True, validate=validate.Length(min=1))
    content_type = Text(required=True, validate=validate.OneOf(sorted(PHOTO_TYPES)))
    alt_text = Text(validate=validate.Length(max=2000))
    photographer_name = Text(validate=validate.Length(max=500))


class VideoBody(PhotoBody):
    content_type = Text(required=True, validate=validate.OneOf(sorted(VIDEO_EXTENSIONS)))
    duration_seconds = fields.Float(required=True, allow_nan=False,
                                    validate=validate.Range(min=0, max=86400, min_inclusive=False))


class JokeBody(Schema):
    category_id = Text(required=True, validate=validate.Length(min=1, max=64))
    setup = Text(required=True, validate=TEXT)
    punchline = Text(required=True, validate=validate.Length(max=4000))


class TriviaBody(Schema):
    category_id = Text(required=True, validate=validate.Length(min=1, max=64))
    question = Text(required=True, validate=TEXT)
    option_a = Text(required=True, validate=OPTION)
    option_b = Text(required=True, validate=OPTION)
    option_c = Text(required=True, validate=OPTION)
    option_d = Text(required=True, validate=OPTION)
    correct_option = Text(required=True, validate=validate.OneOf(["A", "B", "C", "D"]))


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
    start_ms = Instant(required=True)
    end_ms = Instant(required=True)
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


def _require_category(db: Any, field: str, value: str) -> None:
    if not category_exists(db, value):
        raise ApiError(400, "validation_failed", "unknown content category",
                       {field: [f"{value!r} is not a curator category"]})


def _decode(body: dict, limit: int, what: str) -> bytes:
    text = body["bytes_base64"]
    if len(text) > _base64_cap(limit):
        raise ApiError(413, "payload_too_large", f"a {what} may be at most {limit} bytes")
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "validation_failed", "bytes_base64 is not base64",
                       {"bytes_base64": ["must be standard base64"]}) from None
    if len(data) > limit:
        raise ApiError(413, "payload_too_large", f"a {what} may be at most {limit} bytes")
    if not data:
        raise ApiError(400, "validation_failed", "empty upload", {"bytes_base64": ["must not be empty"]})
    return data


def _media_error(exc: MediaError) -> ApiError:
    return ApiError(400, "validation_failed", "the bytes do not match content_type", {"content_type": [str(exc)]})


class MediaUploadResource:
    """A manual photo or video: bytes checked against content_type, stored as a blob, one row."""

    def __init__(self, host: Any, entity: str, kind: str, max_bytes: int, check: Any,
                 extensions: dict[str, str], extra_fields: tuple[str, ...] = ()):
        self.host = host
        self.entity, self.kind, self.max_bytes = entity, kind, max_bytes
        self.check, self.extensions, self.extra_fields = check, extensions, extra_fields

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        db = self.host.db
        _require_category(db, "category", body["category"])
        data = _decode(body, self.max_bytes, self.kind)
        try:
            self.check(data, body["content_type"])
        except MediaError as exc:
            raise _media_error(exc) from None
        key = self.host.blobs.new_key(f"manual/{self.kind}s", self.extensions[body["content_type"]])
        row_id = uuid.uuid4().hex
        getattr(db, self.entity)(
            id=row_id, alt_text=body.get("alt_text", ""), photographer_name=body.get("photographer_name", ""),
            data_provider=MANUAL_ENTRY, media_blob_key=key, category_id=body["category"],
            integration_type=MANUAL_ENTRY, created_at_ms=self.host.clock.now_ms(),
            **{name: body[name] for name in self.extra_fields})
        db.flush()
        self.host.blobs.put(key, data, body["content_type"])
        resp.status = 201
        resp.media = {"id": row_id, "blob_key": key}


class JokeResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        _require_category(self.host.db, "category_id", body["category_id"])
        row_id = uuid.uuid4().hex
        self.host.db.Joke(id=row_id, setup=body["setup"], punchline=body["punchline"],
                          category_id=body["category_id"], integration_type=MANUAL_ENTRY,
                          created_at_ms=self.host.clock.now_ms())
        resp.status = 201
        resp.media = {"id": row_id}


class TriviaResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        body = dict(req.context.body)
        _require_category(self.host.db, "category_id", body["category_id"])
        row_id = uuid.uuid4().hex
        self.host.db.TriviaQuestion(id=row_id, integration_type=MANUAL_ENTRY,
                                    created_at_ms=self.host.clock.now_ms(), **body)
        resp.status = 201
        resp.media = {"id": row_id}


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
        categories = ([body["category_id"]] if "category_id" in body else []) + list(body.get("category_ids", []))
        categories = list(dict.fromkeys(categories))
        for category in categories:
            _require_category(db, "category_ids" if "category_ids" in body else "category_id", category)
        row_id = uuid.uuid4().hex
        event = db.CalendarEvent(id=row_id, title=body["title"], location=body.get("location", ""),
                                 description=body.get("description", ""), source=MANUAL_ENTRY, start_ms=start,
                                 end_ms=end, all_day=body["all_day"], category_id=categories[0])
        for category in categories[1:]:
            db.CalendarEventCategory(event=event, category_id=category)
        resp.status = 201
        resp.media = {"id": row_id}


@hookimpl
def register_routes(host: Any) -> list[Route]:
    if not content_model_present(host.db):
        return []
    tags = ("curator",)

    def post(summary: str, body: type, response: type, max_body: int | None = None) -> dict:
        return {"POST": Operation(CURATOR_WRITE, summary, body=body, response=response, status=201,
                                  max_body=max_body, tags=tags)}

    return [
        Route("/v1/curator/manual/photos", MediaUploadResource(host, "Photo", "photo", MAX_PHOTO_BYTES, check_image,
                                                                  PHOTO_EXTENSIONS),
              post("upload a photo (JPEG, PNG or WebP, at most 8 MiB)", PhotoBody, BlobIdSchema,
                   _base64_cap(MAX_PHOTO_BYTES))),
        Route("/v1/curator/manual/videos", MediaUploadResource(host, "Video", "video", MAX_VIDEO_BYTES, check_video,
                                                                  VIDEO_EXTENSIONS, ("duration_seconds",)),
              post("upload a video (MP4, QuickTime or WebM, at most 50 MiB)", VideoBody, BlobIdSchema,
                   _base64_cap(MAX_VIDEO_BYTES))),
        Route("/v1/curator/manual/jokes", JokeResource(host), post("add a joke", JokeBody, IdSchema)),
        Route("/v1/curator/manual/trivia", TriviaResource(host), post("add a trivia question", TriviaBody, IdSchema)),
        Route("/v1/curator/manual/calendar-events", CalendarEventResource(host),
              post("add a calendar event", CalendarEventBody, IdSchema)),
    ]
