"""Every builtin type's config fields carry words for the controller's web app: a ``title`` on
each property and ``x-enum-titles`` naming every value of each enum (docs/plugins.md). The web
app falls back to the key in words for a third-party type that has none; builtins must not."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from hookspecs.schema import ENUM_TITLES
from svc_host.plugins import load_plugins
from svc_host.registries import build_registries

KINDS = ("screen_types", "ticker_types", "overlay_types", "integration_types")


def missing_words(schema: Any, path: str = "") -> Iterator[str]:
    """Where ``schema`` lacks words: a top-level property without a ``title``, an enum (at any
    depth: an array's items too) with a value its ``x-enum-titles`` does not name."""
    if not path and isinstance(schema, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if not (isinstance(sub, dict) and str(sub.get("title") or "").strip()):
                yield f"{name}: no title"
    if isinstance(schema, dict):
        if "enum" in schema:
            titles = schema.get(ENUM_TITLES) or {}
            unnamed = [v for v in schema["enum"] if not str(titles.get(str(v)) or "").strip()]
            if unnamed:
                yield f"{path or '/'}: enum values without {ENUM_TITLES} {unnamed}"
        for key, sub in schema.items():
            if key != ENUM_TITLES:
                yield from missing_words(sub, f"{path}/{key}")
    elif isinstance(schema, list):
        for index, sub in enumerate(schema):
            yield from missing_words(sub, f"{path}/{index}")


def _builtin_types() -> list[tuple[str, str, Any]]:
    plugins = load_plugins()
    registries = build_registries(plugins)
    found = []
    for kind in KINDS:
        registry = getattr(registries, kind)
        for type_id, item in registry.types.items():
            if plugins.info[registry.owner[type_id]].origin == "builtin":
                found.append((kind, type_id, item.config_schema))
    return found


BUILTIN_TYPES = _builtin_types()


def test_every_kind_of_builtin_type_is_checked():
    assert {kind for kind, _, _ in BUILTIN_TYPES} == set(KINDS)


@pytest.mark.parametrize("kind, type_id, schema", BUILTIN_TYPES,
                         ids=[f"{kind}:{type_id}" for kind, type_id, _ in BUILTIN_TYPES])
def test_every_builtin_config_field_has_a_title_and_every_enum_its_words(kind, type_id, schema):
    assert list(missing_words(schema)) == []


def test_the_check_names_a_field_without_a_title_and_an_enum_without_words():
    schema = {"type": "object", "properties": {
        "fit": {"enum": ["contain", "cover"], "title": "Fit", ENUM_TITLES: {"contain": "Show it whole"}},
        "shapes": {"type": "array", "title": "Shapes", "items": {"enum": ["heart"]}},
        "speed": {"type": "number"},
        "colour": {"type": "string", "title": "Colour"}}}
    assert list(missing_words(schema)) == [
        "speed: no title",
        f"/properties/fit: enum values without {ENUM_TITLES} ['cover']",
        f"/properties/shapes/items: enum values without {ENUM_TITLES} ['heart']"]
