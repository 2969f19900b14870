"""JSON Schema (draft 2020-12) building blocks for type authors.

A screen, ticker, overlay or integration type's ``config_schema`` is a JSON Schema; these
helpers write the common pieces the same way everywhere (colours, ids, time zones, closed
objects with a title). Builtins and third-party plugins use them alike.
"""
from __future__ import annotations

from typing import Any

from hookspecs.formatting import TIME_PRESETS

DIALECT = "https://json-schema.org/draft/2020-12/schema"

HEX_COLOR: dict[str, Any] = {"type": "string", "pattern": "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$"}
ID_REF: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 128,
                          "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]*$"}
SLUG: dict[str, Any] = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$"}
TEMPERATURE_UNIT: dict[str, Any] = {"enum": ["c", "f"]}
DATE_ORDER: dict[str, Any] = {"enum": ["mdy", "dmy", "ymd"]}
TIME_ZONE: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 64,
                             "pattern": "^[A-Za-z][A-Za-z0-9_+\\-]*(?:/[A-Za-z0-9_+\\-]+)*$"}
MESSAGES: dict[str, Any] = {"type": "array", "maxItems": 50,
                            "items": {"type": "string", "minLength": 1, "maxLength": 280}}
BLOB_KEY: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 512}


def text(max_length: int, min_length: int = 0) -> dict[str, Any]:
    return {"type": "string", "minLength": min_length, "maxLength": max_length}


def integer(minimum: int, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def number(minimum: float, maximum: float) -> dict[str, Any]:
    return {"type": "number", "minimum": minimum, "maximum": maximum}


def boolean() -> dict[str, Any]:
    return {"type": "boolean"}


def array(items: dict[str, Any], max_items: int, min_items: int = 0, unique: bool = True) -> dict[str, Any]:
    schema = {"type": "array", "items": items, "minItems": min_items, "maxItems": max_items}
    if unique:
        schema["uniqueItems"] = True
    return schema


def enum(*values: Any) -> dict[str, Any]:
    return {"enum": list(values)}


def obj(title: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed object schema (``additionalProperties: false``) with a title."""
    schema: dict[str, Any] = {
        "$schema": DIALECT,
        "title": title,
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


# -- pieces of many overlay and slide types ----------------------------------------------------

TIME_FORMAT_PRESET: dict[str, Any] = {"enum": list(TIME_PRESETS)}
"""A time format preset of :data:`hookspecs.formatting.TIME_PRESETS` (``24h_hm`` ...)."""
POSITION = enum("top_left", "top_right", "bottom_left", "bottom_right", "center")
"""Where a corner overlay sits."""
COLORS = array(HEX_COLOR, 12, unique=False)
DENSITY = number(0.1, 5)
SPEED = number(0.1, 5)
OPACITY = number(0, 1)
SCALE = number(0.25, 4)
INTERVAL = number(1, 3600)
"""Seconds between two messages of a phrase-based overlay."""
