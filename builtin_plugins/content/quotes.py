"""``quote_zenquotes``: ``GET {baseUrl}/api/quotes`` (``[{q, a, h}]``) into quotes, pool of ``maxQuotes``."""

from __future__ import annotations

import html
from typing import Any

from pony import orm

from svc_host.kit.collecting import CollectorError, clip, digest
from builtin_plugins.content.pools import trim_oldest

DEFAULT_BASE = "https://zenquotes.io"


def upsert_quotes(ctx: Any, items: list[tuple[str, str]], category_id: str, keep: int) -> int:
    """Insert (text, author) pairs not stored yet, trim this collector's pool; returns rows added."""
    added = 0
    with orm.db_session:
        for text, author in items:
            row_id = f"{ctx.integration_type}:{digest(text)}"
            if ctx.db.Quote.get(id=row_id) is None:
                ctx.db.Quote(
                    id=row_id,
                    text=clip(text, 4000),
                    author=clip(author, 500),
                    category_id=category_id,
                    integration_type=ctx.integration_type,
                    created_at_ms=ctx.now_ms(),
                )
                added += 1
        trim_oldest(list(ctx.db.Quote.select(lambda q: q.integration_type == ctx.integration_type)), keep)
    return added


def collect(ctx: Any) -> str:
    data = ctx.http.get_json(ctx.base_url(DEFAULT_BASE) + "/api/quotes")
    if not isinstance(data, list):
        raise CollectorError("answer is not a list of quotes")
    items = [
        (html.unescape(str(q["q"])).strip(), html.unescape(str(q.get("a") or "")).strip())
        for q in data
        if isinstance(q, dict) and isinstance(q.get("q"), str) and q["q"].strip()
    ]
    if not items:
        raise CollectorError("answer holds no quote")
    added = upsert_quotes(
        ctx, items, ctx.config.get("categoryId", "quotes"), int(ctx.config.get("maxQuotes", 100))
    )
    ctx.summary = f"{len(items)} quotes, {added} new"
    return ctx.summary
