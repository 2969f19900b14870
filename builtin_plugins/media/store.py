"""Photo and video rows with their media blobs: upsert once per external id, trim the pool."""

from __future__ import annotations

from typing import Any

from pony import orm

from svc_host.kit.collecting import (
    DEFAULT_IMAGE_BYTES,
    DEFAULT_VIDEO_BYTES,
    IMAGE_TYPES,
    VIDEO_TYPES,
    CollectorError,
    clip,
    delete_blobs,
    store_remote_media,
)


def add_media(ctx: Any, entity: str, external_id: str, media_url: str, fields: dict[str, Any],
              headers: dict[str, str] | None = None) -> bool:
    """Download and insert one photo/video unless its row exists; returns True when added.

    ``headers`` go with the download (a WebDAV folder's credentials); the external id is also
    the blob's version, so a changed file (a new id) never shares a blob with the old row."""
    db = ctx.db
    table = getattr(db, entity)
    row_id = f"{ctx.integration_type}:{clip(external_id, 150)}"
    with orm.db_session:
        if table.get(id=row_id) is not None:
            return False
    video = entity == "Video"
    key = store_remote_media(
        ctx,
        media_url,
        f"{ctx.integration_type}",
        VIDEO_TYPES if video else IMAGE_TYPES,
        DEFAULT_VIDEO_BYTES if video else DEFAULT_IMAGE_BYTES,
        headers,
        external_id if headers else "",
    )
    if key is None:
        raise CollectorError(f"{entity.lower()} {external_id}: the media URL did not return a supported type")
    values = {
        "alt_text": clip(fields.get("alt_text"), 2000),
        "photographer_name": clip(fields.get("photographer_name"), 500),
        "photographer_url": clip(fields.get("photographer_url"), 2048),
        "source_url": clip(fields.get("source_url"), 2048),
        "data_provider": fields["data_provider"],
        "category_id": fields.get("category_id") or ("videos" if video else "photos"),
    }
    if video:
        values["duration_seconds"] = float(fields.get("duration_seconds") or 0)
    with orm.db_session:
        if table.get(id=row_id) is not None:
            ctx.blobs.delete(key)
            return False
        table(
            id=row_id,
            media_blob_key=key,
            integration_type=ctx.integration_type,
            created_at_ms=ctx.now_ms(),
            **values,
        )
    return True


def trim_pool(ctx: Any, entity: str, keep: int, listed: set[str] | None = None) -> int:
    """Delete this collector's oldest rows beyond ``keep`` together with their blobs, and with
    ``listed`` (the row ids the source still lists) every row not in it."""
    table = getattr(ctx.db, entity)
    with orm.db_session:
        rows = sorted(
            table.select(lambda r: r.integration_type == ctx.integration_type),
            key=lambda r: (r.created_at_ms, r.id),
            reverse=True,
        )
        if listed is not None:
            gone = [r for r in rows if r.id not in listed]
            rows = [r for r in rows if r.id in listed]
        else:
            gone = []
        removed = gone + rows[max(0, keep):]
        keys = [r.media_blob_key for r in removed]
        for row in removed:
            row.delete()
    delete_blobs(ctx, keys)
    return len(removed)


def add_all(ctx: Any, entity: str, items: list[tuple[str, str, dict[str, Any]]], keep: int,
            headers: dict[str, str] | None = None, mirror: bool = False) -> str:
    """Add every (external id, media url, fields) item; one failed download does not stop the rest.

    ``mirror``: the items are the source's whole listing; rows of ids no longer listed go."""
    added, failed = 0, 0
    for external_id, url, fields in items:
        ctx.checkpoint()
        try:
            added += add_media(ctx, entity, external_id, url, fields, headers)
        except Exception as exc:  # noqa: BLE001 - one bad item is logged, the others still come in
            failed += 1
            ctx.log(f"{entity.lower()} {external_id}: {exc}", "warning")
    if items and failed == len(items):
        raise CollectorError(f"every {entity.lower()} download failed ({failed})")
    listed = {f"{ctx.integration_type}:{clip(external_id, 150)}" for external_id, _, _ in items}
    trim_pool(ctx, entity, keep, listed if mirror else None)
    ctx.summary = f"{len(items)} listed, {added} new" + (f", {failed} failed" if failed else "")
    return ctx.summary
