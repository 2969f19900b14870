"""The photo and video content lists: catalog, moderation (their blobs are released on delete),
media lookups, the cloud feed."""
from __future__ import annotations

from typing import Any

from builtin_plugins.media.manual import MAX_PHOTO_BYTES, MAX_VIDEO_BYTES
from builtin_plugins.media.media_check import PHOTO_TYPES, VIDEO_EXTENSIONS, check_image, check_video
from hookspecs import ContentList, FeedBlob, FeedKind
from hookspecs.content import FEED_PROVENANCE, FeedItem

NEWEST = (("created_at_ms", True), ("id", True))


def photo_json(row: Any) -> dict:
    return {"id": row.id, "alt_text": row.alt_text, "photographer_name": row.photographer_name,
            "photographer_url": row.photographer_url, "source_url": row.source_url,
            "data_provider": row.data_provider, "media_blob_key": row.media_blob_key,
            "category_id": row.category_id, "integration_type": row.integration_type,
            "created_at_ms": row.created_at_ms}


def video_json(row: Any) -> dict:
    return {**photo_json(row), "duration_seconds": row.duration_seconds}


def _media_values(item: FeedItem, now: int) -> dict:
    return {"alt_text": item.text("alt_text", 2000), "photographer_name": item.text("photographer_name", 500),
            "data_provider": item.text("data_provider", 100) or FEED_PROVENANCE,
            "media_blob_key": item.text("media_blob_key", 512, True), "created_at_ms": now}


# the feed's files are held to the limits of an upload (POST /v1/curator/manual/...)
PHOTO_FEED = FeedKind("photo", _media_values,
                      blob=FeedBlob("media_blob_key", tuple(PHOTO_TYPES), MAX_PHOTO_BYTES, check_image))
VIDEO_FEED = FeedKind("video", lambda i, now: {
    **_media_values(i, now), "duration_seconds": i.number("duration_seconds", True)},
    blob=FeedBlob("media_blob_key", tuple(VIDEO_EXTENSIONS), MAX_VIDEO_BYTES, check_video))


LISTS = [
    ContentList("photos", "Photo", photo_json, label="photos",
                filters={"alt_text": "alt_text", "photographer_name": "photographer_name",
                         "data_provider": "data_provider", "category": "category_id"},
                order=NEWEST, suppressible=True, blob_attribute="media_blob_key", media=photo_json,
                feed=PHOTO_FEED),
    ContentList("videos", "Video", video_json, label="videos",
                filters={"alt_text": "alt_text", "photographer_name": "photographer_name",
                         "data_provider": "data_provider", "category": "category_id"},
                order=NEWEST, suppressible=True, blob_attribute="media_blob_key", media=video_json,
                feed=VIDEO_FEED),
]
