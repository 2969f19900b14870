"""``stock_finnhub``: latest quote per enabled interests stock symbol.

``GET {baseUrl}/api/v1/quote?symbol=<symbol>`` with the ``apiKey`` secret in the
``X-Finnhub-Token`` header (never in the URL); answer ``{c, d, dp, h, l, o, pc, t}``.
A symbol Finnhub does not know answers all zeros and counts as that symbol's failure.
"""

from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs.collect import CollectorError
from svc_host.kit.collecting import each_unit

TYPE_ID = "stock_finnhub"
DEFAULT_BASE = "https://finnhub.io"


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def collect(ctx: Any) -> str:
    key = ctx.secret("apiKey")
    base = ctx.base_url(DEFAULT_BASE)
    with orm.db_session:
        symbols = [
            (s.id, s.symbol, s.display_name)
            for s in ctx.db.StockSymbol.select(lambda s: s.enabled).order_by(lambda s: s.id)
        ]

    def fetch(unit: tuple[str, str, str]) -> None:
        symbol_id, symbol, display_name = unit
        data = ctx.http.get_json(
            f"{base}/api/v1/quote", params={"symbol": symbol}, headers={"X-Finnhub-Token": key}
        )
        if not isinstance(data, dict) or _num(data.get("c")) is None:
            raise CollectorError("answer has no current price 'c'")
        if not data.get("c") and not data.get("t"):
            raise CollectorError("unknown symbol (all-zero quote)")
        values = {
            "symbol": symbol,
            "display_name": display_name or symbol,
            "price": _num(data["c"]),
            "change": _num(data.get("d")),
            "change_percent": _num(data.get("dp")),
            "currency": ctx.config.get("currency", "USD"),
            "as_of_ms": (
                int(data["t"]) * 1000 if isinstance(data.get("t"), int) and data["t"] else ctx.now_ms()
            ),
            "integration_type": TYPE_ID,
        }
        with orm.db_session:
            row = ctx.db.StockQuote.get(symbol_id=symbol_id)
            if row is None:
                ctx.db.StockQuote(symbol_id=symbol_id, **values)
            else:
                row.set(**values)

    run = each_unit(ctx, symbols, fetch, lambda unit: f"symbol {unit[1]}")
    return run.finish(ctx, "symbols", "no enabled stock symbol")
