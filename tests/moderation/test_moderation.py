"""Moderation over HTTP (spec 4.4, 5.9): suppress/restore everywhere, deletes with blobs, roles."""
import pytest
from pony import orm

from svc_display.testing import issue_key
from tests.content_media import b64, image_bytes
from tests.content_rows import add_article, add_joke, add_photo, add_trivia

pytestmark = pytest.mark.svc_display_storage

FIVE = {"jokes": "j1", "trivia": "t1", "rss-articles": "a1", "photos": "p1", "videos": "v1"}


def seed(db):
    add_joke(db, "j1")
    add_trivia(db, "t1")
    add_article(db, "a1", title="Breaking")
    add_photo(db, "p1")
    add_photo(db, "v1", entity="Video")


@pytest.fixture
def roles(host):
    return {role: issue_key(host, role) for role in ("admin", "operator", "power_viewer", "viewer")}


@pytest.mark.parametrize("path", list(FIVE))
def test_suppress_hides_everywhere_and_restore_shows_again(api, host, roles, path):
    row_id = FIVE[path]
    with orm.db_session:
        seed(host.db)
    result = api.patch(f"/v1/content/{path}/{row_id}", json={"suppressed": True})
    assert result.status_code == 200 and result.json == {"id": row_id, "suppressed": True}
    # catalog readers no longer see it; moderators see it flagged
    for role in ("operator", "power_viewer"):
        page = api.get(f"/v1/catalog/{path}", key=roles[role]).json
        assert page["total"] == 0 and page["items"] == []
    page = api.get(f"/v1/catalog/{path}", key=roles["admin"]).json
    assert page["items"][0]["suppressed"] is True
    # media answers 404 for every caller
    for role in roles:
        assert api.get(f"/v1/media/{path}/{row_id}", key=roles[role]).status_code == 404
    restored = api.patch(f"/v1/content/{path}/{row_id}", json={"suppressed": False})
    assert restored.json == {"id": row_id, "suppressed": False}
    assert api.get(f"/v1/catalog/{path}", key=roles["power_viewer"]).json["total"] == 1
    assert api.get(f"/v1/media/{path}/{row_id}", key=roles["viewer"]).status_code == 200


@pytest.mark.parametrize("path", list(FIVE))
def test_only_moderators_moderate(api, host, roles, path):
    row_id = FIVE[path]
    with orm.db_session:
        seed(host.db)
    for role in ("operator", "power_viewer", "viewer"):
        result = api.patch(f"/v1/content/{path}/{row_id}", key=roles[role], json={"suppressed": True})
        assert result.status_code == 403 and result.json["code"] == "forbidden"
        assert api.delete(f"/v1/content/{path}/{row_id}", key=roles[role]).status_code == 403
    assert api.patch(f"/v1/content/{path}/{row_id}", key="svc_bad", json={"suppressed": True}).status_code == 401
    with orm.db_session:
        assert host.db.Joke["j1"].suppressed is False


@pytest.mark.parametrize("path", list(FIVE))
def test_patch_validation_and_404(api, host, path):
    with orm.db_session:
        seed(host.db)
    assert api.patch(f"/v1/content/{path}/missing", json={"suppressed": True}).status_code == 404
    assert api.patch(f"/v1/content/{path}/{'x' * 400}", json={"suppressed": True}).status_code == 404
    assert api.patch(f"/v1/content/{path}/a%00b", json={"suppressed": True}).status_code == 404
    assert api.patch(f"/v1/content/{path}/{FIVE[path]}", json={}).status_code == 400
    assert api.patch(f"/v1/content/{path}/{FIVE[path]}", json={"suppressed": "sometimes"}).status_code == 400
    assert api.delete(f"/v1/content/{path}/missing").status_code == 404


@pytest.mark.parametrize("path,entity", [("photos", "Photo"), ("videos", "Video"), ("rss-articles", "RssArticle")])
def test_delete_removes_row_and_blob(api, host, path, entity):
    blob = host.blobs.put(f"test/{path}.bin", image_bytes(), "image/png")
    shared = host.blobs.put(f"test/{path}-shared.bin", b"shared", "image/png")
    with orm.db_session:
        if entity == "RssArticle":
            add_article(host.db, "x1", image_blob_key=blob.key)
            add_article(host.db, "x2", image_blob_key=shared.key)
            add_article(host.db, "x3", image_blob_key=shared.key)
        else:
            add_photo(host.db, "x1", blob_key=blob.key, entity=entity)
            add_photo(host.db, "x2", blob_key=shared.key, entity=entity)
            add_photo(host.db, "x3", blob_key=shared.key, entity=entity)
    assert api.delete(f"/v1/content/{path}/x1").status_code == 204
    assert host.blobs.get(blob.key) is None and not blob.path.exists()
    assert api.get(f"/v1/media/{path}/x1").status_code == 404
    assert api.get("/v1/media/blob-by-key", params={"key": blob.key}).status_code == 404
    # a blob another row still uses stays until its last user goes
    assert api.delete(f"/v1/content/{path}/x2").status_code == 204
    assert host.blobs.get(shared.key) is not None
    assert api.delete(f"/v1/content/{path}/x3").status_code == 204
    assert host.blobs.get(shared.key) is None
    with orm.db_session:
        assert getattr(host.db, entity).select().count() == 0
    assert api.delete(f"/v1/content/{path}/x1").status_code == 404


def test_delete_manual_photo_end_to_end(api, host):
    created = api.post("/v1/curator/manual/photos", json={
        "category": "photos", "bytes_base64": b64(image_bytes("PNG")), "content_type": "image/png"}).json
    assert api.get("/v1/media/blob-by-key", params={"key": created["blob_key"]}).status_code == 200
    assert api.delete(f"/v1/content/photos/{created['id']}").status_code == 204
    assert api.get("/v1/media/blob-by-key", params={"key": created["blob_key"]}).status_code == 404


def test_delete_jokes_and_trivia(api, host):
    with orm.db_session:
        seed(host.db)
    assert api.delete("/v1/content/jokes/j1").status_code == 204
    assert api.delete("/v1/content/trivia/t1").status_code == 204
    with orm.db_session:
        assert not host.db.Joke.exists(id="j1") and not host.db.TriviaQuestion.exists(id="t1")


def test_delete_calendar_event_cascades_categories(api, host, roles):
    api.post("/v1/curator/categories", json={"id": "family", "label": "Family"})
    created = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Picnic", "start_ms": 1, "end_ms": 2, "category_ids": ["calendar", "family"]}).json
    assert api.delete("/v1/curator/categories/family").json["code"] == "category_in_use_calendar"
    assert api.delete(f"/v1/content/calendar-events/{created['id']}", key=roles["operator"]).status_code == 403
    assert api.delete(f"/v1/content/calendar-events/{created['id']}").status_code == 204
    with orm.db_session:
        assert host.db.CalendarEventCategory.select().count() == 0
    assert api.delete("/v1/curator/categories/family").status_code == 204
    assert api.delete(f"/v1/content/calendar-events/{created['id']}").status_code == 404


def test_delete_stock_quote_keeps_symbol(api, host):
    api.post("/v1/interests/stock-symbols", json={"id": "aapl", "symbol": "AAPL"})
    with orm.db_session:
        host.db.StockQuote(symbol_id="aapl", symbol="AAPL", price=1.0, as_of_ms=1, integration_type="stocks")
    assert api.delete("/v1/interests/stock-symbols/aapl").status_code == 409
    assert api.delete("/v1/content/stock-quotes/aapl").status_code == 204
    assert api.get("/v1/interests/stock-symbols/aapl").status_code == 200
    assert api.get("/v1/catalog/stock-quotes").json["total"] == 0
    assert api.delete("/v1/content/stock-quotes/aapl").status_code == 404


def test_delete_weather_snapshot_and_alert(api, host):
    api.post("/v1/interests/weather-locations", json={"id": "home", "name": "Home", "latitude": 1, "longitude": 2})
    with orm.db_session:
        host.db.WeatherCurrent(location_id="home", location_name="Home", integration_type="weather")
        host.db.WeatherAlert(location_id="home", alert_id="a/1", event="Storm", location_name="Home",
                             integration_type="weather")
        host.db.WeatherAlert(location_id="home", alert_id="a2", event="Fog", location_name="Home",
                             integration_type="weather")
    assert api.delete("/v1/content/weather-current/home").status_code == 204
    assert api.delete("/v1/content/weather-current/home").status_code == 404
    assert api.delete("/v1/content/weather-alerts/home/a2").status_code == 204
    assert api.delete("/v1/content/weather-alerts/home/a2").status_code == 404
    assert api.delete("/v1/content/weather-alerts/other/a%2F1").status_code == 404
    assert api.get("/v1/catalog/weather-alerts").json["total"] == 1
    assert api.get("/v1/interests/weather-locations/home").status_code == 200


def test_real_server_moderation(start_server):
    server = start_server()
    admin = server.key("admin")
    power = server.key("power_viewer")
    joke = server.request("POST", "/v1/curator/manual/jokes", key=admin,
                          json={"category_id": "jokes", "setup": "S", "punchline": "P"}).json()
    assert server.request("PATCH", f"/v1/content/jokes/{joke['id']}", key=power,
                          json={"suppressed": True}).status_code == 403
    assert server.request("PATCH", f"/v1/content/jokes/{joke['id']}", key=admin,
                          json={"suppressed": True}).status_code == 200
    assert server.request("GET", "/v1/catalog/jokes", key=power).json()["total"] == 0
    assert server.request("GET", "/v1/catalog/jokes", key=power, params={"suppressed": "true"}).status_code == 403
    assert server.request("GET", f"/v1/media/jokes/{joke['id']}", key=admin).status_code == 404


def test_a_suppressed_photos_blob_is_refused_like_the_row(api, host):
    """``/v1/media/blob-by-key`` served a suppressed photo's bytes; now 404 until it is restored (a
    blob a shown row shares stays served)."""
    created = api.post("/v1/curator/manual/photos", json={
        "category": "photos", "bytes_base64": b64(image_bytes("PNG")), "content_type": "image/png"}).json
    blob = {"key": created["blob_key"]}
    assert api.patch(f"/v1/content/photos/{created['id']}", json={"suppressed": True}).status_code == 200
    refused = api.get("/v1/media/blob-by-key", params=blob)
    assert refused.status_code == 404 and refused.json["code"] == "not_found"
    with orm.db_session:
        add_photo(host.db, "shares-it", blob_key=created["blob_key"])
    assert api.get("/v1/media/blob-by-key", params=blob).status_code == 200
    with orm.db_session:
        host.db.Photo["shares-it"].delete()
    assert api.get("/v1/media/blob-by-key", params=blob).status_code == 404
    assert api.patch(f"/v1/content/photos/{created['id']}", json={"suppressed": False}).status_code == 200
    assert api.get("/v1/media/blob-by-key", params=blob).status_code == 200
