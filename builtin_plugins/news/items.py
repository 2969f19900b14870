"""The news ticker tape's items: recent RSS headlines (suppressed articles never appear)."""
from __future__ import annotations

from typing import Any

from pony.orm import coalesce, desc


def news_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "RssArticle", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    query = entity.select(lambda a: not a.suppressed)
    feed_ids = list(config.get("feedIds") or [])
    category = config.get("category")
    if category and getattr(host.db, "RssFeed", None) is not None:
        feed_ids += [f.id for f in host.db.RssFeed.select(lambda f: f.category == category)]
        if not feed_ids:
            return []
    if feed_ids:
        query = query.filter(lambda a: a.feed_id in feed_ids)
    if config.get("maxAgeHours"):
        oldest = now_ms - int(config["maxAgeHours"]) * 3_600_000
        query = query.filter(lambda a: coalesce(a.published_at_ms, a.created_at_ms) >= oldest)
    query = query.order_by(lambda a: (desc(coalesce(a.published_at_ms, a.created_at_ms)), a.id))
    return [row.title for row in query.limit(int(config.get("maxItems") or 10))]
