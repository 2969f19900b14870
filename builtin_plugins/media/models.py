"""The media tables: photos and videos of the catalog (spec 2.8); the bytes are blobs."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def _credited_media() -> tuple:
    """The columns a photo and a video share, in their table order: the id, the credit (alt text,
    photographer, source, provider) and the blob."""
    return (orm.PrimaryKey(str, 200), orm.Optional(str, 2000, default=""), orm.Optional(str, 500, default=""),
            orm.Optional(str, 2048, default=""), orm.Optional(str, 2048, default=""), orm.Required(str, 100),
            orm.Required(str, 512))


def define_entities(db: Any) -> None:
    class Photo(db.Entity):
        _table_ = "svc_photo"
        (id, alt_text, photographer_name, photographer_url, source_url, data_provider,
         media_blob_key) = _credited_media()
        category_id = orm.Required(str, 64, default="photos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Video(db.Entity):
        _table_ = "svc_video"
        (id, alt_text, photographer_name, photographer_url, source_url, data_provider,
         media_blob_key) = _credited_media()
        duration_seconds = orm.Required(float)
        category_id = orm.Required(str, 64, default="videos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)
