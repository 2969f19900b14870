"""Photos and videos uploaded by hand (spec 4.5): ``POST /v1/curator/manual/{photos,videos}``.

The bytes come base64 in JSON, are checked for what they claim to be (``media_check``) and
stored as a blob; the answer is 201 ``{id, blob_key}``.
"""
from __future__ import annotations

import base64
import binascii
import uuid
from typing import Any

from marshmallow import Schema, fields, validate

from builtin_plugins.media.media_check import PHOTO_TYPES, VIDEO_EXTENSIONS, MediaError
from hookspecs.content import MANUAL_ENTRY
from svc_host.kit.rest import ApiError, IdSchema, Text, require_category

MiB = 1024 * 1024
MAX_PHOTO_BYTES = 8 * MiB
MAX_VIDEO_BYTES = 50 * MiB
JSON_ALLOWANCE = 64 * 1024  # other fields and JSON punctuation around the base64 text


def base64_cap(decoded: int) -> int:
    """Request-body cap for ``decoded`` bytes sent as base64 (with line breaks) inside JSON."""
    encoded = (decoded + 2) // 3 * 4
    return encoded + encoded // 38 + JSON_ALLOWANCE


class BlobIdSchema(IdSchema):
    blob_key = Text(required=True)


class PhotoBody(Schema):
    category = Text(required=True, validate=validate.Length(min=1, max=64))
    # x-max-bytes: the decoded size the route takes (413 beyond), for clients to check a file first
    bytes_base64 = Text(required=True, validate=validate.Length(min=1),
                        metadata={"x-max-bytes": MAX_PHOTO_BYTES, "description": "the file in base64"})
    content_type = Text(required=True, validate=validate.OneOf(sorted(PHOTO_TYPES)))
    alt_text = Text(validate=validate.Length(max=2000))
    photographer_name = Text(validate=validate.Length(max=500))


class VideoBody(PhotoBody):
    bytes_base64 = Text(required=True, validate=validate.Length(min=1),
                        metadata={"x-max-bytes": MAX_VIDEO_BYTES, "description": "the file in base64"})
    content_type = Text(required=True, validate=validate.OneOf(sorted(VIDEO_EXTENSIONS)))
    duration_seconds = fields.Float(required=True, allow_nan=False,
                                    validate=validate.Range(min=0, max=86400, min_inclusive=False))


def _decode(body: dict, limit: int, what: str) -> bytes:
    text = body["bytes_base64"]
    if len(text) > base64_cap(limit):
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
    return ApiError(400, "validation_failed", "the bytes do not match content_type",
                    {"content_type": [str(exc)]})


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
        require_category(self.host, "category", body["category"])
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
