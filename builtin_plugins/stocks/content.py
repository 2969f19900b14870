"""The stock quote content list: catalog, moderation deletes, the cloud feed."""
from __future__ import annotations

from typing import Any

from hookspecs import ContentList, FeedKind


def stock_quote_json(row: Any) -> dict:
    return {"id": row.symbol_id, "symbol_id": row.symbol_id, "symbol": row.symbol,
            "display_name": row.display_name, "price": row.price, "change": row.change,
            "change_percent": row.change_percent, "currency": row.currency, "as_of_ms": row.as_of_ms,
            "integration_type": row.integration_type}


STOCK_QUOTE_FEED = FeedKind("stock_quote", lambda i, now: {
    "symbol": i.text("symbol", 32, True), "display_name": i.text("display_name", 200),
    "price": i.number("price", True), "change": i.number("change"),
    "change_percent": i.number("change_percent"),
    "currency": i.text("currency", 8), "as_of_ms": i.integer("as_of_ms") or now},
    key=lambda i: {"symbol_id": i.row_id()})


LISTS = [
    ContentList("stock-quotes", "StockQuote", stock_quote_json, label="stock quotes",
                filters={"symbol": "symbol", "display_name": "display_name"},
                order=(("symbol", False), ("symbol_id", False)), deletable=True,
                delete_summary="delete the latest quote of a symbol (the symbol stays)",
                feed=STOCK_QUOTE_FEED),
]
