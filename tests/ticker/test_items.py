"""GET /v1/ticker/items: several features' tapes, weights, disabled tapes, a failing builder."""
import pytest
from pony import orm

from tests.ticker.tapes import NOW, _items, _kv, _tape

pytestmark = pytest.mark.svc_display_storage


def test_quotes_stocks_text_and_plugin_marquees(ticker):
    now_ms = int(NOW.timestamp() * 1000)
    with orm.db_session:
        db = ticker.host.db
        db.Quote(id="q1", text="Simplicity is prerequisite for reliability.", author="Dijkstra",
                 integration_type="quote_test", created_at_ms=now_ms)
        db.Quote(id="q2", text="Anonymous wisdom.", integration_type="quote_test", created_at_ms=now_ms - 1,
                 category_id="misc")
        db.StockQuote(symbol_id="aapl", symbol="AAPL", price=1189.2, change=1.25, change_percent=0.66,
                      as_of_ms=now_ms, integration_type="stock_test")
        db.StockQuote(symbol_id="msft", symbol="MSFT", price=410.0, change=-2.5, change_percent=-0.61,
                      as_of_ms=now_ms, integration_type="stock_test")
        db.StockQuote(symbol_id="ibm", symbol="IBM", price=150.0, as_of_ms=now_ms, integration_type="stock_test")
    _tape(ticker, "q", "quote", {}, sort_order=1)
    _tape(ticker, "s", "stocks", {"symbols": ["MSFT", "AAPL"]}, sort_order=2)
    _tape(ticker, "t", "text", {"text": "Welcome"}, sort_order=3)
    _tape(ticker, "p", "plugin", {"pluginId": "lunch"}, sort_order=4)
    _kv(ticker.host, "ticker.marquee.lunch", "Soup\nSalad")
    _kv(ticker.host, "ticker.marquee.bus", "Bus 42 in 5 min")
    items = _items(ticker)
    assert [(i["kind"], i["body"]) for i in items] == [
        ("quote", "“Simplicity is prerequisite for reliability.” — Dijkstra"),
        ("quote", "“Anonymous wisdom.”"),
        ("stocks", "MSFT 410.00 ▼2.50 (-0.61%)"),
        ("stocks", "AAPL 1,189.20 ▲1.25 (+0.66%)"),
        ("text", "Welcome"),
        ("plugin", "Soup"),
        ("plugin", "Salad"),
        ("plugin", "Bus 42 in 5 min"),
    ]
    # a disabled plugin tape also silences its own marquee key-value
    ticker.patch("/v1/ticker/tapes/p", json={"enabled": False})
    ticker.patch("/v1/ticker/tapes/s", json={"config_json": {"showChange": False}})
    ticker.patch("/v1/ticker/tapes/q", json={"config_json": {"category": "misc"}})
    assert [i["body"] for i in _items(ticker)] == ["“Anonymous wisdom.”", "AAPL 1,189.20", "IBM 150.00",
                                                   "MSFT 410.00", "Welcome", "Bus 42 in 5 min"]


def test_disabled_tapes_and_weights(ticker):
    _tape(ticker, "a", "text", {"text": "A"}, frequency_weight=3, sort_order=1)
    _tape(ticker, "b", "text", {"text": "B"}, sort_order=2)
    _tape(ticker, "c", "text", {"text": "C"}, frequency_weight=0, sort_order=3)
    _tape(ticker, "d", "text", {"text": "D"}, enabled=False)
    assert [i["body"] for i in _items(ticker)] == ["A", "B", "A", "A"]  # spread around the cycle's circle
    ticker.patch("/v1/ticker/tapes/b", json={"frequency_weight": 2})
    assert [i["body"] for i in _items(ticker)] == ["A", "B", "A", "B", "A"]


def test_a_failing_builder_costs_only_its_own_items(make_host):
    from hookspecs import TickerType, hookimpl
    from svc_display.testing import ApiClient as Api, issue_key

    def broken(host, tape, now_ms):
        raise RuntimeError("boom")

    class Broken:
        @hookimpl
        def register_ticker_types(self):
            return [TickerType("broken", "Broken", {"type": "object"}, {}, build_items=broken)]

    host = make_host(plugins=[("broken", Broken())])
    api = Api(host, issue_key(host))
    _tape(api, "x", "broken")
    _tape(api, "y", "text", {"text": "still here"})
    assert [i["body"] for i in _items(api)] == ["still here"]


def test_cached_items_follow_every_write_and_the_clock(ticker):
    """The items are cached per table version and second: a row written behind the API, a
    tape changed, a marquee key-value and one second of the clock each show on the next GET."""
    from svc_display.testing.clock import FixedClock

    _tape(ticker, "q", "quote", {}, sort_order=1)
    _tape(ticker, "c", "time", {"timeFormatPreset": "24h_hms", "timeZone": "UTC"}, sort_order=2)
    first = _items(ticker)
    assert _items(ticker) == first  # a hit answers the same
    with orm.db_session:
        ticker.host.db.Quote(id="q9", text="Fresh", integration_type="quote_test", created_at_ms=1)
    assert ("quote", "“Fresh”") in [(i["kind"], i["body"]) for i in _items(ticker)]
    _kv(ticker.host, "ticker.marquee.news", "Extra")
    assert ("plugin", "Extra") in [(i["kind"], i["body"]) for i in _items(ticker)]
    before = [i["body"] for i in _items(ticker) if i["kind"] == "time"]
    ticker.host.clock = FixedClock(NOW.replace(second=(NOW.second + 1) % 60))
    after = [i["body"] for i in _items(ticker) if i["kind"] == "time"]
    assert before != after, (before, after)
    assert ticker.patch("/v1/ticker/tapes/q", json={"enabled": False}).status_code == 200
    assert not [i for i in _items(ticker) if i["kind"] == "quote"]


def test_a_ticker_type_that_does_not_say_what_it_reads_leaves_the_items_uncached(ticker):
    from svc_host.rest.listcache import list_cache

    _tape(ticker, "q", "quote", {}, sort_order=1)
    _items(ticker)
    cache = list_cache(ticker.host)
    assert any(key[0] == "/v1/ticker/items" for key in cache.entries)
    quote = ticker.host.registries.ticker_types.get("quote")
    object.__setattr__(quote, "reads", None)
    try:
        cache.entries.clear()
        _items(ticker)
        assert not any(key[0] == "/v1/ticker/items" for key in cache.entries)
    finally:
        object.__setattr__(quote, "reads", ("Quote",))
