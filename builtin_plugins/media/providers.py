"""Photo and video providers: Pexels (photos, videos), Unsplash (photos), NASA APOD.

Every provider lists items from its documented JSON API, downloads the chosen rendition
into a blob and keeps a pool of ``maxItems`` rows (oldest removed with their blobs).
"""

from __future__ import annotations

from typing import Any

from svc_host.kit.collecting import CollectorError
from builtin_plugins.media.store import add_all

PEXELS = "https://api.pexels.com"
UNSPLASH = "https://api.unsplash.com"
NASA = "https://api.nasa.gov"


def _list(data: Any, field: str) -> list:
    if not isinstance(data, dict) or not isinstance(data.get(field), list):
        raise CollectorError(f"answer has no {field!r} list")
    return [item for item in data[field] if isinstance(item, dict)]


def _item(ctx: Any, provider: str, item_id: Any, url: str, **fields: Any) -> tuple[str, str, dict[str, Any]]:
    """An ``add_all`` item of ``provider``, in the content category the row's ``categoryId`` names."""
    return str(item_id), url, {**fields, "data_provider": provider, "category_id": ctx.config.get("categoryId")}


def _pexels(ctx: Any, field: str, search: str, browse: str) -> list:
    """Pexels' ``field`` list: the ``search`` path for the configured ``query``, else ``browse``."""
    query, per_run = ctx.config.get("query"), int(ctx.config.get("perRun", 10))
    path, params = (search, {"query": query, "per_page": per_run}) if query else (browse, {"per_page": per_run})
    answer = ctx.http.get_json(ctx.base_url(PEXELS) + path, params=params, headers={"Authorization": ctx.secret("apiKey")})
    return _list(answer, field)


def collect_pexels_photos(ctx: Any) -> str:
    photos = _pexels(ctx, "photos", "/v1/search", "/v1/curated")
    size = ctx.config.get("size", "large2x")
    items = []
    for photo in photos:
        src = photo.get("src") if isinstance(photo.get("src"), dict) else {}
        url = src.get(size) or src.get("large") or src.get("original")
        if url and photo.get("id") is not None:
            items.append(_item(ctx, "pexels", photo["id"], url, alt_text=photo.get("alt"),
                               photographer_name=photo.get("photographer"),
                               photographer_url=photo.get("photographer_url"), source_url=photo.get("url")))
    return add_all(ctx, "Photo", items, int(ctx.config.get("maxItems", 50)))


def collect_pexels_videos(ctx: Any) -> str:
    videos = _pexels(ctx, "videos", "/videos/search", "/videos/popular")
    max_width = int(ctx.config.get("maxWidth", 1920))
    items = []
    for video in videos:
        files = [
            f
            for f in video.get("video_files") or []
            if isinstance(f, dict)
            and f.get("link")
            and f.get("file_type") == "video/mp4"
            and isinstance(f.get("width"), int)
            and f["width"] <= max_width
        ]
        if not files or video.get("id") is None:
            continue
        best = max(files, key=lambda f: f["width"])
        user = video.get("user") if isinstance(video.get("user"), dict) else {}
        items.append(_item(ctx, "pexels", video["id"], best["link"], alt_text="",
                           photographer_name=user.get("name"), photographer_url=user.get("url"),
                           source_url=video.get("url"), duration_seconds=video.get("duration")))
    return add_all(ctx, "Video", items, int(ctx.config.get("maxItems", 20)))


def collect_unsplash(ctx: Any) -> str:
    base, per_run = ctx.base_url(UNSPLASH), int(ctx.config.get("perRun", 10))
    params: dict[str, Any] = {"count": min(30, per_run)}
    if ctx.config.get("query"):
        params["query"] = ctx.config["query"]
    data = ctx.http.get_json(
        base + "/photos/random",
        params=params,
        headers={"Authorization": f"Client-ID {ctx.secret('apiKey')}", "Accept-Version": "v1"},
    )
    if not isinstance(data, list):
        raise CollectorError("answer is not a list of photos")
    items = []
    for photo in data:
        if not isinstance(photo, dict) or not isinstance(photo.get("urls"), dict) or not photo.get("id"):
            continue
        user = photo.get("user") if isinstance(photo.get("user"), dict) else {}
        links = photo.get("links") if isinstance(photo.get("links"), dict) else {}
        user_links = user.get("links") if isinstance(user.get("links"), dict) else {}
        url = photo["urls"].get(ctx.config.get("size", "regular")) or photo["urls"].get("full")
        if url:
            items.append(_item(ctx, "unsplash", photo["id"], url,
                               alt_text=photo.get("alt_description") or photo.get("description"),
                               photographer_name=user.get("name"), photographer_url=user_links.get("html"),
                               source_url=links.get("html")))
    return add_all(ctx, "Photo", items, int(ctx.config.get("maxItems", 50)))


def apod_page(day: str) -> str:
    """The APOD web page of a ``YYYY-MM-DD`` day (``apYYMMDD.html``)."""
    return f"https://apod.nasa.gov/apod/ap{day.replace('-', '')[2:]}.html"


def collect_apod(ctx: Any) -> str:
    data = ctx.http.get_json(
        ctx.base_url(NASA) + "/planetary/apod",
        params={"api_key": ctx.secrets.get("apiKey") or "DEMO_KEY", "thumbs": "true"},
    )
    if not isinstance(data, dict) or not data.get("date") or not data.get("url"):
        raise CollectorError("answer has no date and url")
    if data.get("media_type") != "image":
        ctx.summary = f"picture of {data['date']} is a {data.get('media_type')}, not an image: skipped"
        return ctx.summary
    url = data.get("hdurl") if ctx.config.get("hd") else data["url"]
    item = _item(ctx, "nasa_apod", data["date"], url or data["url"], alt_text=data.get("title"),
                 photographer_name=data.get("copyright") or "NASA", source_url=apod_page(str(data["date"])))
    return add_all(ctx, "Photo", [item], int(ctx.config.get("maxItems", 30)))
