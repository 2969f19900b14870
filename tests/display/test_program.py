"""The program's choices and the renderers' content steps, without a canvas (SQLite and PostgreSQL)."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from pony import orm

from builtin_plugins.display_renderers.base import RenderContext
from builtin_plugins.display_renderers.overlays import RENDERERS as OVERLAYS
from builtin_plugins.display_renderers.screens import RENDERERS as SCREENS
from builtin_plugins.display_renderers.ticker import RENDERERS as TICKERS
from tests.display import fixture_plugin


@pytest.fixture
def display_host(make_host):
    return make_host({"SVC_DISPLAY_DISABLE_PLUGINS": fixture_plugin.REPLACES_PLUGINS},
                     plugins=[(fixture_plugin.NAME, fixture_plugin)])


@pytest.fixture
def seeded(display_host):
    with orm.db_session:
        fixture_plugin.seed(display_host)
    return display_host


def screen(screen_id, screen_type="message", **extra):
    return {"id": screen_id, "screen_type": screen_type, "enabled": True, "frequency_weight": 1, **extra}


def test_weighted_choice_among_enabled_known_screens(display_host):
    director = display_host.services["display_director"]
    director.state.screens = [
        screen("heavy", frequency_weight=3), screen("light", frequency_weight=1),
        screen("off", enabled=False, frequency_weight=50), screen("zero", frequency_weight=0),
        screen("unknown", screen_type="no_such_type", frequency_weight=50),
    ]
    assert [r["id"] for r in director.eligible_screens()] == ["heavy", "light"]
    random.seed(7)
    counts = Counter(director._choose(set())["id"] for _ in range(4000))
    assert set(counts) == {"heavy", "light"}
    assert 0.70 < counts["heavy"] / 4000 < 0.80
    # the slide on screen is not chosen again while another one is eligible
    director.current = {"row": director.state.screens[0], "widget": None, "fingerprint": ""}
    assert {director._choose(set())["id"] for _ in range(200)} == {"light"}
    # program controls switch the slides off
    director.state.controls["screens_enabled"] = False
    assert director.eligible_screens() == []


def prepare(host, registry, type_id, row, **context):
    factory = registry[type_id]
    context = RenderContext(host, "screen", type_id, row, **context)
    with orm.db_session:
        return factory.prepare(context) if getattr(factory, "prepare", None) else {}


@pytest.mark.parametrize("type_id", sorted(SCREENS))
def test_every_screen_type_finds_its_seeded_content(seeded, type_id):
    config = {"task_board": {"boardKey": "board1"}, "controller_invite": {"urlOverride": "https://c.invalid"}}
    row = {"id": "x", "screen_type": type_id, "config_json": config.get(type_id, {})}
    if type_id == "alerts":
        seeded.services["display_program_source"].snapshot = lambda: {"alerts": [{"title": "t", "body": "b"}]}
    assert prepare(seeded, SCREENS, type_id, row) is not None


@pytest.mark.parametrize("type_id", ["weather_current", "weather_forecast", "news_headlines", "news_article",
                                     "photo", "video", "joke", "trivia", "stock_quotes", "calendar_agenda",
                                     "task_board", "alerts", "controller_invite"])
def test_screens_without_content_are_skipped(display_host, type_id):
    assert prepare(display_host, SCREENS, type_id, {"id": "x", "config_json": {"boardKey": "b"}}) is None


def test_require_news_photo_and_data_key(seeded):
    titles = prepare(seeded, SCREENS, "news_headlines", {"id": "n", "config_json": {}})["titles"]
    assert titles == ["Kivy draws the news", "No picture here"]
    only_photo = prepare(seeded, SCREENS, "news_headlines", {"id": "n", "config_json": {}, "require_news_photo": True})
    assert only_photo["titles"] == ["Kivy draws the news"]
    article = prepare(seeded, SCREENS, "news_article", {"id": "n", "config_json": {}, "require_news_photo": True})
    assert article["title"] == "Kivy draws the news" and article["image"]
    assert prepare(seeded, SCREENS, "news_headlines", {"id": "n", "data_key": "other_feed", "config_json": {}}) is None
    assert prepare(seeded, SCREENS, "weather_current", {"id": "w", "data_key": "home", "config_json": {}})["name"] == \
        "Home"
    assert prepare(seeded, SCREENS, "weather_current", {"id": "w", "data_key": "away", "config_json": {}}) is None
    assert prepare(seeded, SCREENS, "joke", {"id": "j", "data_key": "general", "config_json": {}})["punchline"]
    assert prepare(seeded, SCREENS, "joke", {"id": "j", "data_key": "puns", "config_json": {}}) is None


def test_suppressed_content_is_not_shown(seeded):
    with orm.db_session:
        seeded.db.Joke["j1"].suppressed = True
    assert prepare(seeded, SCREENS, "joke", {"id": "j", "config_json": {}}) is None


def test_overlay_and_ticker_content_steps(seeded):
    assert prepare(seeded, OVERLAYS, "stock_quote", {"config_json": {"symbol": "ACME"}})["price"] == 12.5
    assert prepare(seeded, OVERLAYS, "stock_quote", {"config_json": {"symbol": "NOPE"}}) is None
    assert prepare(seeded, OVERLAYS, "static_image", {"config_json": {"image_blob_key": "test/photo.png"}})["image"]
    assert prepare(seeded, OVERLAYS, "static_image", {"config_json": {"image_blob_key": "../etc/passwd"}}) is None
    images = {"image_blob_keys": ["test/photo.png", "missing.png"]}
    assert len(prepare(seeded, OVERLAYS, "falling_images", {"config_json": images})["images"]) == 1
    assert prepare(seeded, OVERLAYS, "falling_images", {"config_json": {}}) is None
    assert prepare(seeded, OVERLAYS, "calendar_upcoming", {"config_json": {}})[0]["title"] == "Team lunch"
    assert prepare(seeded, OVERLAYS, "calendar_upcoming", {"config_json": {"category_ids": ["work"]}}) is None
    assert prepare(seeded, TICKERS, "news", {"config_json": {"maxItems": 1}}) == ["Kivy draws the news"]
    assert prepare(seeded, TICKERS, "stocks", {"config_json": {}}) == ["ACME 12.50 \u25b20.50 (+4.20%)"]
    assert prepare(seeded, TICKERS, "stocks", {"config_json": {"showChange": False}}) == ["ACME 12.50"]
    assert prepare(seeded, TICKERS, "quote", {"config_json": {}})[0].startswith("\u201cSimple is better.")
    weather = prepare(seeded, TICKERS, "weather", {"config_json": {"locationId": "home", "temperatureUnit": "f"}})
    content = TICKERS["weather"](RenderContext(seeded, "ticker", "weather", {"config_json": {}}, data=weather))
    assert content.items == ["Home: 70°F, Sunny"]
    with orm.db_session:
        seeded.db.KeyValue(key="ticker.marquee.hello", value="Hello from a plugin")
    assert prepare(seeded, TICKERS, "plugin", {"config_json": {"pluginId": "hello"}}) == ["Hello from a plugin"]
    assert prepare(seeded, TICKERS, "plugin", {"config_json": {"pluginId": "absent"}}) is None


def test_pending_adoption_challenges_become_security_alerts(display_host):
    director = display_host.services["display_director"]
    display_host.services["adoption"].challenges = [
        {"identifier": "tablet", "role": "viewer", "challenge": "ABCD2345", "expires_at_ms": 1}]
    alerts = director._with_challenges([])
    assert alerts[0]["display_only"]["challenge"] == "ABCD2345"
    assert "ABCD" not in alerts[0]["title"] + alerts[0]["body"]
    # an alert that already carries the challenge is not doubled
    carried = [{"id": "a", "title": "Adoption", "body": "", "display_only": {"identifier": "tablet",
                                                                             "challenge": "ABCD2345"}}]
    assert director._with_challenges(carried) == carried


def test_screen_config_keys_of_the_real_schemas_narrow_the_content(seeded):
    now = seeded.clock.now_ms()
    with orm.db_session:
        seeded.db.Task(id="k2", title="Done already", board_key="board1", completed=True,
                       integration_type="tasks_test", integration_id="tasks1")
        seeded.db.StockQuote(symbol_id="s2", symbol="ZED", price=1.0, as_of_ms=now, integration_type="stock_test")
    tasks = prepare(seeded, SCREENS, "task_board", {"id": "t", "config_json": {"boardKey": "board1"}})
    assert [t["title"] for t in tasks] == ["Water the plants"]
    tasks = prepare(seeded, SCREENS, "task_board", {"id": "t", "config_json": {"boardKey": "board1",
                                                                              "showCompleted": True, "maxTasks": 5}})
    assert [t["title"] for t in tasks] == ["Water the plants", "Done already"]
    one = prepare(seeded, SCREENS, "news_headlines", {"id": "n", "config_json": {"maxItems": 1}})
    assert one["titles"] == ["Kivy draws the news"]
    assert prepare(seeded, SCREENS, "news_headlines", {"id": "n", "config_json": {"feedIds": ["nope"]}}) is None
    quotes = prepare(seeded, SCREENS, "stock_quotes", {"id": "s", "config_json": {"symbols": ["ZED", "ACME"]}})
    assert [q["symbol"] for q in quotes] == ["ZED", "ACME"]
    agenda = {"id": "c", "config_json": {"categoryIds": ["general"], "daysAhead": 1, "showLocation": False}}
    assert prepare(seeded, SCREENS, "calendar_agenda", agenda)[0]["location"] == ""
    assert prepare(seeded, SCREENS, "calendar_agenda", {"id": "c", "config_json": {"categoryIds": ["x"]}}) is None
    seeded.services["display_program_source"].snapshot = lambda: {"alerts": [
        {"title": "low", "severity": "info", "source": "api"}, {"title": "high", "severity": "critical",
                                                                "source": "ops"}]}
    shown = prepare(seeded, SCREENS, "alerts", {"id": "a", "config_json": {"minSeverity": "warning"}})
    assert [a["title"] for a in shown] == ["high"]
    assert prepare(seeded, SCREENS, "alerts", {"id": "a", "config_json": {"sources": ["nobody"]}}) is None
    article = prepare(seeded, SCREENS, "news_article", {"id": "n", "config_json": {"showSummary": False},
                                                        "require_news_photo": True})
    assert article["summary"] == ""


def test_weather_screens_honour_days_air_quality_and_alerts(seeded):
    with orm.db_session:
        row = seeded.db.WeatherCurrent["home"]
        row.air_quality_json = {"european_aqi": 31, "us_aqi": 44}
        seeded.db.WeatherAlert(location_id="home", alert_id="w1", event="Wind", headline="Gale warning",
                               location_name="Home", integration_type="weather_openmeteo")
    plain = prepare(seeded, SCREENS, "weather_current", {"id": "w", "config_json": {"locationId": "home"}})
    assert plain["extra"] == []
    full = prepare(seeded, SCREENS, "weather_current", {"id": "w", "config_json": {
        "locationId": "home", "showAirQuality": True, "showAlerts": True}})
    assert full["extra"] == ["Air quality 44", "\u26a0 Gale warning"]
    one_day = prepare(seeded, SCREENS, "weather_forecast", {"id": "f", "config_json": {"locationId": "home", "days": 1}})
    assert [d["label"] for d in one_day["days"]] == ["Mon"]
