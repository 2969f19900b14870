"""Applying feed events to the catalog (in-process host, real database), and the backoff."""

from __future__ import annotations

import random

import pytest

from builtin_plugins.cloud_feed.consumer import backoff_delay
from builtin_plugins.cloud_feed.kinds import FeedError
from builtin_plugins.cloud_feed.store import FeedStore

pytestmark = pytest.mark.svc_display_storage

ALL = [
    {"kind": "joke", "id": "j", "setup": "S", "punchline": "P"},
    {"kind": "quote", "id": "q", "text": "T", "author": "A"},
    {"kind": "trivia", "id": "t", "question": "Q?", "option_a": "a", "option_b": "b", "correct_option": "b"},
    {"kind": "rss_article", "id": "r", "title": "Title", "link": "https://example.invalid/a", "published_at_ms": 5},
    {"kind": "photo", "id": "p", "alt_text": "alt", "media_blob_key": "feed/p.jpg"},
    {"kind": "video", "id": "v", "media_blob_key": "feed/v.mp4", "duration_seconds": 12},
    {"kind": "weather_current", "id": "w", "location_id": "office", "location_name": "Office", "temp_c": 3},
    {"kind": "weather_alert", "id": "wa", "location_id": "office", "location_name": "Office", "event": "Storm"},
    {"kind": "stock_quote", "id": "s", "symbol": "ACME", "price": 1.5},
    {"kind": "calendar_event", "id": "c", "title": "Standup", "start_ms": 1000, "end_ms": 2000,
     "category_ids": ["work", "team"]},
    {"kind": "alert", "id": "a", "title": "Drill", "severity": "warning"},
]
ROUTES = {"joke": "jokes", "trivia": "trivia", "rss_article": "rss-articles", "photo": "photos", "video": "videos",
          "weather_current": "weather-current", "weather_alert": "weather-alerts", "stock_quote": "stock-quotes",
          "calendar_event": "calendar-events", "alert": "alerts"}


def test_every_kind_lands_in_its_catalog_and_a_snapshot_replaces_only_its_kinds(host, api):
    store = FeedStore(host)
    for number, item in enumerate(ALL, 1):
        store.apply("upsert", item, str(number))
    for kind, path in ROUTES.items():
        items = api.get(f"/v1/catalog/{path}").json["items"]
        assert len(items) == 1, (kind, items)
    calendar = api.get("/v1/catalog/calendar-events").json["items"][0]
    assert calendar["source"] == "saas_feed" and sorted(calendar["category_ids"]) == ["team", "work"]
    assert api.get("/v1/catalog/alerts").json["items"][0]["source"] == "saas_feed"
    assert api.get("/v1/catalog/trivia").json["items"][0]["integration_type"] == "saas_feed"
    with _session():
        assert host.db.Quote.select().count() == 1

    store.apply("snapshot", {"kinds": ["joke", "alert"], "items": [{"kind": "joke", "id": "j2", "setup": "New"}]}, "20")
    assert [j["setup"] for j in api.get("/v1/catalog/jokes").json["items"]] == ["New"]
    assert api.get("/v1/catalog/alerts").json["items"] == []
    assert len(api.get("/v1/catalog/photos").json["items"]) == 1  # a kind not in the snapshot stays
    store.apply("delete", {"kind": "photo", "id": "p"}, "21")
    assert api.get("/v1/catalog/photos").json["items"] == []
    assert store.last_event_id() == "21"


def _session():
    from pony import orm

    return orm.db_session


def test_feed_rows_never_touch_rows_of_other_provenance(host, api):
    store = FeedStore(host)
    from pony import orm

    with orm.db_session:
        host.db.Joke(id="manual:1", setup="Mine", category_id="general", integration_type="manual_entry",
                     created_at_ms=1)
    store.apply("snapshot", {"kinds": ["joke"], "items": []}, "1")
    assert [j["setup"] for j in api.get("/v1/catalog/jokes").json["items"]] == ["Mine"]


@pytest.mark.parametrize("event, data", [
    ("upsert", {"kind": "joke", "id": "x"}),  # no setup
    ("upsert", {"kind": "zodiac", "id": "x"}),
    ("upsert", {"kind": "joke", "id": "", "setup": "s"}),
    ("upsert", ["not", "an", "object"]),
    ("upsert", {"kind": "trivia", "id": "t", "question": "q", "option_a": "a", "option_b": "b",
                "correct_option": "E"}),
    ("upsert", {"kind": "stock_quote", "id": "s", "symbol": "S", "price": "cheap"}),
    ("snapshot", {"kinds": ["joke"], "items": [{"kind": "quote", "id": "q", "text": "t"}]}),
    ("snapshot", {"kinds": ["joke"],
                  "items": [{"kind": "joke", "id": "ok", "setup": "s"}, {"kind": "joke", "id": "b"}]}),
    ("ticker", {"text": 5}),
    ("rename", {"kind": "joke", "id": "x"}),
])
def test_a_malformed_event_changes_nothing_but_is_not_replayed(host, api, event, data):
    store = FeedStore(host)
    store.apply("upsert", {"kind": "joke", "id": "keep", "setup": "Kept"}, "1")
    with pytest.raises(FeedError):
        store.apply(event, data, "2")
    assert [j["setup"] for j in api.get("/v1/catalog/jokes").json["items"]] == ["Kept"]
    assert api.get("/v1/catalog/trivia").json["items"] == []
    assert store.last_event_id() == "2"


def test_ticker_text_goes_to_the_marquee_key(host, api):
    FeedStore(host).apply("ticker", {"text": "Hello lobby"}, "1")
    answer = api.get("/v1/config/key-values")
    assert answer.status_code == 200
    assert {"key": "ticker.marquee.saas_feed", "value": "Hello lobby"} in answer.json["items"]


def test_backoff_grows_from_the_1_s_floor_to_the_60_s_ceiling_with_jitter():
    rand = random.Random(7)
    for attempt, (low, high) in enumerate([(1, 2), (2, 4), (4, 8), (8, 16), (16, 32), (30, 60), (30, 60)]):
        delays = [backoff_delay(attempt, rand=rand) for _ in range(300)]
        assert low <= min(delays) and max(delays) <= high, attempt  # never under 1 s, never over 60 s
        assert len(set(delays)) > 250 and max(delays) - min(delays) > (high - low) / 2, attempt  # jittered
    late = [backoff_delay(attempt, rand=rand) for attempt in (10, 40, 10_000) for _ in range(100)]
    assert 30.0 <= min(late) and max(late) <= 60.0
    assert all(0.05 <= backoff_delay(a, floor_s=0.05, rand=rand) <= 0.05 * 2 ** (a + 1) for a in range(5))
