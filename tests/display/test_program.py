"""The slides layer's choices, what the layers load and the renderers' content steps, without a
canvas (SQLite and PostgreSQL)."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pony import orm

from svc_host.kit.weights import SmoothRoundRobin, appearances
from tests.display import fixture_plugin
from tests.display.layers import layer, prepare, shown, tape_items
from hookspecs.services import ADOPTION, ALERTS


@pytest.fixture
def display_host(make_host):
    return make_host(plugins=[(fixture_plugin.NAME, fixture_plugin)])


@pytest.fixture
def seeded(display_host):
    with orm.db_session:
        fixture_plugin.seed(display_host)
    return display_host


def screen(screen_id, screen_type="message", **extra):
    return {"id": screen_id, "screen_type": screen_type, "enabled": True, "frequency_weight": 1, **extra}


@pytest.mark.parametrize("weight, count", [(0, 0), (-1, 0), (None, 0), (True, 0), ("3", 0), (0.2, 1), (1, 1),
                                           (1.5, 2), (2.5, 3), (2.49, 2), (10, 10), (1000, 10)])
def test_a_weight_is_appearances_per_cycle(weight, count):
    assert appearances(weight) == count


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10), min_size=1, max_size=8), st.integers(0, 3))
def test_the_smooth_round_robin_shows_each_key_its_weight_in_every_cycle(weights, warm):
    robin, last = SmoothRoundRobin(), None
    picks = []
    for _ in range((warm + 3) * sum(weights)):
        last = robin.pick(list(enumerate(weights)), last)
        picks.append(last)
    for start in range(0, len(picks), sum(weights)):
        assert Counter(picks[start:start + sum(weights)]) == dict(enumerate(weights))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10), min_size=2, max_size=10))
def test_no_slide_shows_twice_in_a_row_unless_it_has_more_than_half_the_cycle(weights):
    """Across the end of one cycle and the start of the next too (a weight-2 slide among seven others
    was shown at the end of a cycle and again first in the next)."""
    robin, last = SmoothRoundRobin(), None
    picks = []
    for _ in range(3 * sum(weights)):
        last = robin.pick(list(enumerate(weights)), last)
        picks.append(last)
    repeats = sum(1 for a, b in zip(picks, picks[1:]) if a == b)
    forced = max(0, 2 * max(weights) - sum(weights))  # a row of more than half the slots must repeat
    assert repeats <= 3 * forced, (weights, picks)


def test_a_weight_two_slide_among_seven_is_spread_out(display_host):
    slides = layer(display_host, "slides")
    slides.rows = [screen("special", frequency_weight=2), *(screen(f"s{i}") for i in range(7))]
    picks = []
    for _ in range(3 * 9):
        row = slides._choose(set())
        slides.current = {"row": row, "widget": None}
        picks.append(row["id"])
    at = [i for i, picked in enumerate(picks) if picked == "special"]
    assert len(at) == 6 and min(b - a for a, b in zip(at, at[1:])) >= 4, picks


def test_the_slides_layer_picks_by_smooth_weighted_round_robin(display_host):
    slides = layer(display_host, "slides")
    slides.rows = [
        screen("heavy", frequency_weight=3), screen("light", frequency_weight=1),
        screen("off", enabled=False, frequency_weight=50), screen("zero", frequency_weight=0),
        screen("unknown", screen_type="no_such_type", frequency_weight=50),
        screen("tiny", frequency_weight=0.3),
    ]
    assert [r["id"] for r in slides.eligible()] == ["heavy", "light", "tiny"]
    picks = []
    for _ in range(5 * 5):
        row = slides._choose(set())
        slides.current = {"row": row, "widget": None}
        picks.append(row["id"])
    assert picks[:5] == ["heavy", "light", "heavy", "tiny", "heavy"]  # spread, not clumped
    for start in range(0, len(picks), 5):
        assert Counter(picks[start:start + 5]) == {"heavy": 3, "light": 1, "tiny": 1}
    # a slide that failed is skipped: the others share its turn
    assert slides._choose({"heavy"})["id"] in ("light", "tiny")


def test_headlines_with_show_source_name_the_feed(seeded):
    """``showSource: true`` used to fail in Pony (a list built from the rows inside the query):
    the slide never appeared and the canvas logged a traceback at every try."""
    with orm.db_session:
        seeded.db.RssFeed(id="f1", url="https://feeds.invalid/f1", title="Kivy Times", category="tech")
    data = prepare(seeded, "screen", "news_headlines", {"id": "n", "config_json": {"showSource": True}})
    assert [i["title"] for i in data["items"]] == ["Kivy draws the news", "No picture here"]
    assert [i["meta"] for i in data["items"]] == ["Kivy Times \u00b7 just now"] * 2  # source and age
    assert data["title"] == "Kivy Times"  # one feed: its name is the slide's title
    quiet = prepare(seeded, "screen", "news_headlines", {"id": "n", "name": "Lobby news",
                                                           "config_json": {"showSource": False}})
    assert quiet["title"] == "Lobby news" and not any("Kivy Times" in i["meta"] for i in quiet["items"])


def test_the_slides_layer_asks_the_screens_service_and_the_curator(display_host):
    from svc_display.testing import ApiClient as Api, issue_key

    api = Api(display_host, issue_key(display_host))
    for body in ({"id": "s1", "screen_type": "message", "config_json": {"body": "one"}},
                 {"id": "s2", "screen_type": "clock", "config_json": {}},
                 {"id": "off", "screen_type": "message", "enabled": False, "config_json": {"body": "off"}}):
        assert api.post("/v1/screens", json=body).status_code == 201
    assert [r["id"] for r in shown(display_host, "slides").rows] == ["s1", "s2"]
    # the curator's members narrow the program, its controls switch the slides off
    result = api.post("/v1/curator/configurations", json={
        "id": "only_clock", "name": "Clock only", "layer": "base",
        "members": {"screens": [{"id": "s2", "op": "add"}]}})
    assert result.status_code == 201, result.text
    assert [r["id"] for r in shown(display_host, "slides").rows] == ["s2"]
    assert shown(display_host, "slides").due_ms is None  # no rule: nothing changes with the clock
    result = api.patch("/v1/curator/configurations/only_clock", json={
        "screens_enabled": False, "rules": [{"predicate": "days_of_week", "params": {"days": ["mon"]}}]})
    assert result.status_code == 200, result.text
    state = shown(display_host, "slides")
    if state.rows:  # not a Monday in the display zone: the configuration does not apply
        assert [r["id"] for r in state.rows] == ["s1", "s2"]
    now = display_host.clock.now_ms()
    assert now < state.due_ms <= now + 60_000  # a rule: the view is evaluated again next minute


@pytest.mark.parametrize("type_id", sorted(t.id for t in fixture_plugin.SCREEN_TYPES))
def test_every_screen_type_finds_its_seeded_content(seeded, type_id):
    config = {"task_board": {"boardKey": "board1"}, "controller_invite": {"urlOverride": "https://c.invalid"},
              "menu_board": {"board": "main"}}
    row = {"id": "x", "screen_type": type_id, "config_json": config.get(type_id, {})}
    if type_id == "alerts":
        seeded.services[ALERTS].raise_alert(title="t", body="b", source="api")
    assert prepare(seeded, "screen", type_id, row) is not None


@pytest.mark.parametrize("type_id", ["weather_current", "weather_forecast", "news_headlines", "news_article",
                                     "photo", "video", "joke", "trivia", "stock_quotes", "calendar_agenda",
                                     "task_board", "alerts", "controller_invite"])
def test_screens_without_content_are_skipped(display_host, type_id):
    assert prepare(display_host, "screen", type_id, {"id": "x", "config_json": {"boardKey": "b"}}) is None


def test_require_news_photo_and_data_key(seeded):
    titles = [i["title"] for i in prepare(seeded, "screen", "news_headlines", {"id": "n", "config_json": {}})["items"]]
    assert titles == ["Kivy draws the news", "No picture here"]
    only_photo = prepare(seeded, "screen", "news_headlines", {"id": "n", "config_json": {}, "require_news_photo": True})
    assert [i["title"] for i in only_photo["items"]] == ["Kivy draws the news"]
    article = prepare(seeded, "screen", "news_article", {"id": "n", "config_json": {}, "require_news_photo": True})
    assert article["title"] == "Kivy draws the news" and article["image"]
    assert prepare(seeded, "screen", "news_headlines", {"id": "n", "data_key": "other_feed", "config_json": {}}) is None
    assert prepare(seeded, "screen", "weather_current", {"id": "w", "data_key": "home", "config_json": {}})["name"] == \
        "Home"
    assert prepare(seeded, "screen", "weather_current", {"id": "w", "data_key": "away", "config_json": {}}) is None
    assert prepare(seeded, "screen", "joke", {"id": "j", "data_key": "general", "config_json": {}})["punchline"]
    assert prepare(seeded, "screen", "joke", {"id": "j", "data_key": "puns", "config_json": {}}) is None


def test_suppressed_content_is_not_shown(seeded):
    with orm.db_session:
        seeded.db.Joke["j1"].suppressed = True
    assert prepare(seeded, "screen", "joke", {"id": "j", "config_json": {}}) is None


def test_overlay_and_ticker_content_steps(seeded):
    assert prepare(seeded, "overlay", "stock_quote", {"config_json": {"symbol": "ACME"}})["price"] == 12.5
    assert prepare(seeded, "overlay", "stock_quote", {"config_json": {"symbol": "NOPE"}}) is None
    assert prepare(seeded, "overlay", "static_image", {"config_json": {"image_blob_key": "test/photo.png"}})["image"]
    assert prepare(seeded, "overlay", "static_image", {"config_json": {"image_blob_key": "../etc/passwd"}}) is None
    images = {"image_blob_keys": ["test/photo.png", "missing.png"]}
    assert len(prepare(seeded, "overlay", "falling_images", {"config_json": images})["images"]) == 1
    assert prepare(seeded, "overlay", "falling_images", {"config_json": {}}) is None
    assert prepare(seeded, "overlay", "calendar_upcoming", {"config_json": {}})[0]["title"] == "Team lunch"
    assert prepare(seeded, "overlay", "calendar_upcoming", {"config_json": {"category_ids": ["work"]}}) is None
    assert tape_items(seeded, "news", {"maxItems": 1}) == ["Kivy draws the news"]
    assert tape_items(seeded, "stocks", {}) == ["ACME 12.50 \u25b20.50 (+4.20%)"]
    assert tape_items(seeded, "stocks", {"showChange": False}) == ["ACME 12.50"]
    assert tape_items(seeded, "quote", {})[0].startswith("\u201cSimple is better.")
    assert tape_items(seeded, "weather", {"locationId": "home", "temperatureUnit": "f"}, refresh=True) == (
        ["Home: 70°F, Sunny"], None)
    assert tape_items(seeded, "time", {"timeZone": "UTC"}, refresh=True)[1] == 1.0
    with orm.db_session:
        seeded.db.KeyValue(key="ticker.marquee.hello", value="Hello from a plugin")
    assert tape_items(seeded, "plugin", {"pluginId": "hello"}) == ["Hello from a plugin"]
    assert tape_items(seeded, "plugin", {"pluginId": "absent"}) == []


def test_the_adoption_layer_shows_the_pending_challenge(display_host):
    assert shown(display_host, "adoption").pending == []
    with orm.db_session:
        display_host.services[ADOPTION].create("tablet", "viewer")
    state = shown(display_host, "adoption")
    assert [(p["identifier"], p["role"]) for p in state.pending] == [("tablet", "viewer")]
    assert state.due_ms() == state.pending[0]["expires_at_ms"]  # loaded again when it expires


def test_screen_config_keys_of_the_real_schemas_narrow_the_content(seeded):
    now = seeded.clock.now_ms()
    with orm.db_session:
        seeded.db.Task(id="k2", title="Done already", board_key="board1", completed=True,
                       integration_type="tasks_test", integration_id="tasks1")
        seeded.db.StockQuote(symbol_id="s2", symbol="ZED", price=1.0, as_of_ms=now, integration_type="stock_test")
    tasks = prepare(seeded, "screen", "task_board", {"id": "t", "config_json": {"boardKey": "board1"}})
    assert [t["title"] for t in tasks] == ["Water the plants"]
    tasks = prepare(seeded, "screen", "task_board", {"id": "t", "config_json": {"boardKey": "board1",
                                                                              "showCompleted": True, "maxTasks": 5}})
    assert [t["title"] for t in tasks] == ["Water the plants", "Done already"]
    one = prepare(seeded, "screen", "news_headlines", {"id": "n", "config_json": {"maxItems": 1}})
    assert [i["title"] for i in one["items"]] == ["Kivy draws the news"]
    assert prepare(seeded, "screen", "news_headlines", {"id": "n", "config_json": {"feedIds": ["nope"]}}) is None
    quotes = prepare(seeded, "screen", "stock_quotes", {"id": "s", "config_json": {"symbols": ["ZED", "ACME"]}})
    assert [q["symbol"] for q in quotes["quotes"]] == ["ZED", "ACME"]
    agenda = {"id": "c", "config_json": {"categoryIds": ["general"], "daysAhead": 1, "showLocation": False}}
    assert prepare(seeded, "screen", "calendar_agenda", agenda)["events"][0]["location"] == ""
    assert prepare(seeded, "screen", "calendar_agenda", {"id": "c", "config_json": {"categoryIds": ["x"]}}) is None
    article = prepare(seeded, "screen", "news_article", {"id": "n", "config_json": {"showSummary": False},
                                                        "require_news_photo": True})
    assert article["summary"] == ""
