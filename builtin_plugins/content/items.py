"""The quote ticker tape's items: ``“text” — author``, newest first."""
from __future__ import annotations

from typing import Any

from pony.orm import desc


def quote_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "Quote", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    query = entity.select()
    if config.get("category"):
        category = config["category"]
        query = query.filter(lambda q: q.category_id == category)
    query = query.order_by(lambda q: (desc(q.created_at_ms), q.id))
    items = []
    for row in query.limit(int(config.get("maxItems") or 5)):
        items.append(f"“{row.text}” — {row.author}" if row.author else f"“{row.text}”")
    return items
