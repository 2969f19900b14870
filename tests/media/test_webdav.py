"""photo_webdav, video_webdav: a WebDAV folder listed with PROPFIND on a loopback stub; new and
changed files downloaded with the folder's credentials, gone files removed, limits and DTDs refused."""

from __future__ import annotations

import base64

import pytest
from pony import orm

from svc_display.testing.upstream import Reply
from tests.content_media import png_bytes
from hookspecs.services import INTEGRATIONS

pytestmark = pytest.mark.svc_display_storage
AUTH = "Basic " + base64.b64encode(b"alice:app-pass-123").decode()


def _entry(href: str, etag: str, content_type: str = "", size: int = 100, collection: bool = False) -> str:
    kind = "<d:resourcetype><d:collection/></d:resourcetype>" if collection else "<d:resourcetype/>"
    typed = f"<d:getcontenttype>{content_type}</d:getcontenttype>" if content_type else ""
    return f"""<d:response><d:href>{href}</d:href><d:propstat><d:prop>{kind}{typed}
<d:getcontentlength>{size}</d:getcontentlength><d:getetag>"{etag}"</d:getetag>
<d:getlastmodified>Fri, 27 Nov 2026 10:00:00 GMT</d:getlastmodified></d:prop>
<d:status>HTTP/1.1 200 OK</d:status></d:propstat>
<d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
</d:response>"""


def _folder(upstream, entries: list[str], prefix: bytes = b"") -> None:
    body = prefix + ('<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">' + "".join(entries)
                     + "</d:multistatus>").encode()

    def answer(request):
        if request.method != "PROPFIND":
            return Reply(405, {}, b"")
        if request.headers.get("Authorization") != AUTH:
            return Reply(401, {"WWW-Authenticate": 'Basic realm="dav"'}, b"")
        return Reply(207, {"Content-Type": 'application/xml; charset="utf-8"'}, body)

    upstream.handle("/dav/files/alice/Photos/", answer)


def _setup(host, api, upstream, type_id="photo_webdav", **config):
    with orm.db_session:
        host.db.Integration[type_id].config_json = {
            "folderUrl": upstream.url + "/dav/files/alice/Photos", "username": "alice", **config}
    assert api.patch(f"/v1/integrations/{type_id}", json={"secrets": {"password": "app-pass-123"}}).status_code == 200


def _rows(host, entity="Photo"):
    with orm.db_session:
        return {r.alt_text: (r.id, r.media_blob_key, r.category_id, r.data_provider)
                for r in getattr(host.db, entity).select()}


def test_webdav_folder_is_mirrored(host, api, upstream):
    image, other = png_bytes(), png_bytes((10, 200, 30))
    for name, data in (("lake.png", image), ("hill.png", image), ("tree.png", other)):
        upstream.handle(f"/dav/files/alice/Photos/{name}",
                        lambda request, data=data: Reply(200, {"Content-Type": "image/png"}, data)
                        if request.headers.get("Authorization") == AUTH else Reply(401, {}, b""))
    base = "/dav/files/alice/Photos/"
    _folder(upstream, [
        _entry(base, "d1", collection=True),
        _entry(base + "lake.png", "e1", "image/png"),
        _entry(base + "hill.png", "e2"),  # no content type: known by its extension
        _entry(base + "notes.txt", "e3", "text/plain"),
        _entry(base + "huge.jpg", "e4", "image/jpeg", size=9 * 1024 * 1024),
        _entry("http://elsewhere.invalid/steal.png", "e5", "image/png"),
    ])
    _setup(host, api, upstream, categoryId="family")
    result = host.services[INTEGRATIONS].run_now("photo_webdav")
    assert result.status == "ok", result
    listing = upstream.requests_to(base)[0]
    assert listing.method == "PROPFIND" and listing.headers["Depth"] == "1"
    rows = _rows(host)
    assert sorted(rows) == ["hill", "lake"]
    assert {r[2] for r in rows.values()} == {"family"} and {r[3] for r in rows.values()} == {"webdav"}
    assert host.blobs.get(rows["lake"][1]).path.read_bytes() == image
    assert not upstream.requests_to(base + "huge.jpg")
    # idempotent: nothing downloaded again
    downloads = len(upstream.requests_to(base + "lake.png"))
    assert host.services[INTEGRATIONS].run_now("photo_webdav").status == "ok"
    assert _rows(host) == rows and len(upstream.requests_to(base + "lake.png")) == downloads
    # lake.png changed (new ETag), hill.png is gone, tree.png is new
    _folder(upstream, [_entry(base + "lake.png", "e1-v2", "image/png"), _entry(base + "tree.png", "e6")])
    upstream.handle(base + "lake.png", lambda request: Reply(200, {"Content-Type": "image/png"}, other))
    assert host.services[INTEGRATIONS].run_now("photo_webdav").status == "ok"
    after = _rows(host)
    assert sorted(after) == ["lake", "tree"] and after["lake"][0] != rows["lake"][0]
    assert host.blobs.get(after["lake"][1]).path.read_bytes() == other
    assert host.blobs.get(rows["lake"][1]) is None and host.blobs.get(rows["hill"][1]) is None


def test_webdav_videos_and_refusals(host, api, upstream):
    base = "/dav/files/alice/Photos/"
    upstream.reply(base + "clip.mp4", b"\x00\x00\x00\x18ftypmp42fake", "video/mp4")
    _folder(upstream, [_entry(base + "clip.mp4", "v1", "video/mp4"), _entry(base + "lake.png", "e1", "image/png")])
    _setup(host, api, upstream, "video_webdav")
    assert host.services[INTEGRATIONS].run_now("video_webdav").status == "ok"
    assert sorted(_rows(host, "Video")) == ["clip"] and _rows(host) == {}
    integration = api.get("/v1/integrations/video_webdav").json
    assert integration["secrets_configured"] is True and "app-pass-123" not in str(integration)
    # a listing with a DTD (entity expansion) is refused and changes nothing
    upstream.reply(base + "other.mp4", b"\x00\x00\x00\x18ftypmp42fake", "video/mp4")
    _folder(upstream, [_entry(base + "other.mp4", "v2", "video/mp4")],
            prefix=b'<!DOCTYPE x [<!ENTITY a "aaaa">]>')
    result = host.services[INTEGRATIONS].run_now("video_webdav")
    assert result.status == "failed" and "not a WebDAV multistatus" in result.message, result
    assert sorted(_rows(host, "Video")) == ["clip"]
    # wrong credentials: the run fails, the rows stay
    assert api.patch("/v1/integrations/video_webdav", json={"secrets": {"password": "wrong"}}).status_code == 200
    _folder(upstream, [_entry(base + "other.mp4", "v2", "video/mp4")])
    result = host.services[INTEGRATIONS].run_now("video_webdav")
    assert result.status == "failed" and "401" in result.message, result
    assert sorted(_rows(host, "Video")) == ["clip"]
