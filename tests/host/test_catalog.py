"""hookspecs.catalog: a plugin's types declared in types.json, read as the host reads them."""
from __future__ import annotations

import json
import sys

import pytest

from hookspecs import schema
from hookspecs.catalog import CatalogError, Code, load_types
from hookspecs.types import IntegrationType, ScreenType


def _package(tmp_path, monkeypatch, name, catalog, code=""):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "collect.py").write_text(code)
    (folder / "types.json").write_text(catalog if isinstance(catalog, str) else json.dumps(catalog))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


SCREEN = {"id": "menu", "label": "Menu", "renderer": "menu_plugin.display:menu",
          "config_schema": {"type": "object", "properties": {"tz": {"$ref": "svc:TIME_ZONE"},
                                                            "colors": {"type": "array", "items": {"$ref": "svc:HEX_COLOR"}}}},
          "example_config": {"tz": "Europe/Paris"}}
INTEGRATION = {"id": "menu_api", "label": "Menu API", "family": "menu", "secret_fields": ["token"],
               "collect": "menu_plugin.collect:collect", "config_schema": {"type": "object"}, "example_config": {}}


def test_types_are_read_with_shared_pieces_copied_in_and_code_imported_at_first_call(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, "menu_plugin",
                       {"screen_types": [SCREEN], "integration_types": [INTEGRATION]},
                       "CALLS = []\ndef collect(ctx):\n    CALLS.append(ctx)\n    return 3\n")
    catalog = load_types(package)
    (screen,) = catalog.screen_types
    assert isinstance(screen, ScreenType) and screen.renderer == "menu_plugin.display:menu"
    assert screen.config_schema["properties"]["tz"] == schema.TIME_ZONE
    assert screen.config_schema["properties"]["tz"] is not schema.TIME_ZONE  # a copy: no shared mutable state
    assert screen.config_schema["properties"]["colors"]["items"] == schema.HEX_COLOR
    (integration,) = catalog.integration_types
    assert isinstance(integration, IntegrationType) and integration.secret_fields == ("token",)
    assert isinstance(integration.collect, Code)
    assert "menu_plugin.collect" not in sys.modules  # reading the catalog imported no code
    assert integration.collect("ctx") == 3
    assert sys.modules["menu_plugin.collect"].CALLS == ["ctx"]
    assert integration == load_types(package).integration_types[0]  # the same file, the same records


@pytest.mark.parametrize("catalog, says", [
    ({"screen_types": [{**SCREEN, "colour": "red"}]}, "menu: unknown fields ['colour']"),
    ({"screen_types": [{**SCREEN, "config_schema": {"$ref": "svc:NO_SUCH"}}]}, "svc:NO_SUCH names no shared"),
    ({"screen_type": [SCREEN]}, "unknown sections ['screen_type']"),
    ({"screen_types": [{"id": "menu"}]}, "menu: "),  # label, schema, example missing
    ({"integration_types": [{**INTEGRATION, "collect": "no_colon"}]}, "is not a 'module:attr' reference"),
    ("{not json", "types.json"),
])
def test_a_catalog_that_cannot_be_read_is_refused_naming_the_file_and_the_type(tmp_path, monkeypatch, catalog, says):
    package = _package(tmp_path, monkeypatch, f"bad_plugin_{abs(hash(str(catalog)))}", catalog)
    with pytest.raises(CatalogError) as error:
        load_types(package)
    assert says in str(error.value) and f"{package}/types.json" in str(error.value)
