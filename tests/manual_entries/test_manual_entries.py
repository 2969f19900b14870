"""Manual curator entries over HTTP (spec 4.5): bytes checked, size limits, blobs, provenance."""
import base64

import pytest
from pony import orm

from builtin_plugins.manual_entries import MAX_PHOTO_BYTES, MAX_VIDEO_BYTES
from tests.conftest import issue_key
from tests.content_media import MOV, MP4, WEBM, b64, image_bytes


@pytest.mark.parametrize("fmt,content_type", [("JPEG", "image/jpeg"), ("PNG", "image/png"), ("WEBP", "image/webp")])
def test_photo_upload_stores_blob_and_row(api, host, fmt, content_type):
    data = image_bytes(fmt)
    result = api.post("/v1/curator/manual/photos", json={
        "category": "photos", "bytes_base64": b64(data), "content_type": content_type,
        "alt_text": "a red square", "photographer_name": "Ada"})
    assert result.status_code == 201, result.text
    assert set(result.json) == {"id", "blob_key"}
    blob = host.blobs.get(result.json["blob_key"])
    assert blob is not None and blob.content_type == content_type and blob.path.read_bytes() == data
    with orm.db_session:
        row = host.db.Photo[result.json["id"]]
        assert row.integration_type == "manual_entry" and row.data_provider == "manual_entry"
        assert row.media_blob_key == result.json["blob_key"] and row.category_id == "photos"
        assert row.alt_text == "a red square" and row.photographer_name == "Ada"


@pytest.mark.parametrize("data,content_type", [
    (image_bytes("JPEG"), "image/png"),
    (image_bytes("PNG"), "image/jpeg"),
    (image_bytes("PNG"), "image/webp"),
    (image_bytes("GIF"), "image/png"),
    (b"definitely not an image", "image/jpeg"),
    (image_bytes("JPEG", (64, 64))[:200], "image/jpeg"),
    (MP4, "image/png"),
])
def test_photo_bytes_must_match_content_type(api, host, data, content_type):
    result = api.post("/v1/curator/manual/photos", json={
        "category": "photos", "bytes_base64": b64(data), "content_type": content_type})
    assert result.status_code == 400, result.text
    assert result.json["code"] == "validation_failed" and "content_type" in result.json["details"]
    with orm.db_session:
        assert host.db.Photo.select().count() == 0
    assert not (host.settings.media_dir / "manual").exists()


@pytest.mark.parametrize("body,field", [
    ({"category": "photos", "bytes_base64": "not base64!!", "content_type": "image/png"}, "bytes_base64"),
    ({"category": "photos", "bytes_base64": "", "content_type": "image/png"}, "bytes_base64"),
    ({"category": "photos", "bytes_base64": "AAAA", "content_type": "image/gif"}, "content_type"),
    ({"category": "nope", "bytes_base64": b64(image_bytes()), "content_type": "image/png"}, "category"),
    ({"bytes_base64": b64(image_bytes()), "content_type": "image/png"}, "category"),
])
def test_photo_validation(api, body, field):
    result = api.post("/v1/curator/manual/photos", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"]


def test_photo_over_8_mib_is_413(api, host):
    data = b"\xff\xd8" + b"\x00" * (MAX_PHOTO_BYTES - 1)
    result = api.post("/v1/curator/manual/photos", json={
        "category": "photos", "bytes_base64": b64(data), "content_type": "image/jpeg"})
    assert result.status_code == 413
    assert result.json["code"] == "payload_too_large"
    with orm.db_session:
        assert host.db.Photo.select().count() == 0


@pytest.mark.parametrize("data,content_type", [(MP4, "video/mp4"), (MOV, "video/quicktime"), (WEBM, "video/webm")])
def test_video_upload(api, host, data, content_type):
    result = api.post("/v1/curator/manual/videos", json={
        "category": "videos", "bytes_base64": b64(data), "content_type": content_type, "duration_seconds": 12.5})
    assert result.status_code == 201, result.text
    assert host.blobs.get(result.json["blob_key"]).content_type == content_type
    with orm.db_session:
        row = host.db.Video[result.json["id"]]
        assert row.duration_seconds == 12.5 and row.integration_type == "manual_entry"


@pytest.mark.parametrize("data,content_type", [
    (MP4, "video/webm"), (WEBM, "video/mp4"), (MOV, "video/mp4"), (image_bytes("PNG"), "video/mp4"),
    (b"\x00" * 100, "video/webm")])
def test_video_magic_bytes_must_match(api, data, content_type):
    result = api.post("/v1/curator/manual/videos", json={
        "category": "videos", "bytes_base64": b64(data), "content_type": content_type, "duration_seconds": 3})
    assert result.status_code == 400
    assert "content_type" in result.json["details"]


def test_video_requires_duration(api):
    body = {"category": "videos", "bytes_base64": b64(MP4), "content_type": "video/mp4"}
    assert api.post("/v1/curator/manual/videos", json=body).status_code == 400
    assert api.post("/v1/curator/manual/videos", json={**body, "duration_seconds": 0}).status_code == 400
    assert api.post("/v1/curator/manual/videos", json={**body, "duration_seconds": "long"}).status_code == 400


def test_video_over_50_mib_is_413_and_body_cap_allows_base64(api, host):
    data = MP4 + b"\x00" * (MAX_VIDEO_BYTES + 1 - len(MP4))
    result = api.post("/v1/curator/manual/videos", json={
        "category": "videos", "bytes_base64": b64(data), "content_type": "video/mp4", "duration_seconds": 1})
    assert result.status_code == 413 and result.json["code"] == "payload_too_large"
    exact = data[:MAX_VIDEO_BYTES]
    result = api.post("/v1/curator/manual/videos", json={
        "category": "videos", "bytes_base64": base64.encodebytes(exact).decode(), "content_type": "video/mp4",
        "duration_seconds": 1})
    assert result.status_code == 201, result.text
    assert host.blobs.get(result.json["blob_key"]).size == MAX_VIDEO_BYTES


def test_jokes_and_trivia(api, host):
    joke = api.post("/v1/curator/manual/jokes", json={"category_id": "jokes", "setup": "Why?", "punchline": "Because."})
    assert joke.status_code == 201 and set(joke.json) == {"id"}
    trivia = api.post("/v1/curator/manual/trivia", json={
        "category_id": "trivia", "question": "2+2?", "option_a": "3", "option_b": "4", "option_c": "5",
        "option_d": "22", "correct_option": "B"})
    assert trivia.status_code == 201
    with orm.db_session:
        assert host.db.Joke[joke.json["id"]].integration_type == "manual_entry"
        row = host.db.TriviaQuestion[trivia.json["id"]]
        assert row.correct_option == "B" and row.integration_type == "manual_entry"


@pytest.mark.parametrize("path,body,field", [
    ("jokes", {"category_id": "nope", "setup": "s", "punchline": "p"}, "category_id"),
    ("jokes", {"category_id": "jokes", "setup": "", "punchline": "p"}, "setup"),
    ("jokes", {"category_id": "jokes", "setup": "s"}, "punchline"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "E"}, "correct_option"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "b"}, "correct_option"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "correct_option": "A"}, "option_d"),
    ("trivia", {"category_id": "missing", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "A"}, "category_id"),
])
def test_joke_and_trivia_validation(api, path, body, field):
    result = api.post(f"/v1/curator/manual/{path}", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"]


def test_calendar_event_epoch_and_iso(api, host):
    api.post("/v1/curator/categories", json={"id": "family", "label": "Family"})
    by_ms = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Dinner", "start_ms": 1_700_000_000_000, "end_ms": 1_700_003_600_000, "all_day": False,
        "category_id": "calendar", "location": "Home", "description": "pasta"})
    assert by_ms.status_code == 201, by_ms.text
    by_iso = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Trip", "start_ms": "2026-01-02T10:00:00Z", "end_ms": "2026-01-02T12:30:00+01:00",
        "all_day": True, "category_ids": ["family", "calendar"]})
    assert by_iso.status_code == 201, by_iso.text
    with orm.db_session:
        first = host.db.CalendarEvent[by_ms.json["id"]]
        assert (first.start_ms, first.end_ms, first.source) == (1_700_000_000_000, 1_700_003_600_000, "manual_entry")
        assert first.category_id == "calendar" and first.location == "Home"
        second = host.db.CalendarEvent[by_iso.json["id"]]
        assert second.start_ms == 1_767_348_000_000 and second.end_ms == 1_767_353_400_000
        assert second.all_day is True and second.category_id == "family"
        assert [c.category_id for c in second.categories] == ["calendar"]


def test_calendar_naive_iso_uses_display_timezone(api, host):
    with orm.db_session:
        host.services["settings"].set("display_timezone", "Europe/Berlin")
    result = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Local", "start_ms": "2026-07-01T09:00:00", "end_ms": "2026-07-01", "category_id": "calendar"})
    assert result.status_code == 400  # ends before it starts
    result = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Local", "start_ms": "2026-07-01T09:00:00", "end_ms": "2026-07-01T10:00", "category_id": "calendar"})
    assert result.status_code == 201
    with orm.db_session:
        assert host.db.CalendarEvent[result.json["id"]].start_ms == 1_782_889_200_000  # 07:00 UTC


@pytest.mark.parametrize("change,field", [
    ({"start_ms": "yesterday"}, "start_ms"),
    ({"start_ms": True}, "start_ms"),
    ({"start_ms": -1}, "start_ms"),
    ({"start_ms": 1.5}, "start_ms"),
    ({"end_ms": 10**20}, "end_ms"),
    ({"end_ms": 5}, "end_ms"),
    ({"category_id": "nope"}, "category_id"),
    ({"category_id": None}, "category_id"),
    ({"title": ""}, "title"),
])
def test_calendar_validation(api, host, change, field):
    body = {"title": "T", "start_ms": 1000, "end_ms": 2000, "all_day": False, "category_id": "calendar", **change}
    result = api.post("/v1/curator/manual/calendar-events", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"]
    with orm.db_session:
        assert host.db.CalendarEvent.select().count() == 0


def test_calendar_needs_a_category(api):
    result = api.post("/v1/curator/manual/calendar-events", json={"title": "T", "start_ms": 1, "end_ms": 2})
    assert result.status_code == 400
    result = api.post("/v1/curator/manual/calendar-events",
                      json={"title": "T", "start_ms": 1, "end_ms": 2, "category_ids": ["calendar", "ghost"]})
    assert result.status_code == 400 and "category_ids" in result.json["details"]


def test_permissions(api, host):
    power = issue_key(host, "power_viewer")
    operator = issue_key(host, "operator")
    body = {"category_id": "jokes", "setup": "s", "punchline": "p"}
    assert api.post("/v1/curator/manual/jokes", key=power, json=body).status_code == 403
    assert api.post("/v1/curator/manual/jokes", key=operator, json=body).status_code == 201


def test_real_server_photo_upload(start_server):
    import io
    import os

    from PIL import Image

    server = start_server()
    key = server.key("operator")
    result = server.request("POST", "/v1/curator/manual/photos", key=key, json={
        "category": "photos", "bytes_base64": b64(image_bytes("JPEG", (32, 32))), "content_type": "image/jpeg"})
    assert result.status_code == 201, result.text
    assert (server.data_dir / "media" / result.json()["blob_key"]).is_file()
    # a photo of several MiB (noise does not compress) passes the real server's body handling
    buffer = io.BytesIO()
    Image.frombytes("RGB", (1200, 1200), os.urandom(1200 * 1200 * 3)).save(buffer, format="PNG")
    big = buffer.getvalue()
    assert 4 * 1024 * 1024 < len(big) < 8 * 1024 * 1024
    result = server.request("POST", "/v1/curator/manual/photos", key=key, json={
        "category": "photos", "bytes_base64": b64(big), "content_type": "image/png"}, timeout=60)
    assert result.status_code == 201, result.text
    assert (server.data_dir / "media" / result.json()["blob_key"]).read_bytes() == big
