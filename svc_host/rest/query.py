"""Query helpers: substring needles (``%`` and ``_`` stripped) and paginated answers."""
from __future__ import annotations

from typing import Any, Callable, Iterable


def substring_needle(value: str) -> str:
    """The needle of a substring filter: ``%`` and ``_`` are stripped (spec 4.6, 4.12)."""
    return value.replace("%", "").replace("_", "")


def paginate(query: Any, limit: int, offset: int, serialize: Callable[[Any], dict]) -> dict:
    """``{items, total, limit, offset}`` for a Pony query (already filtered and ordered)."""
    total = query.count()
    rows: Iterable[Any] = query.limit(limit, offset=offset) if limit else []
    return {"items": [serialize(row) for row in rows], "total": total, "limit": limit, "offset": offset}
