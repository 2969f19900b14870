"""Curator categories over HTTP (spec 2.10, 4.11), on SQLite and PostgreSQL."""
import pytest
from pony import orm

from builtin_plugins.curator.categories import SEEDED_CATEGORIES
from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage

REQUIRED_SEEDS = {"general", "news", "jokes", "trivia", "photos", "videos", "weather", "calendar", "stocks",
                  "tasks", "alerts"}


def test_seeded_categories_are_reserved(api):
    result = api.get("/v1/curator/categories")
    assert result.status_code == 200
    items = {item["id"]: item for item in result.json["items"]}
    assert REQUIRED_SEEDS <= set(items)
    assert set(items) == set(SEEDED_CATEGORIES)
    for item in items.values():
        assert item["reserved"] is True
        assert set(item) == {"id", "label", "material_icon_name", "icon_blob_key", "reserved"}


def test_create_get_patch_delete(api):
    created = api.post("/v1/curator/categories", json={"id": "sports", "label": "Sports",
                                                       "material_icon_name": "sports", "icon_blob_key": "icons/s.png"})
    assert created.status_code == 201, created.text
    assert created.json == {"id": "sports", "label": "Sports", "material_icon_name": "sports",
                            "icon_blob_key": "icons/s.png", "reserved": False}
    assert api.get("/v1/curator/categories/sports").json["label"] == "Sports"
    patched = api.patch("/v1/curator/categories/sports", json={"label": "Sport", "material_icon_name": None})
    assert patched.status_code == 200
    assert patched.json["label"] == "Sport"
    assert patched.json["material_icon_name"] is None
    assert patched.json["icon_blob_key"] == "icons/s.png"
    cleared = api.patch("/v1/curator/categories/sports", json={"icon_blob_key": None})
    assert cleared.json["icon_blob_key"] is None and cleared.json["label"] == "Sport"
    assert api.delete("/v1/curator/categories/sports").status_code == 204
    assert api.get("/v1/curator/categories/sports").status_code == 404
    assert api.delete("/v1/curator/categories/sports").status_code == 404


@pytest.mark.parametrize("body", [
    {"id": "Sports", "label": "x"},
    {"id": "has space", "label": "x"},
    {"id": "", "label": "x"},
    {"id": "a" * 65, "label": "x"},
    {"id": "ok", "label": ""},
    {"id": "ok", "label": "   "},
    {"id": "ok"},
    {"label": "x"},
    {"id": 5, "label": "x"},
    {"id": "ok", "label": "x", "unknown": 1},
])
def test_create_rejects_bad_id_or_label(api, body):
    result = api.post("/v1/curator/categories", json=body)
    assert result.status_code == 400, result.text
    assert result.json["code"] == "validation_failed"
    assert api.get("/v1/curator/categories/ok").status_code == 404


def test_create_existing_id_is_409(api):
    assert api.post("/v1/curator/categories", json={"id": "news", "label": "Again"}).status_code == 409
    assert api.post("/v1/curator/categories", json={"id": "mine", "label": "M"}).status_code == 201
    assert api.post("/v1/curator/categories", json={"id": "mine", "label": "M"}).status_code == 409


def test_patch_validation_and_missing(api):
    assert api.patch("/v1/curator/categories/news", json={}).status_code == 400
    assert api.patch("/v1/curator/categories/news", json={"label": None}).status_code == 400
    assert api.patch("/v1/curator/categories/news", json={"reserved": False}).status_code == 400
    assert api.patch("/v1/curator/categories/nope", json={"label": "x"}).status_code == 404
    assert api.patch("/v1/curator/categories/" + "x" * 300, json={"label": "x"}).status_code == 404
    # a reserved category may be relabelled but stays reserved
    result = api.patch("/v1/curator/categories/news", json={"label": "Headlines"})
    assert result.status_code == 200 and result.json["reserved"] is True


def test_delete_reserved_is_403(api):
    result = api.delete("/v1/curator/categories/general")
    assert result.status_code == 403
    assert result.json["code"] == "reserved_category"
    assert api.get("/v1/curator/categories/general").status_code == 200


def test_delete_in_use_by_calendar_is_409(api, host):
    api.post("/v1/curator/categories", json={"id": "family", "label": "Family"})
    api.post("/v1/curator/categories", json={"id": "work", "label": "Work"})
    with orm.db_session:
        host.db.CalendarEvent(id="e1", title="Dinner", source="manual_entry", start_ms=1, end_ms=2,
                              category_id="family")
        event = host.db.CalendarEvent(id="e2", title="Standup", source="manual_entry", start_ms=1, end_ms=2)
        host.db.CalendarEventCategory(event=event, category_id="work")
    for category in ("family", "work"):
        result = api.delete(f"/v1/curator/categories/{category}")
        assert result.status_code == 409
        assert result.json["code"] == "category_in_use_calendar"
    with orm.db_session:
        host.db.CalendarEvent["e1"].delete()
        host.db.CalendarEvent["e2"].delete()
    assert api.delete("/v1/curator/categories/family").status_code == 204
    assert api.delete("/v1/curator/categories/work").status_code == 204


def test_permissions(host, api):
    viewer = issue_key(host, "viewer")
    operator = issue_key(host, "operator")
    assert api.get("/v1/curator/categories", key=viewer).status_code == 200
    assert api.get("/v1/curator/categories/news", key=viewer).status_code == 200
    assert api.get("/v1/curator/categories", key="svc_wrong").status_code == 401
    assert api.request("GET", "/v1/curator/categories", key="").status_code == 401
    assert api.post("/v1/curator/categories", key=viewer, json={"id": "v", "label": "V"}).status_code == 403
    assert api.post("/v1/curator/categories", key=operator, json={"id": "o", "label": "O"}).status_code == 201
    assert api.patch("/v1/curator/categories/o", key=viewer, json={"label": "x"}).status_code == 403
    assert api.delete("/v1/curator/categories/o", key=viewer).status_code == 403
    assert api.delete("/v1/curator/categories/o", key=operator).status_code == 204


def test_real_server_round_trip(start_server):
    server = start_server()
    key = server.key("operator")
    created = server.request("POST", "/v1/curator/categories", key=key, json={"id": "garden", "label": "Garden"})
    assert created.status_code == 201
    assert server.request("DELETE", "/v1/curator/categories/jokes", key=key).json()["code"] == "reserved_category"
    ids = [item["id"] for item in server.request("GET", "/v1/curator/categories", key=key).json()["items"]]
    assert "garden" in ids and "jokes" in ids


def test_works_without_the_content_features(make_host):
    from svc_display.testing import ApiClient as Api
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "weather,news,calendar,stocks,media,content,tasks"})
    api = Api(host, issue_key(host, "admin"))
    assert api.post("/v1/curator/categories", json={"id": "solo", "label": "Solo"}).status_code == 201
    assert api.delete("/v1/curator/categories/solo").status_code == 204
    assert api.get("/v1/curator/active").status_code == 200
    assert api.get("/v1/catalog/jokes").status_code == 404  # disabling a feature removes its lists everywhere
    assert api.get("/v1/catalog/alerts").status_code == 200
    assert api.get("/v1/interests/rss-feeds").status_code == 404
    assert api.get("/v1/media/jokes/x").status_code == 404


def test_the_label_service_names_a_category_for_the_canvas(api, make_host):
    """``CategoriesService.label`` (the canvas's ``category_label`` asks it, never the table)."""
    from hookspecs.render import RenderContext
    from hookspecs.services import CATEGORIES, CategoriesService
    from svc_host.kit.display import category_label

    assert api.post("/v1/curator/categories", json={"id": "dad-jokes", "label": "Groaners"}).status_code == 201
    host = api.host
    assert isinstance(host.services[CATEGORIES], CategoriesService)
    context = RenderContext(host=host, kind="screen", type_id="joke", row={})
    with orm.db_session:
        assert host.services[CATEGORIES].label("dad-jokes") == "Groaners"
        assert host.services[CATEGORIES].label(" dad-jokes") is None and host.services[CATEGORIES].label("none") is None
        assert category_label(context, "dad-jokes") == "Groaners"
        assert category_label(context, "no_such-thing") == "No such thing"
    bare = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "curator"})  # no service: the id made readable
    with orm.db_session:
        assert category_label(RenderContext(host=bare, kind="screen", type_id="joke", row={}), "dad-jokes") == "Dad jokes"
