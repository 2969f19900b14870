"""Feed media: the files photo and video items name are fetched from the feed's server, held to
the limits of an upload, and counted in the ``saas`` health block (they were never downloaded,
so photos and videos did not show in SaaS mode). In-process host, the reference server."""
from __future__ import annotations

import time

from tests.cloud_feed.conftest import KEY, FeedServer, write
from tests.content_media import image_bytes
from hookspecs.services import HEALTH_SECTIONS, INTEGRATION_TELEMETRY


def photo(ident: str, key: str) -> dict:
    return {"event": "upsert", "data": {"kind": "photo", "id": ident, "media_blob_key": key}}


def test_named_media_are_fetched_checked_like_uploads_and_counted(tmp_path, make_host):
    media = tmp_path / "media"
    (media / "photos").mkdir(parents=True)
    png = image_bytes("PNG")
    (media / "photos" / "ok.png").write_bytes(png)
    (media / "photos" / "article.png").write_bytes(png)  # a news article's picture
    (media / "photos" / "fake.png").write_bytes(b"not a picture at all")  # bytes that are no PNG
    (media / "photos" / "notes.txt").write_text("text/plain is no photo type")
    script = tmp_path / "feed.jsonl"
    write(script, photo("p1", "photos/ok.png"), photo("p2", "photos/fake.png"),
          photo("p3", "photos/notes.txt"),
          {"event": "upsert", "data": {"kind": "rss_article", "id": "a1", "title": "With a picture",
                                       "image_blob_key": "photos/article.png"}},
          photo("p4", "photos/missing.png"),
          {"event": "snapshot", "data": {"kinds": ["photo"], "items": [
              {"kind": "photo", "id": "p1", "media_blob_key": "photos/ok.png"}]}})  # held: not fetched again
    server = FeedServer(script, media).start()
    try:
        host = make_host({"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": server.base, "SVC_SAAS_DISPLAY_ID": "lobby",
                          "SVC_SAAS_API_KEY": KEY, "SVC_SAAS_RECONNECT_MIN_MS": "50"})
        telemetry = host.services[INTEGRATION_TELEMETRY]
        deadline = time.monotonic() + 30  # a stall bound
        while not any(line["message"].startswith("event 6:") for line in telemetry.lines()):
            assert time.monotonic() < deadline, telemetry.lines()
            time.sleep(0.05)
        health = host.services[HEALTH_SECTIONS]["saas"]()
        messages = [line["message"] for line in telemetry.lines()]
        assert (health["media_cached"], health["media_failed"]) == (2, 3), messages
        assert host.blobs.get("photos/article.png").path.read_bytes() == png
        stored = host.blobs.get("photos/ok.png")
        assert stored is not None and stored.path.read_bytes() == png and stored.content_type == "image/png"
        for key in ("photos/fake.png", "photos/notes.txt", "photos/missing.png"):
            assert host.blobs.get(key) is None
        reasons = {m.split()[1]: m for m in messages if m.startswith("media ") and "not stored" in m}
        assert "HTTPStatusError" in reasons["photos/missing.png"]
        assert "content type text/plain is not one of image/jpeg, image/png, image/webp" in reasons["photos/notes.txt"]
        assert "MediaError" in reasons["photos/fake.png"]
        assert KEY not in "\n".join(messages)
        # the snapshot kept p1 and its file; deleting the rows lets the file go (no row uses it)
        assert host.blobs.get("photos/ok.png") is not None
        write(script, {"event": "delete", "data": {"kind": "rss_article", "id": "a1"}})
        while not any(line["message"].startswith("event 7:") for line in telemetry.lines()):
            assert time.monotonic() < deadline + 30, telemetry.lines()
            time.sleep(0.05)
        assert host.blobs.get("photos/article.png") is None and host.blobs.get("photos/ok.png") is not None
        write(script, {"event": "delete", "data": {"kind": "photo", "id": "p1"}})
        while not any(line["message"].startswith("event 8:") for line in telemetry.lines()):
            assert time.monotonic() < deadline + 30, telemetry.lines()
            time.sleep(0.05)
        assert host.blobs.get("photos/ok.png") is None
    finally:
        server.stop()
