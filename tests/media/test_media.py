"""Media routes over HTTP (spec 2.12, 4.8)."""
import pytest
from pony import orm

from svc_display.testing import issue_key
from tests.content_media import b64, image_bytes
from tests.content_rows import add_article, add_joke, add_photo, add_trivia

pytestmark = pytest.mark.svc_display_storage


def test_blob_by_key(api, host):
    data = image_bytes("PNG")
    host.blobs.put("photos/abc.png", data, "image/png")
    viewer = issue_key(host, "viewer")
    result = api.get("/v1/media/blob-by-key", key=viewer, params={"key": "photos/abc.png"})
    assert result.status_code == 200
    assert result.headers["content-type"] == "image/png"
    assert result.content == data
    assert api.get("/v1/media/blob-by-key", key=viewer, params={"key": "photos/none.png"}).status_code == 404
    assert api.get("/v1/media/blob-by-key", key=viewer, params={"key": "../../etc/passwd"}).status_code == 404
    # a key no blob can have: the host refuses unstorable query text before the route runs
    assert api.get("/v1/media/blob-by-key", key=viewer, params={"key": "a\x00b"}).json["code"] == \
        "validation_failed"
    assert api.get("/v1/media/blob-by-key", key=viewer).status_code == 400
    assert api.get("/v1/media/blob-by-key", key="svc_x", params={"key": "photos/abc.png"}).status_code == 401


def test_blob_missing_metadata_or_file_is_404(api, host):
    blob = host.blobs.put("x/one.bin", b"1", "application/x-test")
    (blob.path.parent / "one.bin.meta.json").unlink()
    assert api.get("/v1/media/blob-by-key", params={"key": "x/one.bin"}).status_code == 404
    blob = host.blobs.put("x/two.bin", b"2", "application/x-test")
    blob.path.unlink()
    assert api.get("/v1/media/blob-by-key", params={"key": "x/two.bin"}).status_code == 404


def test_row_lookups(api, host):
    viewer = issue_key(host, "viewer")
    with orm.db_session:
        add_joke(host.db, "j1", setup="S", punchline="P")
        add_trivia(host.db, "t1", question="Q")
        add_article(host.db, "a1", title="T", summary="Sum", at=7, image_blob_key="img/a.jpg")
        add_photo(host.db, "p1", alt_text="Alt", photographer_url="https://ph.example", source_url="https://src")
        add_photo(host.db, "v1", entity="Video", duration_seconds=4.0)
    assert api.get("/v1/media/jokes/j1", key=viewer).json == {
        "id": "j1", "setup": "S", "punchline": "P", "category_id": "jokes", "integration_type": "jokes_api",
        "created_at_ms": 1}
    trivia = api.get("/v1/media/trivia/t1", key=viewer).json
    assert trivia["question"] == "Q" and trivia["correct_option"] == "A" and trivia["option_d"] == "d1"
    assert api.get("/v1/media/rss-articles/a1", key=viewer).json == {
        "id": "a1", "feed_id": "feed", "title": "T", "summary": "Sum", "link": "https://example.org/a1",
        "image_blob_key": "img/a.jpg", "published_at_ms": 7}
    photo = api.get("/v1/media/photos/p1", key=viewer).json
    assert photo["alt_text"] == "Alt" and photo["photographer_url"] == "https://ph.example"
    assert photo["source_url"] == "https://src" and photo["media_blob_key"] == "photos/p1.jpg"
    assert photo["data_provider"] == "pexels" and photo["photographer_name"] == "Ann"
    assert api.get("/v1/media/videos/v1", key=viewer).json["duration_seconds"] == 4.0
    for path in ("jokes", "trivia", "rss-articles", "photos", "videos"):
        assert api.get(f"/v1/media/{path}/missing", key=viewer).status_code == 404
        assert api.get(f"/v1/media/{path}/{'y' * 500}", key=viewer).status_code == 404
        assert api.get(f"/v1/media/{path}/j%00", key=viewer).status_code == 404
        assert api.get(f"/v1/media/{path}/p1", key="svc_wrong").status_code == 401


def test_weather_at_location(api, host):
    power = issue_key(host, "power_viewer")
    viewer = issue_key(host, "viewer")
    api.post("/v1/interests/weather-locations", json={"id": "home", "name": "Home", "latitude": 52.5,
                                                      "longitude": 13.4})
    bare = api.get("/v1/media/weather-at-location/home", key=viewer)
    assert bare.status_code == 200
    assert bare.json == {"location_id": "home", "location_name": "Home", "latitude": 52.5, "longitude": 13.4,
                         "enabled": True}
    with orm.db_session:
        host.db.WeatherCurrent(location_id="home", location_name="Home", description="Sunny", temp_c=21.5,
                               icon_blob_key="icons/sun.png", observed_at_ms=99, integration_type="weather")
    full = api.get("/v1/media/weather-at-location/home", key=power).json
    assert full["current_temp_c"] == 21.5 and full["current_description"] == "Sunny"
    assert full["observed_at_ms"] == 99 and full["current_icon_blob_key"] == "icons/sun.png"
    assert api.get("/v1/media/weather-at-location/elsewhere", key=viewer).status_code == 404
    assert api.get("/v1/media/weather-at-location/a%00", key=viewer).status_code == 404


def test_real_server_blob(start_server):
    server = start_server()
    operator = server.key("operator")
    viewer = server.key("viewer")
    data = image_bytes("JPEG", (16, 16))
    created = server.request("POST", "/v1/curator/manual/photos", key=operator, json={
        "category": "photos", "bytes_base64": b64(data), "content_type": "image/jpeg"}).json()
    blob = server.request("GET", "/v1/media/blob-by-key", key=viewer, params={"key": created["blob_key"]})
    assert blob.status_code == 200 and blob.headers["content-type"] == "image/jpeg" and blob.content == data
    photo = server.request("GET", f"/v1/media/photos/{created['id']}", key=viewer).json()
    assert photo["media_blob_key"] == created["blob_key"] and photo["integration_type"] == "manual_entry"
