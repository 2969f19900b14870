"""Sample quotes for ``svc-display gallery`` (the ``display_samples`` hook): the symbols the types'
examples name, one rising and one falling."""
from __future__ import annotations

from typing import Any

QUOTES = [("AAPL", "Apple", 191.24, 2.31, 1.22), ("MSFT", "Microsoft", 412.60, -3.85, -0.92)]


def write(host: Any) -> None:
    db, now = host.db, host.clock.now_ms()
    for symbol, name, price, change, pct in QUOTES:
        db.StockSymbol(id=symbol.lower(), symbol=symbol, display_name=name)
        db.StockQuote(symbol_id=symbol.lower(), symbol=symbol, display_name=name, price=price, change=change,
                      change_percent=pct, currency="USD", as_of_ms=now, integration_type="stocks_finnhub")
