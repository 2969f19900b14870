"""The services the display reads, published by the plugins that own the data."""
from hookspecs.services import CURATOR, ORIGIN_ALLOWED, THEMES


def test_curator_service_matches_the_active_route(api):
    created = api.post("/v1/screens", json={"id": "lobby", "screen_type": "message",
                                            "config_json": {"body": "Hello"}})
    assert created.status_code in (200, 201), created.text
    view = api.host.services[CURATOR].active_view()
    route = api.get("/v1/curator/active").json
    view.pop("evaluated_at_ms"), route.pop("evaluated_at_ms")
    assert view == route
    assert [m["id"] for m in view["effective_members"]["screens"]] == ["lobby"]


def test_themes_service_previews_builtin_and_custom_themes(api):
    themes = api.host.services[THEMES]
    assert themes.preview("navy_coral")["accents"][0].startswith("#")
    preview = {"display": ["#000000", "#111111"], "primaryContainer": ["#ffffff", "#222222"],
               "secondaryContainer": ["#ffffff", "#333333"], "accents": ["#ff6666", "#00ff00", "#66ccff", "#ffff00"]}
    created = api.post("/v1/display/themes", json={"label": "Mine", "preview": preview})
    assert created.status_code in (200, 201), created.text
    assert themes.preview(created.json["id"]) == preview
    assert themes.preview("no-such-theme") is None


def test_origin_allowed_follows_the_stored_origins(make_host):
    host = make_host({"SVC_DISPLAY_HTTP_CORS_ORIGINS": "https://controller.example"})
    allowed = host.services[ORIGIN_ALLOWED]
    assert allowed("https://controller.example") is True
    assert allowed("https://elsewhere.example") is False
