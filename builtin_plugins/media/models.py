"""The media tables: photos and videos of the catalog (spec 2.8); the bytes are blobs."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class Photo(db.Entity):
        _table_ = "svc_photo"
        id = orm.PrimaryKey(str, 200)
        alt_text = orm.Optional(str, 2000, default="")
        photographer_name = orm.Optional(str, 500, default="")
        photographer_url = orm.Optional(str, 2048, default="")
        source_url = orm.Optional(str, 2048, default="")
        data_provider = orm.Required(str, 100)
        media_blob_key = orm.Required(str, 512)
        category_id = orm.Required(str, 64, default="photos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Video(db.Entity):
        _table_ = "svc_video"
        id = orm.PrimaryKey(str, 200)
        alt_text = orm.Optional(str, 2000, default="")
        photographer_name = orm.Optional(str, 500, default="")
        photographer_url = orm.Optional(str, 2048, default="")
        source_url = orm.Optional(str, 2048, default="")
        data_provider = orm.Required(str, 100)
        media_blob_key = orm.Required(str, 512)
        duration_seconds = orm.Required(float)
        category_id = orm.Required(str, 64, default="videos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)
