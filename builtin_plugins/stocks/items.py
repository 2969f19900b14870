"""The stocks ticker tape's items: latest quotes, in the order of the tape's symbols."""
from __future__ import annotations

from typing import Any


def format_stock(row: Any, show_change: bool = True) -> str:
    text = f"{row.symbol} {row.price:,.2f}"
    if show_change and row.change is not None:
        arrow = "▲" if row.change > 0 else "▼" if row.change < 0 else "■"
        text += f" {arrow}{abs(row.change):,.2f}"
        if row.change_percent is not None:
            text += f" ({row.change_percent:+.2f}%)"
    return text


def stock_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "StockQuote", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    rows = list(entity.select().order_by(lambda q: (q.symbol, q.symbol_id)))
    symbols = [s.upper() for s in config.get("symbols") or []]
    if symbols:
        rank = {symbol: index for index, symbol in enumerate(symbols)}
        rows = sorted((r for r in rows if r.symbol.upper() in rank), key=lambda r: rank[r.symbol.upper()])
    return [format_stock(row, config.get("showChange", True)) for row in rows]
