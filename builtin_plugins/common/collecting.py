"""Helpers every collector uses: stable row ids, text cleanup, remote media into blobs, per-row outcome.

Collectors receive a :class:`builtin_plugins.integrations.engine.CollectorContext` and use
these functions with it; nothing here talks to the network except through ``ctx.http``.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any, Iterable

IMAGE_TYPES = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/gif": ".gif"}
VIDEO_TYPES = {"video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov"}
DEFAULT_IMAGE_BYTES = 8 * 1024 * 1024
DEFAULT_VIDEO_BYTES = 50 * 1024 * 1024


class CollectorError(Exception):
    """Raise from a collector for an expected failure; the message goes to telemetry as is."""


_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def digest(*parts: Any, length: int = 24) -> str:
    """A short stable hex id from ``parts`` (external ids can be long or contain anything)."""
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:length]


def row_id(integration_type: str, *parts: Any) -> str:
    """``<integration_type>:<digest of the external id>`` (content_model convention)."""
    return f"{integration_type}:{digest(*parts)}"


def plain_text(value: Any, limit: int) -> str:
    """HTML fragments and entities to one line of plain text, cut at ``limit`` characters."""
    if value is None:
        return ""
    text = str(value)
    if "<" in text:
        text = _TAG.sub(" ", _SCRIPT.sub(" ", text))
    text = html.unescape(text)
    text = _SPACE.sub(" ", text).strip()
    return text[:limit]


def clip(value: Any, limit: int) -> str:
    return ("" if value is None else str(value))[:limit]


def store_remote_media(
    ctx: Any, url: str, prefix: str, kinds: dict[str, str] = IMAGE_TYPES, max_bytes: int = DEFAULT_IMAGE_BYTES
) -> str | None:
    """Download ``url`` into a blob under ``prefix`` and return its key.

    The content type must be one of ``kinds`` (else ``None``); the download goes through
    ``ctx.http`` with its timeouts and ``max_bytes``. Failures propagate as ``HttpFailure``.
    """
    response = ctx.http.get(url, max_bytes=max_bytes, accept=",".join(kinds))
    content_type = response.content_type
    if content_type not in kinds or not response.content:
        return None
    key = f"{prefix}/{digest(url, length=32)}{kinds[content_type]}"
    ctx.blobs.put(key, response.content, content_type)
    return key


def delete_blobs(ctx: Any, keys: Iterable[str | None]) -> None:
    for key in keys:
        if key:
            ctx.blobs.delete(key)


def require(value: Any, kind: type, what: str) -> Any:
    """``value`` when it is a ``kind``, else a CollectorError-style ValueError naming ``what``."""
    if not isinstance(value, kind):
        raise ValueError(f"unexpected upstream data: {what} is not a {kind.__name__}")
    return value


def outcome(ctx: Any, done: int, failed: list[str], what: str) -> str:
    """The run summary; raises when every attempted unit failed (so the run is backed off)."""
    if failed and not done:
        raise CollectorError(f"all {len(failed)} {what} failed: " + "; ".join(failed)[:1500])
    summary = f"{done} {what} updated"
    if failed:
        summary += f", {len(failed)} failed"
    ctx.summary = summary
    return summary


def bulk_insert(db: Any, table: str, columns: list[str], rows: list[tuple]) -> None:
    """Insert many rows with one statement batch, inside the caller's db_session.

    Pony creates entities one by one (about 0.1 ms each); ingesting a 10,000-entry feed
    goes through here instead. The session must already hold a flushed Pony change, so
    that Pony has opened the transaction and will commit it.
    """
    if not rows:
        return
    cursor = db.get_connection().cursor()
    names = ", ".join(columns)
    if db.provider_name == "postgres":
        from psycopg2.extras import execute_values

        execute_values(cursor, f"INSERT INTO {table} ({names}) VALUES %s", rows, page_size=1000)
    else:
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})", rows)
