"""GET /v1/ticker/items: formatting with a fixed clock, fallbacks, weights, suppressed content."""
import datetime as dt

import pytest
from pony import orm

from tests.ticker.clock import FixedClock

# 2026-03-08 14:05:09 UTC: New York has just switched to EDT (UTC-4), Auckland is on NZDT (UTC+13).
NOW = dt.datetime(2026, 3, 8, 14, 5, 9, tzinfo=dt.timezone.utc)


@pytest.fixture
def ticker(api):
    api.host.clock = FixedClock(NOW)
    return api


def _items(api):
    result = api.get("/v1/ticker/items")
    assert result.status_code == 200, result.text
    items = result.json["items"]
    assert [i["ordinal"] for i in items] == list(range(len(items)))
    return items


def _kv(host, key, value):
    with orm.db_session:
        row = host.db.KeyValue.get(key=key)
        if row is None:
            host.db.KeyValue(key=key, value=value)
        else:
            row.value = value


def _tape(api, tape_id, ticker_type, config=None, **extra):
    body = {"id": tape_id, "ticker_type": ticker_type, "config_json": config or {}, **extra}
    result = api.post("/v1/ticker/tapes", json=body)
    assert result.status_code == 201, result.text


@pytest.mark.parametrize("zone, preset, order, expected", [
    ("UTC", "24h_hms", "ymd", "2026-03-08 14:05:09"),
    ("UTC", "24h_hm", "dmy", "08/03/2026 14:05"),
    ("UTC", "12h_hms_tt", "mdy", "03/08/2026 2:05:09 PM"),
    ("UTC", "12h_hm_tt", "ymd", "2026-03-08 2:05 PM"),
    ("UTC", "12h_hms", "ymd", "2026-03-08 2:05:09"),
    ("UTC", "12h_hm", "ymd", "2026-03-08 2:05"),
    ("America/New_York", "24h_hms", "mdy", "03/08/2026 10:05:09"),
    ("America/New_York", "12h_hm_tt", "mdy", "03/08/2026 10:05 AM"),
    ("Asia/Kolkata", "24h_hm", "dmy", "08/03/2026 19:35"),
    ("Pacific/Auckland", "12h_hms_tt", "dmy", "09/03/2026 3:05:09 AM"),
    ("Pacific/Auckland", "24h_hms", "ymd", "2026-03-09 03:05:09"),
])
def test_time_tape_formats_across_zones_and_presets(ticker, zone, preset, order, expected):
    _tape(ticker, "clock", "time", {"timeZone": zone, "timeFormatPreset": preset, "dateOrder": order})
    assert _items(ticker) == [{"ordinal": 0, "kind": "time", "body": expected}]


def test_time_tape_label_prefix_and_setting_fallbacks(ticker):
    settings = ticker.host.services["settings"]
    _tape(ticker, "clock", "time", {"labelPrefix": "Lobby"})
    assert _items(ticker)[0]["body"] == "Lobby 2026-03-08 14:05"  # defaults: ymd, 24h, UTC
    with orm.db_session:
        settings.set("controller_date_order", "mdy")
        settings.set("controller_time_format", "12h")
        settings.set("display_timezone", "America/Los_Angeles")
    assert _items(ticker)[0]["body"] == "Lobby 03/08/2026 7:05 AM"
    ticker.patch("/v1/ticker/tapes/clock", json={"config_json": {"timeZone": "Europe/Berlin",
                                                                 "timeFormatPreset": "24h_hms"}})
    assert _items(ticker)[0]["body"] == "03/08/2026 15:05:09"


def test_time_tape_midnight_and_noon_in_12h():
    from builtin_plugins.ticker.items import format_time

    assert format_time(dt.datetime(2026, 1, 1, 0, 7, 3), "12h_hms_tt") == "12:07:03 AM"
    assert format_time(dt.datetime(2026, 1, 1, 12, 0, 0), "12h_hm_tt") == "12:00 PM"
    assert format_time(dt.datetime(2026, 1, 1, 23, 59, 59), "24h_hms") == "23:59:59"


def _weather(host):
    with orm.db_session:
        host.db.WeatherCurrent(location_id="home", location_name="Home", description="Light rain", temp_c=21.4,
                               integration_type="weather_openmeteo")
        host.db.WeatherCurrent(location_id="cabin", location_name="Cabin", description="", temp_c=-3.0,
                               integration_type="weather_openmeteo")


def test_weather_units_tape_then_key_value_then_setting(ticker):
    _weather(ticker.host)
    _tape(ticker, "w", "weather", {"locationId": "home"})
    assert _items(ticker)[0]["body"] == "Home: 21°C, Light rain"
    with orm.db_session:
        ticker.host.services["settings"].set("display_weather_temperature_unit", "f")
    assert _items(ticker)[0]["body"] == "Home: 71°F, Light rain"
    _kv(ticker.host, "display.weather.temperature_unit", "c")
    assert _items(ticker)[0]["body"] == "Home: 21°C, Light rain"
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {"locationId": "home", "temperatureUnit": "f"}})
    assert _items(ticker)[0]["body"] == "Home: 71°F, Light rain"
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {}})
    assert [i["body"] for i in _items(ticker)] == ["Cabin: -3°C", "Home: 21°C, Light rain"]
    with orm.db_session:
        ticker.host.db.WeatherLocation(id="cabin", name="Cabin", latitude=1.0, longitude=2.0, enabled=False)
    assert [i["body"] for i in _items(ticker)] == ["Home: 21°C, Light rain"]
    ticker.patch("/v1/ticker/tapes/w", json={"config_json": {"locationId": "nowhere"}})
    assert _items(ticker) == []


def test_news_never_shows_suppressed_and_orders_newest_first(ticker):
    now_ms = int(NOW.timestamp() * 1000)
    with orm.db_session:
        db = ticker.host.db
        db.RssFeed(id="world", url="https://example.org/world.xml", category="news")
        db.RssFeed(id="tech", url="https://example.org/tech.xml", category="tech")
        db.RssArticle(id="a1", feed_id="world", guid="a1", title="Older headline", published_at_ms=now_ms - 7200_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a2", feed_id="world", guid="a2", title="Newest headline", published_at_ms=now_ms - 60_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a3", feed_id="world", guid="a3", title="Hidden headline", published_at_ms=now_ms,
                      created_at_ms=now_ms, suppressed=True)
        db.RssArticle(id="a4", feed_id="tech", guid="a4", title="Tech headline", published_at_ms=now_ms - 3600_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a5", feed_id="tech", guid="a5", title="Ancient headline",
                      published_at_ms=now_ms - 90 * 3600_000, created_at_ms=now_ms)
    _tape(ticker, "n", "news", {"maxAgeHours": 48})
    bodies = [i["body"] for i in _items(ticker)]
    assert bodies == ["Newest headline", "Tech headline", "Older headline"]
    assert all(i["kind"] == "news" for i in _items(ticker))
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"feedIds": ["world"], "maxItems": 1}})
    assert [i["body"] for i in _items(ticker)] == ["Newest headline"]
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"category": "tech"}})
    assert [i["body"] for i in _items(ticker)] == ["Tech headline", "Ancient headline"]
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"category": "sports"}})
    assert _items(ticker) == []


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
    assert [i["body"] for i in _items(ticker)] == ["A", "B", "A", "A"]
    ticker.patch("/v1/ticker/tapes/b", json={"frequency_weight": 2})
    assert [i["body"] for i in _items(ticker)] == ["A", "B", "A", "B", "A"]


def test_a_failing_builder_costs_only_its_own_items(make_host):
    from hookspecs import TickerType, hookimpl
    from tests.conftest import Api, issue_key

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
