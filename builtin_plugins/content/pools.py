"""Pool upkeep shared by the joke, quote and trivia collectors: insert new rows, trim the oldest."""

from __future__ import annotations

from typing import Any


def trim_oldest(rows: list[Any], keep: int) -> int:
    """Delete the oldest rows beyond ``keep`` (suppressed rows count, moderators chose them)."""
    ordered = sorted(rows, key=lambda r: (r.created_at_ms, r.id), reverse=True)
    removed = ordered[max(0, keep):]
    for row in removed:
        row.delete()
    return len(removed)
