"""``photo_webdav``, ``video_webdav``: the pictures or videos of a WebDAV folder (a Nextcloud or
ownCloud folder, any WebDAV server), no vendor account needed.

Each run lists the folder with ``PROPFIND`` (``Depth: 1``, RFC 4918), keeps the files whose
content type (or, without one, extension) is a supported image or video and whose declared
size is within the upload limits, downloads new or changed ones (the row id holds the file's
ETag, else its last-modified date, so a changed file is a new row and its old row goes), and
removes the rows of files gone from the folder, blobs included. Credentials: ``username`` in
the config, ``password`` (or a Nextcloud app password) as a secret - sent as HTTP Basic only
to the folder's own origin: an ``href`` pointing elsewhere is skipped.

The multistatus answer is parsed with ``defusedxml`` (no DTDs, no entity expansion).
"""

from __future__ import annotations

import base64
import posixpath
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from builtin_plugins.media.store import add_all
from svc_host.kit.collecting import (
    DEFAULT_IMAGE_BYTES,
    DEFAULT_VIDEO_BYTES,
    IMAGE_TYPES,
    VIDEO_TYPES,
    CollectorError,
    digest,
)

DAV = "{DAV:}"
PROPFIND = b"""<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontenttype/><d:getcontentlength/>
<d:getetag/><d:getlastmodified/><d:displayname/></d:prop></d:propfind>"""
MAX_LISTING_BYTES = 4 * 1024 * 1024
EXTENSIONS = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp",
    ".gif": "image/gif", ".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm",
    ".mov": "video/quicktime",
}


def _prop(response: Any, name: str) -> str:
    """The text of ``name`` in the response's 200 propstat (other propstats are missing props)."""
    for propstat in response.findall(f"{DAV}propstat"):
        status = propstat.findtext(f"{DAV}status") or ""
        if " 200 " not in status + " ":
            continue
        element = propstat.find(f"{DAV}prop/{DAV}{name}")
        if element is not None:
            return (element.text or "").strip()
    return ""


def _is_collection(response: Any) -> bool:
    return response.find(f"{DAV}propstat/{DAV}prop/{DAV}resourcetype/{DAV}collection") is not None


def parse_listing(body: bytes, folder_url: str) -> list[dict[str, Any]]:
    """The files of a PROPFIND multistatus answer: ``url``, ``name``, ``type``, ``size``, ``version``."""
    try:
        root = fromstring(body, forbid_dtd=True)
    except (ParseError, DefusedXmlException, ValueError) as exc:
        raise CollectorError(f"the folder listing is not a WebDAV multistatus: {type(exc).__name__}") from None
    if root.tag != f"{DAV}multistatus":
        raise CollectorError("the folder listing is not a WebDAV multistatus")
    origin = urlsplit(folder_url)[:2]
    files = []
    for response in root.findall(f"{DAV}response"):
        href = (response.findtext(f"{DAV}href") or "").strip()
        if not href or _is_collection(response):
            continue
        url = urljoin(folder_url, href)
        if urlsplit(url)[:2] != origin:
            continue  # the credentials go to the folder's own server only
        name = posixpath.basename(unquote(urlsplit(url).path))
        content_type = _prop(response, "getcontenttype").split(";")[0].strip().lower()
        if content_type not in IMAGE_TYPES and content_type not in VIDEO_TYPES:
            content_type = EXTENSIONS.get(posixpath.splitext(name)[1].lower(), content_type)
        size = _prop(response, "getcontentlength")
        files.append({
            "url": url,
            "name": name,
            "type": content_type,
            "size": int(size) if size.isdigit() else None,
            "version": _prop(response, "getetag") or _prop(response, "getlastmodified"),
            "title": _prop(response, "displayname") or posixpath.splitext(name)[0],
        })
    return files


def _auth(ctx: Any) -> dict[str, str]:
    user, password = ctx.config.get("username") or "", ctx.secrets.get("password") or ""
    if not user and not password:
        return {}
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return {"Authorization": f"Basic {token}"}


def _collect(ctx: Any, entity: str) -> str:
    video = entity == "Video"
    kinds, cap = (VIDEO_TYPES, DEFAULT_VIDEO_BYTES) if video else (IMAGE_TYPES, DEFAULT_IMAGE_BYTES)
    folder = ctx.config.get("folderUrl")
    if not folder:
        raise CollectorError("folderUrl is not configured")
    folder = folder if folder.endswith("/") else folder + "/"
    headers = _auth(ctx)
    response = ctx.http.request(
        "PROPFIND", folder, headers={**headers, "Depth": "1", "Content-Type": "application/xml"},
        data=PROPFIND, accept="application/xml, text/xml", max_bytes=MAX_LISTING_BYTES,
    )
    items = []
    for item in parse_listing(response.content, folder):
        if item["type"] not in kinds:
            continue
        if item["size"] is not None and item["size"] > cap:
            ctx.log(f"{item['name']} skipped: {item['size']} bytes is over the {cap}-byte limit", "warning")
            continue
        fields = {"alt_text": item["title"], "source_url": "", "data_provider": "webdav",
                  "category_id": ctx.config.get("categoryId")}
        items.append((digest(item["url"], item["version"], length=32), item["url"], fields))
    return add_all(ctx, entity, items[: int(ctx.config.get("maxItems", 20 if video else 200))],
                   10**6, headers=headers, mirror=True)


def collect_photos(ctx: Any) -> str:
    """``photo_webdav``."""
    return _collect(ctx, "Photo")


def collect_videos(ctx: Any) -> str:
    """``video_webdav``."""
    return _collect(ctx, "Video")
