"""photo_pexels, video_pexels, photo_unsplash, photo_nasa_apod: documented list formats, blobs, pools."""

from __future__ import annotations

from pony import orm

from tests.content_media import png_bytes
from hookspecs.services import INTEGRATIONS


def _setup(host, api, type_id, upstream, **config):
    with orm.db_session:
        host.db.Integration[type_id].config_json = {"baseUrl": upstream.url, **config}
    api.patch(f"/v1/integrations/{type_id}", json={"secrets": {"apiKey": "media-key-123"}})


def _rows(host, entity="Photo"):
    with orm.db_session:
        return sorted((r.to_dict() for r in getattr(host.db, entity).select()), key=lambda r: r["id"])


def pexels_photo(upstream, photo_id, alt):
    return {
        "id": photo_id,
        "width": 4000,
        "height": 3000,
        "url": f"https://www.pexels.com/photo/{photo_id}/",
        "photographer": "Jane Doe",
        "photographer_url": "https://www.pexels.com/@jane",
        "photographer_id": 1,
        "avg_color": "#7E7F7B",
        "alt": alt,
        "liked": False,
        "src": {
            "original": f"{upstream.url}/img/{photo_id}-o.png",
            "large2x": f"{upstream.url}/img/{photo_id}.png",
            "large": f"{upstream.url}/img/{photo_id}-l.png",
            "medium": "",
            "small": "",
            "portrait": "",
            "landscape": "",
            "tiny": "",
        },
    }


def test_pexels_photos_curated_and_search(host, api, upstream):
    image = png_bytes()
    for photo_id in (1, 2, 3):
        upstream.reply(f"/img/{photo_id}.png", image, "image/png")
    upstream.json(
        "/v1/curated",
        {
            "page": 1,
            "per_page": 2,
            "photos": [pexels_photo(upstream, 1, "A lake"), pexels_photo(upstream, 2, "A hill")],
            "total_results": 8000,
            "next_page": "https://api.pexels.com/v1/curated?page=2",
        },
    )
    _setup(host, api, "photo_pexels", upstream, perRun=2, maxItems=2, categoryId="nature")
    assert host.services[INTEGRATIONS].run_now("photo_pexels").status == "ok"
    assert upstream.requests_to("/v1/curated")[0].headers["Authorization"] == "media-key-123"
    rows = _rows(host)
    assert [
        (r["id"], r["alt_text"], r["photographer_name"], r["data_provider"], r["category_id"]) for r in rows
    ] == [
        ("photo_pexels:1", "A lake", "Jane Doe", "pexels", "nature"),
        ("photo_pexels:2", "A hill", "Jane Doe", "pexels", "nature"),
    ]
    assert host.blobs.get(rows[0]["media_blob_key"]).path.read_bytes() == image
    # search with a query; the pool keeps maxItems and deletes the oldest blob
    upstream.json("/v1/search", {"photos": [pexels_photo(upstream, 3, "A tree")]})
    old_key = rows[0]["media_blob_key"]
    with orm.db_session:
        host.db.Photo["photo_pexels:1"].created_at_ms -= 10_000
        host.db.Integration["photo_pexels"].config_json = {
            "baseUrl": upstream.url,
            "query": "tree",
            "maxItems": 2,
        }
    assert host.services[INTEGRATIONS].run_now("photo_pexels").status == "ok"
    assert upstream.requests_to("/v1/search")[0].query["query"] == ["tree"]
    assert [r["id"] for r in _rows(host)] == ["photo_pexels:2", "photo_pexels:3"]
    assert host.blobs.get(old_key) is None


def test_pexels_videos_pick_an_mp4_rendition(host, api, upstream):
    upstream.reply("/vid/hd.mp4", b"\x00\x00\x00\x18ftypmp42fake", "video/mp4")
    upstream.json(
        "/videos/popular",
        {
            "page": 1,
            "per_page": 1,
            "videos": [
                {
                    "id": 2499611,
                    "width": 3840,
                    "height": 2160,
                    "duration": 22,
                    "url": "https://www.pexels.com/video/2499611/",
                    "image": f"{upstream.url}/img/poster.jpg",
                    "user": {"id": 680589, "name": "Joey", "url": "https://www.pexels.com/@joey"},
                    "video_files": [
                        {
                            "id": 1,
                            "quality": "uhd",
                            "file_type": "video/mp4",
                            "width": 3840,
                            "height": 2160,
                            "link": f"{upstream.url}/vid/uhd.mp4",
                        },
                        {
                            "id": 2,
                            "quality": "hd",
                            "file_type": "video/mp4",
                            "width": 1920,
                            "height": 1080,
                            "link": f"{upstream.url}/vid/hd.mp4",
                        },
                        {
                            "id": 3,
                            "quality": "sd",
                            "file_type": "video/mp4",
                            "width": 640,
                            "height": 360,
                            "link": f"{upstream.url}/vid/sd.mp4",
                        },
                    ],
                }
            ],
        },
    )
    _setup(host, api, "video_pexels", upstream)
    assert host.services[INTEGRATIONS].run_now("video_pexels").status == "ok"
    rows = _rows(host, "Video")
    assert [(r["id"], r["duration_seconds"], r["photographer_name"], r["data_provider"]) for r in rows] == [
        ("video_pexels:2499611", 22.0, "Joey", "pexels")
    ]
    assert host.blobs.get(rows[0]["media_blob_key"]).content_type == "video/mp4"
    assert upstream.requests_to("/vid/uhd.mp4") == []


def test_unsplash_random_photos(host, api, upstream):
    upstream.reply("/photo-1.png", png_bytes(), "image/png")
    upstream.json(
        "/photos/random",
        [
            {
                "id": "Dwu85P9SOIk",
                "created_at": "2016-05-03T11:00:28-04:00",
                "width": 2448,
                "height": 3264,
                "description": "A man drinking a coffee.",
                "alt_description": "man drinking coffee",
                "urls": {
                    "raw": f"{upstream.url}/photo-1.png?raw",
                    "full": f"{upstream.url}/photo-1.png?full",
                    "regular": f"{upstream.url}/photo-1.png",
                    "small": "",
                    "thumb": "",
                },
                "links": {"self": "", "html": "https://unsplash.com/photos/Dwu85P9SOIk", "download": ""},
                "user": {
                    "id": "QPxL2MGqfrw",
                    "username": "exampleuser",
                    "name": "Joe Example",
                    "links": {"html": "https://unsplash.com/@exampleuser"},
                },
            }
        ],
    )
    _setup(host, api, "photo_unsplash", upstream, query="coffee")
    assert host.services[INTEGRATIONS].run_now("photo_unsplash").status == "ok"
    request = upstream.requests_to("/photos/random")[0]
    assert request.headers["Authorization"] == "Client-ID media-key-123"
    assert request.query["query"] == ["coffee"]
    row = _rows(host)[0]
    assert (
        row["id"],
        row["alt_text"],
        row["photographer_name"],
        row["photographer_url"],
        row["data_provider"],
    ) == (
        "photo_unsplash:Dwu85P9SOIk",
        "man drinking coffee",
        "Joe Example",
        "https://unsplash.com/@exampleuser",
        "unsplash",
    )


def test_nasa_apod_images_only(host, api, upstream):
    upstream.reply("/apod.png", png_bytes(), "image/png")
    upstream.json(
        "/planetary/apod",
        {
            "copyright": "Someone",
            "date": "2024-06-01",
            "explanation": "A galaxy.",
            "hdurl": f"{upstream.url}/apod-hd.png",
            "media_type": "image",
            "service_version": "v1",
            "title": "Galaxy",
            "url": f"{upstream.url}/apod.png",
        },
    )
    _setup(host, api, "photo_nasa_apod", upstream)
    assert host.services[INTEGRATIONS].run_now("photo_nasa_apod").status == "ok"
    assert upstream.requests_to("/planetary/apod")[0].query["api_key"] == ["media-key-123"]
    row = _rows(host)[0]
    assert (row["id"], row["alt_text"], row["data_provider"]) == (
        "photo_nasa_apod:2024-06-01",
        "Galaxy",
        "nasa_apod",
    )
    assert row["source_url"] == "https://apod.nasa.gov/apod/ap240601.html"
    upstream.json(
        "/planetary/apod",
        {
            "date": "2024-06-02",
            "media_type": "video",
            "title": "A video",
            "url": "https://www.youtube.com/embed/x",
        },
    )
    result = host.services[INTEGRATIONS].run_now("photo_nasa_apod")
    assert result.status == "ok" and "skipped" in result.message
