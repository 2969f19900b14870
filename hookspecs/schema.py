"""JSON Schema (draft 2020-12) building blocks for type authors.

A screen, ticker, overlay or integration type's ``config_schema`` is a JSON Schema; these
helpers write the common pieces the same way everywhere (colours, ids, time zones, closed
objects with a title). Builtins and third-party plugins use them alike.
"""
from __future__ import annotations

from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"

HEX_COLOR: dict[str, Any] = {"type": "string", "pattern": "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$"}
ID_REF: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 128,
                          "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]*$"}
SLUG: dict[str, Any] = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$"}
ENUM_TITLES = "x-enum-titles"
"""An enum's values in words (``{"top_left": "Top left"}``), an annotation beside ``enum`` that
JSON Schema ignores and the controller's web app shows in place of the values (docs/plugins.md)."""
TEMPERATURE_UNIT: dict[str, Any] = {"enum": ["c", "f"], ENUM_TITLES: {"c": "°C", "f": "°F"}}
DATE_ORDER: dict[str, Any] = {"enum": ["mdy", "dmy", "ymd"],
                              ENUM_TITLES: {"mdy": "Month day year", "dmy": "Day month year", "ymd": "Year month day"}}
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


def enum(*values: Any, titles: dict[str, str] | None = None) -> dict[str, Any]:
    """``values``, with their words (:data:`ENUM_TITLES`) when given."""
    schema: dict[str, Any] = {"enum": list(values)}
    if titles:
        schema[ENUM_TITLES] = dict(titles)
    return schema


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

TIME_PRESET_TITLES: dict[str, str] = {
    "24h_hms": "24 h with seconds (14:05:09)", "24h_hm": "24 h (14:05)",
    "12h_hms_tt": "12 h with seconds and AM/PM (2:05:09 PM)", "12h_hm_tt": "12 h with AM/PM (2:05 PM)",
    "12h_hms": "12 h with seconds (2:05:09)", "12h_hm": "12 h (2:05)"}
TIME_FORMAT_PRESET: dict[str, Any] = enum(*TIME_PRESET_TITLES, titles=TIME_PRESET_TITLES)
"""A time format preset (``24h_hm`` ...): the host kit's ``svc_host.kit.formatting.TIME_PRESETS``
writes each."""
POSITION = enum("top_left", "top_right", "bottom_left", "bottom_right", "center", titles={
    "top_left": "Top left", "top_right": "Top right", "bottom_left": "Bottom left", "bottom_right": "Bottom right",
    "center": "Centre"})
"""Where a corner overlay sits."""
COLORS = array(HEX_COLOR, 12, unique=False)
DENSITY = number(0.1, 5)
SPEED = number(0.1, 5)
OPACITY = number(0, 1)
SCALE = number(0.25, 4)
INTERVAL = number(1, 3600)
"""Seconds between two messages of a phrase-based overlay."""
