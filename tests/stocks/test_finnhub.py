"""stock_finnhub against its documented answer, one symbol at a time."""
from __future__ import annotations

from pony import orm

from tests.integrations.fault_setups import configure
from hookspecs.services import INTEGRATIONS


def test_finnhub_quotes_per_symbol(host, api, upstream):
    def quote(request):
        from tests.integrations.upstream import Reply
        import json

        symbol = request.query["symbol"][0]
        body = (
            {
                "c": 189.5,
                "d": -1.25,
                "dp": -0.655,
                "h": 191.0,
                "l": 188.2,
                "o": 190.1,
                "pc": 190.75,
                "t": 1717185600,
            }
            if symbol == "AAPL"
            else {"c": 0, "d": None, "dp": None, "h": 0, "l": 0, "o": 0, "pc": 0, "t": 0}
        )
        return Reply(200, {"Content-Type": "application/json"}, json.dumps(body).encode())

    upstream.handle("/api/v1/quote", quote)
    with orm.db_session:
        host.db.StockSymbol(id="apple", symbol="AAPL", display_name="Apple")
        host.db.StockSymbol(id="nope", symbol="NOPE")
    configure(host, "stock_finnhub", baseUrl=upstream.url)
    api.patch("/v1/integrations/stock_finnhub", json={"secrets": {"apiKey": "fh-secret-1"}})
    result = host.services[INTEGRATIONS].run_now("stock_finnhub")
    assert result.status == "ok" and "1 failed" in result.message
    request = upstream.requests_to("/api/v1/quote")[0]
    assert request.headers["X-Finnhub-Token"] == "fh-secret-1" and "token" not in request.query
    with orm.db_session:
        row = host.db.StockQuote["apple"]
        assert (row.symbol, row.display_name, row.price, row.change, row.as_of_ms) == (
            "AAPL",
            "Apple",
            189.5,
            -1.25,
            1717185600000,
        )
        assert host.db.StockQuote.get(symbol_id="nope") is None
