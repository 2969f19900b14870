"""A plugin's types declared as data: ``types.json`` beside its code.

A feature's slide, ticker, overlay and integration types are records: an id, a label, a
description, a JSON Schema for ``config_json``, an example, and the code that draws or
collects (``"module:attr"``). Written as Python, every feature repeated the same
constructor calls field by field; written as JSON, the catalog is data that reviewers,
translators and tools read without importing the plugin (as Home Assistant's
``services.yaml`` or VS Code's ``contributes``), and the code stays code::

    # my_plugin/types.json
    {
      "screen_types": [
        {"id": "menu", "label": "Menu", "description": "Today's dishes.",
         "renderer": "my_plugin.display:menu",
         "config_schema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
                           "title": "menu", "type": "object", "additionalProperties": false,
                           "properties": {"color": {"$ref": "svc:HEX_COLOR"}}},
         "example_config": {"color": "#ffcc00"}}
      ],
      "integration_types": [
        {"id": "menu_api", "label": "Menu API", "family": "menu",
         "collect": "my_plugin.collect:collect", "config_schema": {...}, "example_config": {}}
      ]
    }

    # my_plugin/__init__.py
    TYPES = load_types(__name__)
    FEATURE = Feature(screen_types=TYPES.screen_types, integration_types=TYPES.integration_types)

- ``{"$ref": "svc:NAME"}`` anywhere in a schema or example stands for the shared piece
  ``hookspecs.schema.NAME`` (a time zone, a colour, an id ...), copied in when the file is
  read: the schemas the display serves are whole, with no reference left to resolve. Keys
  beside the reference are laid over the copy (``{"$ref": "svc:POSITION", "title": "Corner"}``).
- A field that takes code (``collect``, ``build_items``; ``renderer`` already takes a
  reference) takes ``"module:attr"``, imported at its first call, so reading the catalog
  imports nothing.
- Lists become tuples (the type records are frozen); unknown fields and unknown references
  are refused with the file and the type named.

Written by hand because it is twenty lines over the standard library: JSON Schema's own
``$ref`` would leave references in the served schemas that every controller would have to
resolve.
"""
from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable

from hookspecs import schema as shared
from hookspecs.feature import resolve
from hookspecs.types import IntegrationType, OverlayType, ScreenType, TickerType

KINDS: dict[str, type] = {
    "screen_types": ScreenType,
    "ticker_types": TickerType,
    "overlay_types": OverlayType,
    "integration_types": IntegrationType,
}
CODE_FIELDS = ("collect", "build_items")  # fields that take code: "module:attr", imported at first call
DATA_FIELDS = ("config_schema", "example_config")  # kept as JSON (dicts and lists)
REF_PREFIX = "svc:"


class CatalogError(ValueError):
    """A ``types.json`` that cannot be read as declared."""


@dataclass(frozen=True)
class Catalog:
    screen_types: list[ScreenType]
    ticker_types: list[TickerType]
    overlay_types: list[OverlayType]
    integration_types: list[IntegrationType]


class Code:
    """A ``"module:attr"`` reference called like the function it names (imported at the first
    call, then kept)."""

    def __init__(self, reference: str):
        self.reference = reference
        self._target: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._target is None:
            self._target = resolve(self.reference)
        return self._target(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Code) and other.reference == self.reference

    def __hash__(self) -> int:
        return hash(self.reference)

    def __repr__(self) -> str:
        return f"Code({self.reference!r})"


def load_types(package: str, name: str = "types.json") -> Catalog:
    """The catalog in ``name`` of ``package`` (a package's ``__name__``, or a module's
    ``__package__``)."""
    where = f"{package}/{name}"
    try:
        data = json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{where}: {exc}") from None
    unknown = set(data) - set(KINDS)
    if unknown:
        raise CatalogError(f"{where}: unknown sections {sorted(unknown)}; known: {sorted(KINDS)}")
    return Catalog(**{kind: [_record(where, cls, item) for item in data.get(kind, [])]
                      for kind, cls in KINDS.items()})


def _record(where: str, cls: type, item: dict[str, Any]) -> Any:
    names = {field.name for field in dataclasses.fields(cls)}
    label = f"{where}: {item.get('id', '?')}"
    unknown = set(item) - names
    if unknown:
        raise CatalogError(f"{label}: unknown fields {sorted(unknown)}")
    values: dict[str, Any] = {}
    for key, value in item.items():
        if key in DATA_FIELDS:
            values[key] = expand(value, label)
        elif key in CODE_FIELDS and value is not None:
            if not isinstance(value, str) or ":" not in value:
                raise CatalogError(f"{label}: {key}: {value!r} is not a 'module:attr' reference")
            values[key] = Code(value)
        elif isinstance(value, list):
            values[key] = tuple(value)
        else:
            values[key] = value
    try:
        return cls(**values)
    except TypeError as exc:
        raise CatalogError(f"{label}: {exc}") from None


def expand(value: Any, label: str = "") -> Any:
    """``value`` with every ``{"$ref": "svc:NAME"}`` replaced by a copy of
    ``hookspecs.schema.NAME``."""
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            piece = getattr(shared, ref[len(REF_PREFIX):], None)
            if not isinstance(piece, dict):
                raise CatalogError(f"{label}: {ref} names no shared schema piece of hookspecs.schema")
            # keys beside the reference (a title, say) are laid over the copy
            return {**copy.deepcopy(piece), **{key: expand(item, label) for key, item in value.items() if key != "$ref"}}
        return {key: expand(item, label) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item, label) for item in value]
    return value
