"""Request values every storage backend can hold: PostgreSQL rejects NUL characters in text
and in JSON, and non-finite numbers in JSON, so such values are refused up front (400)."""
from __future__ import annotations

import math
from typing import Any

from marshmallow import ValidationError, fields

from svc_host.rest.schemas import JsonObject
from svc_host.storage import unstorable_text, walk

NUL_MESSAGE = "must not contain NUL characters"
FORMULA_START = frozenset("=+-@\t\r")
"""First characters that make a spreadsheet run a CSV cell as a formula (CSV injection)."""


def storable(value: Any) -> bool:
    """False when ``value`` (or anything nested in it) holds unstorable text or a non-finite number."""
    return not unstorable_text(value) and _finite(value)


def _finite(value: Any) -> bool:
    return not any(isinstance(item, float) and not math.isfinite(item) for item in walk(value))


def no_nul(value: str) -> None:
    """A marshmallow validator for query strings and other text."""
    if "\x00" in value:
        raise ValidationError(NUL_MESSAGE)


def not_blank(value: str) -> None:
    """A marshmallow validator for text a required storage column holds: the storage strips
    whitespace (any Unicode space, U+0085 and U+00A0 included) and refuses what strips to nothing."""
    if not value.strip():
        raise ValidationError("must not be empty or only whitespace")


class Text(fields.String):
    """A string without NUL characters."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        result = super()._deserialize(value, attr, data, **kwargs)
        if "\x00" in result:
            raise ValidationError(NUL_MESSAGE)
        return result


class StorableJsonObject(JsonObject):
    """A JSON object (or a string holding one) with no NUL characters and only finite numbers."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict:
        result = super()._deserialize(value, attr, data, **kwargs)
        if not storable(result):
            raise ValidationError("must not contain NUL characters or non-finite numbers")
        return result


def spreadsheet_text(text: str) -> str:
    """``text`` for a CSV cell a person opens in a spreadsheet: a leading ``'`` when its first
    character (:data:`FORMULA_START`) would make the spreadsheet run it as a formula."""
    return "'" + text if text[:1] in FORMULA_START else text
