"""marshmallow pieces shared by many routes: pagination, JSON-or-string objects, slugs."""
from __future__ import annotations

import json
import re
from typing import Any

from marshmallow import Schema, ValidationError, fields, pre_load, validate

from svc_host.storage import unstorable_text

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CLIENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")

slug = validate.Regexp(SLUG, error="must be a lowercase slug: a-z, 0-9, '_' or '-', at most 64 characters")
client_id = validate.Regexp(CLIENT_ID, error="must be 1-128 characters of letters, digits, '.', '_', ':' or '-'")


class PageQuery(Schema):
    """``limit`` (1-100, default 25) and ``offset`` (default 0) of spec 4.6 / 8."""

    limit = fields.Integer(load_default=25, validate=validate.Range(min=1, max=100))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=10_000_000))


class JsonObject(fields.Field):
    """A JSON object given as an object or as a string holding one (``config_json``)."""

    default_error_messages = {"invalid": "must be a JSON object or a string holding one"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict:
        if isinstance(value, str):
            from svc_host.http.app import MAX_JSON_DEPTH, json_depth

            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                raise self.make_error("invalid") from None
            if json_depth(value) > MAX_JSON_DEPTH:
                raise self.make_error("invalid")
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        if unstorable_text(value):
            raise ValidationError("contains a NUL character or an unpaired surrogate")
        return value

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class BooleanText(fields.Boolean):
    """A query-string boolean: only ``true`` / ``false`` (and 1/0)."""

    truthy = {"true", "1", True}
    falsy = {"false", "0", False}


class StrictBoolean(fields.Boolean):
    """JSON ``true``/``false`` only (not 1, 0 or strings)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def require_some(data: dict, fields_: list[str]) -> None:
    if not any(name in data for name in fields_):
        raise ValidationError({"_schema": [f"send at least one of: {', '.join(fields_)}"]})


class StorableSchema(Schema):
    """A body/query schema that turns text no database can store into a 400, not a 500.

    Every string anywhere in the input (keys and values of nested objects included) must
    be free of NUL characters and unpaired surrogates (``"\\ud800"`` is valid JSON).
    """

    @pre_load
    def _reject_unstorable_text(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, dict):
            bad = {str(k)[:64].encode("utf-8", "replace").decode("utf-8"): ["contains a NUL character or an "
                                                                             "unpaired surrogate"]
                   for k, v in data.items() if unstorable_text(k) or unstorable_text(v)}
            if bad:
                raise ValidationError(bad)
        return data
