"""Themes: builtin set, custom theme CRUD, preview validation, limit, active-theme reset."""
import pytest
from pony import orm

from builtin_plugins.settings.themes import BUILTIN_THEMES, MAX_CUSTOM_THEMES, contrast_problems, preview_problems
from svc_host.kit.contrast import BLACK, WHITE, contrast_ratio, legible, qr_colours, readable_on
from hookspecs.render import parse_color
from svc_display.testing import issue_key
from hookspecs.services import SETTINGS

pytestmark = pytest.mark.svc_display_storage

PREVIEW = {"display": ["#000000", "#112233"], "primaryContainer": ["#ffffff", "#202020", "#00ff00"],
           "secondaryContainer": ["#fff", "#000"], "accents": ["#ffcc00", "#66ddff", "#aaffaa", "#44444480"]}
# the builtin themes as issue 17 found them: text black on black, white on coral boxes
OLD_SLATE_CITRUS = {"display": ["#1e272e", "#485460"], "primaryContainer": ["#1e272e", "#d2f55c"],
                    "secondaryContainer": ["#ffffff", "#808e9b"],
                    "accents": ["#d2f55c", "#ffa801", "#0fbcf9", "#ff5e57"]}
OLD_NAVY_CORAL = {"display": ["#0b1d3a", "#16325c", "#1f4e79"], "primaryContainer": ["#ffffff", "#ff6f61"],
                  "secondaryContainer": ["#0b1d3a", "#ffd6d1"],
                  "accents": ["#ff6f61", "#ffb347", "#4fc3f7", "#81c784"]}


def test_builtin_previews_are_valid_and_readable():
    assert "navy_coral" in BUILTIN_THEMES and len(BUILTIN_THEMES) >= 4
    for theme in BUILTIN_THEMES.values():
        assert preview_problems(theme["preview"]) == {}
        assert contrast_problems(theme["preview"]) == {}


def test_the_contrast_ratio_is_wcags():
    assert contrast_ratio(BLACK, WHITE) == pytest.approx(21.0)
    assert contrast_ratio(WHITE, WHITE) == pytest.approx(1.0)
    assert contrast_ratio(parse_color("#777777"), WHITE) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio(parse_color("#ffffff"), parse_color("#ff6f61")) == pytest.approx(2.73, abs=0.01)
    assert readable_on(parse_color("#ffd6d1")) == BLACK and readable_on(parse_color("#0b1d3a")) == WHITE
    green_on_white = legible((0.2, 0.8, 0.4, 1.0), [WHITE])
    assert contrast_ratio(green_on_white, WHITE) >= 4.5 and green_on_white != (0.2, 0.8, 0.4, 1.0)


def test_the_old_unreadable_themes_name_their_failing_pairs():
    slate = contrast_problems(OLD_SLATE_CITRUS)
    assert "/primaryContainer/0 #1e272e on /display/0 #1e272e: contrast 1.00:1" in slate["/primaryContainer/0"][0]
    assert any("/secondaryContainer/1" in m for m in slate["/secondaryContainer/0"])
    navy = contrast_problems(OLD_NAVY_CORAL)
    assert any("#ffffff on /primaryContainer/1 #ff6f61: contrast 2.73:1" in m for m in navy["/primaryContainer/0"])


@pytest.mark.parametrize("fg, bg, drawn", [
    ("#000000", "#ffffff", (BLACK, WHITE)),
    ("#1a237e", "#fff8e1", (parse_color("#1a237e"), parse_color("#fff8e1"))),
    ("#ffffff", "#000000", (BLACK, WHITE)),  # light modules on dark: scanners fail
    ("#ffffff", "#ffffff", (BLACK, WHITE)),  # the issue's white-on-white QR slide
    ("#777777", "#888888", (BLACK, WHITE)),  # dark on light, but too faint
])
def test_qr_codes_are_dark_modules_on_a_light_ground(fg, bg, drawn):
    assert qr_colours(parse_color(fg), parse_color(bg)) == drawn


@pytest.mark.parametrize("preview, pointer, pair", [
    (OLD_SLATE_CITRUS, "/primaryContainer/0", "#1e272e on /display/0 #1e272e"),
    (OLD_NAVY_CORAL, "/primaryContainer/0", "#ffffff on /primaryContainer/1 #ff6f61"),
    ({**PREVIEW, "accents": ["#222222", "#66ddff", "#aaffaa", "#000000"]}, "/accents/0", "#222222 on /display/0"),
    ({**PREVIEW, "secondaryContainer": ["#ffffff", "#bbbbbb"]}, "/secondaryContainer/0",
     "#ffffff on /secondaryContainer/1 #bbbbbb"),
    ({**PREVIEW, "primaryContainer": ["#ffffff", "#c0c0c080"]}, "/primaryContainer/0", "panel over black #c0c0c080"),
])
def test_a_theme_whose_text_would_not_read_is_refused_and_nothing_stored(api, preview, pointer, pair):
    before = api.get("/v1/display/themes").json["items"]
    result = api.post("/v1/display/themes", json={"label": "Unreadable", "preview": preview})
    assert result.status_code == 400 and result.json["code"] == "invalid_display_theme_preview", result.text
    assert pair in result.json["message"] or any(pair in m for m in result.json["details"]["preview"][pointer])
    assert any(pair in m for m in result.json["details"]["preview"][pointer])
    assert api.get("/v1/display/themes").json["items"] == before
    created = api.post("/v1/display/themes", json={"label": "Readable", "preview": PREVIEW}).json
    patched = api.patch(f"/v1/display/themes/{created['id']}", json={"preview": preview, "label": "Changed"})
    assert patched.status_code == 400 and patched.json["code"] == "invalid_display_theme_preview"
    assert api.get("/v1/display/themes").json["items"][-1] == created


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
    {**PREVIEW, "transition": "spin"},
    {**PREVIEW, "transition": True},
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


def test_a_stored_custom_theme_that_does_not_read_is_refused_when_selected(api):
    """A theme stored before the contrast rule (here written straight to the settings service)
    is checked again when it is selected; the refusal changes nothing."""
    service = api.host.services[SETTINGS]
    with orm.db_session:
        service.set("display_custom_themes", [{"id": "old_one", "label": "Old", "preview": OLD_NAVY_CORAL}])
    assert api.get("/v1/display/settings").json["display_theme_id"] == "navy_coral"
    chosen = api.put("/v1/display/settings", json={"display_theme_id": "old_one", "display_text_scale_screen": 2.0})
    assert chosen.status_code == 400 and chosen.json["code"] == "invalid_display_theme_preview", chosen.text
    assert "old_one" in chosen.json["message"] and chosen.json["details"]["preview"]
    after = api.get("/v1/display/settings").json
    assert after["display_theme_id"] == "navy_coral" and after["display_text_scale_screen"] != 2.0
    fixed = api.patch("/v1/display/themes/old_one", json={"preview": PREVIEW})
    assert fixed.status_code == 200, fixed.text
    assert api.put("/v1/display/settings", json={"display_theme_id": "old_one"}).status_code == 200


def test_one_theme_by_id_builtin_or_custom(api):
    """CONTRACT: a single-row GET wherever the collection is (was 405)."""
    listed = {theme["id"]: theme for theme in api.get("/v1/display/themes").json["items"]}
    assert api.get("/v1/display/themes/navy_coral").json == listed["navy_coral"]
    created = api.post("/v1/display/themes", json={"label": "Mine", "preview": PREVIEW}).json
    assert api.get(f"/v1/display/themes/{created['id']}").json == created
    missing = api.get("/v1/display/themes/custom_nope")
    assert missing.status_code == 404 and missing.json["code"] == "display_theme_not_found"


def test_a_theme_says_how_slides_change(api, host):
    """A preview's optional ``transition`` (fade, the default, or push) reaches the display's theme."""
    from builtin_plugins.settings.themes import TRANSITIONS
    from hookspecs.render import theme_from_preview
    from svc_host.kit.services import preferences

    assert TRANSITIONS == ("fade", "push")
    assert theme_from_preview("x", PREVIEW).transition == "fade"
    assert theme_from_preview("x", {**PREVIEW, "transition": "sideways"}).transition == "fade"
    assert BUILTIN_THEMES["slate_citrus"]["preview"]["transition"] == "push"
    created = api.post("/v1/display/themes", json={"label": "Pushy", "preview": {**PREVIEW, "transition": "push"}})
    assert created.status_code == 201, created.text
    assert api.put("/v1/display/settings", json={"display_theme_id": created.json["id"]}).status_code == 200
    assert preferences(host).theme.transition == "push"
