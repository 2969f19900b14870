"""Folder plugin templates: a JSON layout, validated at startup and filled with a row's ``data``.

A template is data, never code: a list of blocks (``title``, ``text``, ``list``, ``image``,
``qr``, ``rect``, ``confetti``) placed in boxes of the slide, whose texts carry ``{field}``
placeholders. Filling one looks fields up in ``data`` (``{a.b}`` in nested objects, ``{a.0}``
in lists) and pastes their text: no expressions, no format specifications, no attribute
access (``str.format`` is never used: ``{0.__class__}`` is just an unknown field name), so
nothing a plugin or a screen row writes runs in the display process. Such a file can be
checked completely before it is used: :data:`TEMPLATE_SCHEMA` (JSON Schema draft 2020-12,
``jsonschema``) at startup, by :func:`load_template`, which the manifest loader calls for
every template a manifest names.

This module does not import Kivy: :func:`fill_blocks` runs in a renderer's ``prepare`` step
(loader thread); ``display.py`` draws the result. ``docs/folder-plugins.md`` is the
reference (its copy of the schema is checked against this one by a test).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema

from builtin_plugins.folder_plugins.jsonfile import error_text, first_error, read_json, where
from hookspecs.render import TITLE_BOX

TEMPLATE_MAX_BYTES = 64 * 1024
MAX_TEXT = 2000
MAX_FILLED = 4000
"""A filled text is cut there (a label's texture must stay within what the GPU takes)."""
FIELD = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*"
"""A placeholder's field: a name, then ``.key`` or ``.index`` steps into nested objects and lists."""
COLOR_ROLES = ("text", "accent1", "accent2", "accent3", "accent4", "primary_bg", "secondary_fg",
               "secondary_bg")
"""Theme colours a template may name instead of a ``#rrggbb`` value (``docs/folder-plugins.md``)."""
SHAPES = ("rect", "circle", "heart", "star", "snowflake", "leaf")

_TEXT = {"type": "string", "maxLength": MAX_TEXT, "pattern": rf"^(?:[^{{}}]|\{{\{{|\}}\}}|\{{{FIELD}\}})*$",
         "description": "text with {field} placeholders; {{ and }} are literal braces"}
_HEX = {"type": "string", "pattern": "^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$"}
_DEFS: dict[str, Any] = {
    "text": _TEXT,
    "color": {"anyOf": [{"enum": list(COLOR_ROLES)}, _HEX],
              "description": "a theme colour or #rgb, #rgba, #rrggbb, #rrggbbaa"},
    "box": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "number", "minimum": 0, "maximum": 1},
            "description": "[x, y, width, height] as fractions of the slide, from its top left corner"},
    "size": {"type": "number", "minimum": 8, "maximum": 400, "description": "font size in pixels at 1080 px height"},
    "align": {"enum": ["left", "center", "right"]},
    "file": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[^\\u0000]*$",
             "description": "an image file inside the plugin's folder (PNG, JPEG, ...)"},
}
TEXT, COLOR, SIZE, ALIGN = ({"$ref": f"#/$defs/{name}"} for name in ("text", "color", "size", "align"))
_DEFS["optional"] = {"type": "boolean", "description": "skip the block when a field it names is missing "
                                                      "(else that is an error: the fallback panel shows)"}
_COMMON = {"type": {}, "box": {"$ref": "#/$defs/box"}, "optional": {"$ref": "#/$defs/optional"}}


def _block(kind: str, required: tuple[str, ...], **properties: Any) -> dict[str, Any]:
    """The keys of a block of type ``kind`` (those of :data:`_COMMON` too, unless given as None)."""
    keys = {key: value for key, value in {**_COMMON, **properties}.items() if value is not None}
    return {"if": {"required": ["type"], "properties": {"type": {"const": kind}}},
            "then": {"required": list(required), "additionalProperties": False, "properties": keys}}


TEMPLATE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "svc-display folder plugin template",
    "type": "object",
    "required": ["blocks"],
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "maxLength": 512},
        "description": {"type": "string", "maxLength": 1000},
        "background": {"anyOf": [COLOR, {"type": "array", "minItems": 1, "maxItems": 4, "items": COLOR}],
                       "description": "slides only: a colour or a gradient (top to bottom); default the theme's"},
        "blocks": {
            "type": "array", "minItems": 1, "maxItems": 50,
            "description": "drawn in order, each over the ones before",
            "items": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"enum": ["title", "text", "list", "image", "qr", "rect", "confetti"]}},
                "allOf": [
                    _block("title", ("text",), text=TEXT, size=SIZE, color=COLOR, align=ALIGN),
                    _block("text", ("text", "box"), text=TEXT, size=SIZE, color=COLOR, align=ALIGN,
                           valign={"enum": ["top", "middle"]}, bold={"type": "boolean"}),
                    _block("list", ("items", "box"), items={"type": "array", "minItems": 1, "maxItems": 50,
                                                            "items": TEXT},
                           size=SIZE, color=COLOR, marker={"enum": ["bullet", "number", "letter", "none"]}),
                    _block("image", ("box",), blob=TEXT, file={"$ref": "#/$defs/file"},
                           fit={"enum": ["contain", "cover"]}),
                    _block("qr", ("payload", "box"), payload=TEXT, color=COLOR, background=COLOR),
                    _block("rect", ("box", "color"), color=COLOR),
                    _block("confetti", (), box=None, count={"type": "integer", "minimum": 1, "maximum": 300},
                           shapes={"type": "array", "minItems": 1, "maxItems": len(SHAPES),
                                   "items": {"enum": list(SHAPES)}},
                           colors={"type": "array", "minItems": 1, "maxItems": 8, "items": COLOR},
                           speed={"type": "number", "minimum": 0.1, "maximum": 5}),
                    {"if": {"required": ["type"], "properties": {"type": {"const": "image"}}},
                     "then": {"oneOf": [{"required": ["blob"]}, {"required": ["file"]}]}},
                ],
            },
        },
    },
    "$defs": _DEFS,
}
_VALIDATOR = jsonschema.Draft202012Validator(TEMPLATE_SCHEMA)
_PLACEHOLDER = re.compile(rf"\{{\{{|\}}\}}|\{{({FIELD})\}}")


class TemplateError(ValueError):
    """Why a template cannot be used (one line, no traceback)."""


def _error_text(error: jsonschema.ValidationError) -> str:
    """:func:`.jsonfile.error_text`, said plainly for the template's own rules."""
    if error.validator == "oneOf" and list(error.absolute_path)[:1] == ["blocks"]:
        return f"{where(error)}: an image block needs one of 'blob' and 'file'"
    if error.validator == "pattern" and error.schema == _TEXT:
        return f"{where(error)}: {error.instance!r} has a brace that is not part of a {{field}} placeholder " \
               "(write {{ or }} for a brace)"
    if error.validator == "pattern" and error.schema == _HEX:
        return f"{where(error)}: {error.instance!r} is not a colour (#rrggbb or one of {', '.join(COLOR_ROLES)})"
    return error_text(error)


def load_template(folder: Path, path: Path) -> dict[str, Any]:
    """The template in ``path`` (a file of the plugin's ``folder``), validated; :class:`TemplateError`
    with the first reason it is refused. Image ``file`` blocks must name files inside ``folder``."""
    try:
        template = read_json(path, TEMPLATE_MAX_BYTES)
    except ValueError as exc:
        raise TemplateError(str(exc)) from None
    error = first_error(_VALIDATOR, template)
    if error is not None:
        raise TemplateError(_error_text(error))
    root = folder.resolve()
    for index, block in enumerate(template["blocks"]):
        if "file" in block:
            target = (folder / block["file"]).resolve()
            place = f"/blocks/{index}/file: {block['file']!r}"
            if Path(block["file"]).is_absolute() or not target.is_relative_to(root):
                raise TemplateError(f"{place} is outside the plugin's folder")
            if not target.is_file():
                raise TemplateError(f"{place} is not a file in the plugin's folder")
    return template


# -- filling (loader thread) --------------------------------------------------------------------
class MissingField(TemplateError):
    """A placeholder names a field ``data`` does not have (an ``optional`` block is then skipped)."""


def field_text(data: Any, name: str) -> str:
    """The text of the field ``name`` (``a.b.0``) of ``data``: strings as they are, numbers in
    decimal, booleans ``true``/``false``; :class:`MissingField` when absent or null,
    :class:`TemplateError` when it is an object or a list."""
    value = data
    for step in name.split("."):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            raise MissingField(f"the data has no field {name!r}")
    if value is None:
        raise MissingField(f"the data has no field {name!r}")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TemplateError(f"the data field {name!r} is {'a list' if isinstance(value, list) else 'an object'}, "
                        "not text")


def fill(text: str, data: Any) -> str:
    """``text`` with each ``{field}`` replaced by :func:`field_text`, ``{{``/``}}`` by a brace."""
    def one(match: re.Match) -> str:
        name = match.group(1)
        return field_text(data, name) if name else match.group(0)[0]

    return _PLACEHOLDER.sub(one, text)[:MAX_FILLED]


_FILLED = ("text", "payload", "blob")


def fill_blocks(template: dict[str, Any], data: Any) -> list[dict[str, Any]]:
    """The template's blocks with their placeholders filled from ``data``; an ``optional`` block
    with a missing field is left out, any other missing field raises :class:`MissingField`."""
    blocks = []
    for block in template["blocks"]:
        try:
            filled = {key: fill(value, data) if key in _FILLED else value for key, value in block.items()}
            if "items" in block:
                filled["items"] = [fill(item, data) for item in block["items"]]
        except MissingField:
            if block.get("optional"):
                continue
            raise
        if block["type"] == "title":
            filled.setdefault("box", list(TITLE_BOX))  # the builtin slides' title band
        blocks.append(filled)
    return blocks
