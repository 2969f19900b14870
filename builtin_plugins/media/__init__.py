"""Media: photos and videos from Pexels, Unsplash and NASA's picture of the day or uploaded by
hand, the slides and overlay that show them, and the media lookups every client uses.

- tables (``models.py``): ``Photo``, ``Video`` (catalog, spec 2.8); the bytes are blobs;
- collectors (``providers.py``, ``store.py``): ``photo_pexels``, ``video_pexels``,
  ``photo_unsplash``, ``photo_nasa_apod``; ``photo_webdav``, ``video_webdav`` (a WebDAV folder,
  ``webdav.py``);
- REST: ``POST /v1/curator/manual/{photos,videos}`` (``manual.py``, bytes checked by
  ``media_check.py``); ``/v1/media/blob-by-key`` and ``/v1/media/<list>/{id}`` for every
  content list with a media shape (``lookups.py``, spec 4.8);
- types (``types.json``): slides ``photo``, ``video``; overlay ``photo_slideshow``; the six
  collectors;
- content lists (``content.py``): ``photos``, ``videos`` (catalog, moderation with blob
  release, media, cloud feed kinds ``photo``, ``video``).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.media import content, lookups, manual, models
from builtin_plugins.media.media_check import PHOTO_EXTENSIONS, VIDEO_EXTENSIONS, check_image, check_video
from hookspecs import Feature, Operation, Route, hookimpl
from hookspecs.catalog import load_types
from hookspecs.permissions import CURATOR_WRITE, TELEMETRY_READ, declare


def _upload(summary: str, body: type, max_bytes: int) -> dict:
    return {"POST": Operation(CURATOR_WRITE, summary, body=body, response=manual.BlobIdSchema, status=201,
                              max_body=manual.base64_cap(max_bytes), tags=("curator",),
                              publishes=("catalog",))}


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return [
        Route("/v1/curator/manual/photos",
              manual.MediaUploadResource(host, "Photo", "photo", manual.MAX_PHOTO_BYTES, check_image,
                                         PHOTO_EXTENSIONS),
              _upload("upload a photo (JPEG, PNG or WebP, at most 8 MiB)", manual.PhotoBody,
                      manual.MAX_PHOTO_BYTES)),
        Route("/v1/curator/manual/videos",
              manual.MediaUploadResource(host, "Video", "video", manual.MAX_VIDEO_BYTES, check_video,
                                         VIDEO_EXTENSIONS, ("duration_seconds",)),
              _upload("upload a video (MP4, QuickTime or WebM, at most 50 MiB)", manual.VideoBody,
                      manual.MAX_VIDEO_BYTES)),
        *lookups.routes(host),
    ]


TYPES = load_types(__name__)
FEATURE = Feature(
    permissions=declare(TELEMETRY_READ, CURATOR_WRITE),
    entities=models.define_entities,
    types=TYPES,
    content_lists=content.LISTS,
    samples="builtin_plugins.media.samples:write",
)
