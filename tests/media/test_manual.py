"""Photos and videos uploaded by hand over HTTP (spec 4.5): bytes checked, size limits, blobs, provenance."""
import base64

import pytest
from pony import orm

from builtin_plugins.media.manual import MAX_PHOTO_BYTES, MAX_VIDEO_BYTES
from tests.content_media import MOV, MP4, WEBM, b64, image_bytes

pytestmark = pytest.mark.svc_display_storage


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
