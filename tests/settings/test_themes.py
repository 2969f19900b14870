"""Themes: builtin set, custom theme CRUD, preview validation, limit, active-theme reset."""
import pytest
from pony import orm

from builtin_plugins.settings.themes import BUILTIN_THEMES, MAX_CUSTOM_THEMES, preview_problems
from tests.conftest import issue_key

pytestmark = pytest.mark.storage

PREVIEW = {"display": ["#000000", "#112233"], "primaryContainer": ["#ffffff", "#ff0000", "#00ff00"],
           "secondaryContainer": ["#fff", "#000"], "accents": ["#111111", "#222222", "#333333", "#44444480"]}


def test_builtin_previews_are_valid():
    assert "navy_coral" in BUILTIN_THEMES and len(BUILTIN_THEMES) >= 4
    for theme in BUILTIN_THEMES.values():
        assert preview_problems(theme["preview"]) == {}


def test_list_create_patch_delete(api):
    listed = api.get("/v1/display/themes", key=issue_key(api.host, "viewer")).json["items"]
    assert listed[0]["id"] == "navy_coral" and all(t["builtin"] for t in listed)
    assert set(listed[0]["preview"]) == {"display", "primaryContainer", "secondaryContainer", "accents"}
    created = api.post("/v1/display/themes", json={"label": "Ours", "preview": PREVIEW})
    assert created.status_code == 201, created.text
    theme = created.json
    assert theme["id"].startswith("custom_") and theme["label"] == "Ours" and theme["preview"] == PREVIEW
    assert api.get("/v1/display/themes").json["items"][-1]["id"] == theme["id"]
    assert api.get("/v1/display/settings").json["display_custom_themes"] == [
        {"id": theme["id"], "label": "Ours", "preview": PREVIEW}]

    renamed = api.patch(f"/v1/display/themes/{theme['id']}", json={"label": "Renamed"})
    assert renamed.status_code == 200 and renamed.json["label"] == "Renamed" and renamed.json["preview"] == PREVIEW
    recoloured = api.patch(f"/v1/display/themes/{theme['id']}",
                           json={"preview": {**PREVIEW, "display": ["#010101", "#020202"]}})
    assert recoloured.json["preview"]["display"] == ["#010101", "#020202"]

    assert api.delete(f"/v1/display/themes/{theme['id']}").status_code == 200
    assert api.delete(f"/v1/display/themes/{theme['id']}").json["code"] == "display_theme_not_found"


def test_builtin_and_unknown_theme_errors(api):
    for method in ("patch", "delete"):
        kwargs = {"json": {"label": "x"}} if method == "patch" else {}
        builtin = getattr(api, method)("/v1/display/themes/navy_coral", **kwargs)
        assert builtin.status_code == 400 and builtin.json["code"] == "display_theme_not_custom"
        missing = getattr(api, method)("/v1/display/themes/custom_nothere", **kwargs)
        assert missing.status_code == 404 and missing.json["code"] == "display_theme_not_found"
        odd = getattr(api, method)("/v1/display/themes/" + "%E2%9C%93" * 50, **kwargs)
        assert odd.status_code == 404 and odd.json["code"] == "display_theme_not_found"


@pytest.mark.parametrize("preview", [
    None, [], "navy", {},
    {**PREVIEW, "display": ["#000000"]},
    {**PREVIEW, "display": ["#000000"] * 5},
    {**PREVIEW, "primaryContainer": ["red", "blue"]},
    {**PREVIEW, "secondaryContainer": ["#12345", "#000000"]},
    {**PREVIEW, "accents": ["#000000"] * 3},
    {**PREVIEW, "accents": ["#000000"] * 5},
    {**PREVIEW, "accents": "#000000"},
    {**PREVIEW, "extra": ["#000000", "#000000"]},
    {k: v for k, v in PREVIEW.items() if k != "accents"},
    {**PREVIEW, "display": [1, 2]},
])
def test_invalid_previews(api, preview):
    result = api.post("/v1/display/themes", json={"label": "Bad", "preview": preview})
    assert result.status_code == 400 and result.json["code"] == "invalid_display_theme_preview", result.text
    created = api.post("/v1/display/themes", json={"label": "Good", "preview": PREVIEW}).json
    patched = api.patch(f"/v1/display/themes/{created['id']}", json={"preview": preview})
    assert patched.status_code == 400 and patched.json["code"] == "invalid_display_theme_preview"


@pytest.mark.parametrize("body, field", [
    ({"preview": PREVIEW}, "label"),
    ({"label": "", "preview": PREVIEW}, "label"),
    ({"label": "x" * 81, "preview": PREVIEW}, "label"),
    ({"label": "x"}, "preview"),
    ({"label": "x", "preview": PREVIEW, "id": "mine"}, "id"),
])
def test_invalid_create_bodies(api, body, field):
    result = api.post("/v1/display/themes", json=body)
    assert result.status_code == 400 and result.json["code"] == "validation_failed"
    assert field in result.json["details"]


def test_limit(api):
    for index in range(MAX_CUSTOM_THEMES):
        assert api.post("/v1/display/themes", json={"label": f"T{index}", "preview": PREVIEW}).status_code == 201
    result = api.post("/v1/display/themes", json={"label": "one too many", "preview": PREVIEW})
    assert result.status_code == 400 and result.json["code"] == "display_theme_limit_reached"
    assert len(api.get("/v1/display/themes").json["items"]) == len(BUILTIN_THEMES) + MAX_CUSTOM_THEMES


def test_deleting_the_active_custom_theme_resets_to_navy_coral(api):
    theme = api.post("/v1/display/themes", json={"label": "Active", "preview": PREVIEW}).json
    other = api.post("/v1/display/themes", json={"label": "Other", "preview": PREVIEW}).json
    assert api.put("/v1/config/key-values", json={"key": "display.theme.id", "value": "forest_amber"}).status_code \
        == 200
    settings = api.put("/v1/display/settings", json={"display_theme_id": theme["id"]})
    assert settings.status_code == 200 and settings.json["display_theme_id"] == theme["id"]
    assert _kv(api, "display.theme.id") == theme["id"]  # the key-value mirror follows the setting
    api.delete(f"/v1/display/themes/{other['id']}")
    assert api.get("/v1/display/settings").json["display_theme_id"] == theme["id"]
    api.delete(f"/v1/display/themes/{theme['id']}")
    assert api.get("/v1/display/settings").json["display_theme_id"] == "navy_coral"
    assert _kv(api, "display.theme.id") == "navy_coral"


def _kv(api, key):
    with orm.db_session:
        return api.host.db.KeyValue[key].value


def test_permissions(api):
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    assert api.post("/v1/display/themes", key=viewer, json={"label": "x", "preview": PREVIEW}).status_code == 403
    theme = api.post("/v1/display/themes", key=operator, json={"label": "x", "preview": PREVIEW}).json
    assert api.patch(f"/v1/display/themes/{theme['id']}", key=viewer, json={"label": "y"}).status_code == 403
    assert api.delete(f"/v1/display/themes/{theme['id']}", key=viewer).status_code == 403
    assert api.delete(f"/v1/display/themes/{theme['id']}", key=operator).status_code == 200
