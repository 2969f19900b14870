"""Proof of play on the display (CONTRACT "Displays in step, and proof of play"): the recorder's
plays, their table (bounded, kept across a restart) and ``GET /v1/telemetry/plays`` (pages,
filters, CSV, validation), on SQLite and PostgreSQL. The canvas recording them is
``test_canvas_plays.py``."""
from __future__ import annotations

import csv
import io

import pytest
from pony import orm

from builtin_plugins.plays.recorder import DAY_MS, KEEP_DAYS, insert_plays, prune
from builtin_plugins.plays.store import encode_cursor
from hookspecs.services import PLAYS
from svc_display.testing import ApiClient, issue_key
from svc_display.testing.clock import FixedClock

pytestmark = pytest.mark.svc_display_storage

T0 = 1_800_000_000_000
FIELDS = ["screen_id", "screen_type", "label", "started_ms", "ended_ms", "complete", "kind"]


def rows(count: int, start: int = T0, dwell: int = 6000, kind: str = "slide") -> list[tuple]:
    """``count`` plays of three slides in turn, ``dwell`` ms each, in COLUMNS order."""
    return [(kind, f"s{i % 3}", "message", f"Slide {i % 3}", start + i * dwell, start + (i + 1) * dwell, True)
            for i in range(count)]


def stored(host) -> list[tuple]:
    with orm.db_session:
        return sorted(host.db.select("SELECT kind, screen_id, screen_type, label, started_ms, ended_ms, complete "
                                     "FROM svc_play"), key=lambda r: (r[4], r[1]))


def every_page(api, query: str = "", limit: int = 7) -> list[dict]:
    items, cursor, pages = [], None, 0
    while True:
        answer = api.get(f"/v1/telemetry/plays?limit={limit}{query}" + (f"&cursor={cursor}" if cursor else ""))
        assert answer.status_code == 200, answer.text
        items += answer.json["items"]
        cursor, pages = answer.json["next_cursor"], pages + 1
        if cursor is None:
            return items
        assert pages < 1000


# -- the recorder -------------------------------------------------------------------------------------

def test_the_slide_program_each_change_a_play_complete_when_its_dwell_ran_out(host):
    plays = host.services[PLAYS]
    host.clock = FixedClock(T0)
    plays.replace("slide", [{"id": "a", "type": "message", "label": "Welcome"}], complete=True)
    host.clock.ms += 15_000
    plays.replace("slide", [{"id": "a", "type": "message", "label": "Welcome"}], complete=True)  # its dwell again
    host.clock.ms += 4_000
    plays.replace("slide", [{"id": "b", "type": "clock", "label": ""}], complete=False)  # navigation: cut short
    host.clock.ms += 10_000
    plays.replace("slide", [], complete=True)  # nothing left to show (idle)
    assert plays.flush()
    assert stored(host) == [("slide", "a", "message", "Welcome", T0, T0 + 15_000, True),
                            ("slide", "a", "message", "Welcome", T0 + 15_000, T0 + 19_000, False),
                            ("slide", "b", "clock", "", T0 + 19_000, T0 + 29_000, True)]


def test_alerts_and_overlays_play_while_they_are_shown_each_kind_on_its_own(host):
    plays = host.services[PLAYS]
    host.clock = FixedClock(T0)
    fire = {"id": "fire", "type": "critical", "label": "Fire drill"}
    plays.show("alert", [fire])
    plays.show("overlay", [{"id": "sponsor", "type": "bouncing_message", "label": "Sponsor"}])
    plays.replace("slide", [{"id": "a", "type": "message", "label": "A"}], complete=True)
    host.clock.ms += 1000
    plays.show("alert", [fire, {"id": "wifi", "type": "info", "label": "Wi-Fi"}])  # fire goes on
    host.clock.ms += 2000
    plays.show("alert", [])  # both dismissed
    host.clock.ms += 500
    plays.show("overlay", [], complete=False)  # its renderer failed: cut short
    assert plays.open_plays() == [{"kind": "slide", "screen_id": "a", "screen_type": "message", "label": "A",
                                   "started_ms": T0}]
    assert plays.flush()
    assert stored(host) == [("alert", "fire", "critical", "Fire drill", T0, T0 + 3000, True),
                            ("overlay", "sponsor", "bouncing_message", "Sponsor", T0, T0 + 3500, False),
                            ("alert", "wifi", "info", "Wi-Fi", T0 + 1000, T0 + 3000, True)]


def test_dark_ends_what_plays_and_light_starts_what_is_on_screen_then(host):
    plays = host.services[PLAYS]
    host.clock = FixedClock(T0)
    plays.replace("slide", [{"id": "a", "type": "message", "label": "A"}], complete=True)
    plays.show("overlay", [{"id": "o", "type": "shape_rain", "label": ""}])
    host.clock.ms += 4000
    plays.suspend()
    host.clock.ms += 30_000
    plays.replace("slide", [{"id": "b", "type": "message", "label": "B"}], complete=False)  # navigated while dark
    plays.show("alert", [{"id": "x", "type": "info", "label": "X"}])  # came while dark
    plays.show("overlay", [])  # went while dark
    assert plays.open_plays() == []
    host.clock.ms += 30_000
    plays.resume()
    host.clock.ms += 3000
    plays.replace("slide", [{"id": "c", "type": "message", "label": "C"}], complete=True)
    plays.show("alert", [])
    assert plays.flush()
    assert [(r[0], r[1], r[4] - T0, r[5] - T0, r[6]) for r in stored(host)] == [
        ("slide", "a", 0, 4000, False), ("overlay", "o", 0, 4000, False),
        ("slide", "b", 64_000, 67_000, True), ("alert", "x", 64_000, 67_000, True)]


def test_plays_on_screen_at_shutdown_are_written_cut_short_and_read_after_a_restart(make_host):
    first = make_host()
    first.clock = FixedClock(T0)
    first.services[PLAYS].replace("slide", [{"id": "a", "type": "message", "label": "A"}], complete=True)
    first.services[PLAYS].show("overlay", [{"id": "o", "type": "shape_rain", "label": "Rain"}])
    first.clock.ms += 2500
    first.close()
    again = make_host()
    items = ApiClient(again, issue_key(again, "viewer")).get("/v1/telemetry/plays").json["items"]
    assert items == [{"screen_id": "a", "screen_type": "message", "label": "A", "started_ms": T0,
                      "ended_ms": T0 + 2500, "complete": False, "kind": "slide"},
                     {"screen_id": "o", "screen_type": "shape_rain", "label": "Rain", "started_ms": T0,
                      "ended_ms": T0 + 2500, "complete": False, "kind": "overlay"}]


# -- bounds --------------------------------------------------------------------------------------------

def test_plays_older_than_90_days_go_and_past_the_cap_the_oldest_go_first(host):
    now = T0 + 100 * DAY_MS
    old = [("slide", "old", "message", "", now - (KEEP_DAYS * DAY_MS) - 1, now - KEEP_DAYS * DAY_MS, True)]
    kept = [("slide", "kept", "message", "", now - KEEP_DAYS * DAY_MS, now - KEEP_DAYS * DAY_MS + 1, True)]
    insert_plays(host.db, old + kept + rows(20, start=now - 6000 * 20))
    assert prune(host.db, now, 10) == 10
    left = stored(host)
    assert [r[4] for r in left] == [now - 6000 * (20 - i) for i in range(10, 20)]  # the newest 10
    insert_plays(host.db, old + kept)
    assert prune(host.db, now, 100) == 11  # past 90 days: gone; at 90 days: kept
    assert "old" not in {r[1] for r in stored(host)}


def test_the_writer_keeps_the_table_at_its_cap(make_host):
    host = make_host({"SVC_DISPLAY_PLAYS_MAX_ROWS": "100"})
    host.clock = FixedClock(T0)
    plays = host.services[PLAYS]
    for index in range(130):
        plays.replace("slide", [{"id": f"s{index}", "type": "message", "label": ""}], complete=True)
        host.clock.ms += 10
    assert plays.flush()
    left = stored(host)
    assert len(left) == 100
    assert left[0][1] == "s29" and left[-1][1] == "s128"  # the oldest 29 went; s129 is on screen


def test_the_cap_is_a_setting_with_bounds(make_host):
    from svc_host.config import ConfigError

    with pytest.raises(ConfigError, match="SVC_DISPLAY_PLAYS_MAX_ROWS"):
        make_host({"SVC_DISPLAY_PLAYS_MAX_ROWS": "5"})


# -- the route --------------------------------------------------------------------------------------------

def test_pages_walk_every_play_once_in_start_order(host, api):
    insert_plays(host.db, rows(50))
    insert_plays(host.db, [("alert", "fire", "warning", "Fire", T0 + 6000, T0 + 9000, True)])  # same start as one
    items = every_page(api)
    assert len(items) == 51
    assert [i["started_ms"] for i in items] == sorted(i["started_ms"] for i in items)
    assert [i for i in items if i["kind"] == "alert"] == [
        {"screen_id": "fire", "screen_type": "warning", "label": "Fire", "started_ms": T0 + 6000,
         "ended_ms": T0 + 9000, "complete": True, "kind": "alert"}]
    first = api.get("/v1/telemetry/plays?limit=1").json
    assert list(first["items"][0]) == FIELDS
    # new plays written between pages come after the pages already read, none is skipped or repeated
    page = api.get("/v1/telemetry/plays?limit=10").json
    insert_plays(host.db, rows(3, start=T0 + 51 * 6000))
    cursor, rest = page["next_cursor"], []
    while cursor:
        answer = api.get(f"/v1/telemetry/plays?limit=10&cursor={cursor}").json
        rest += answer["items"]
        cursor = answer["next_cursor"]
    assert len(page["items"]) + len(rest) == 54


def test_filters_by_time_screen_and_kind(host, api):
    insert_plays(host.db, rows(30) + [("overlay", "s1", "static_image", "Logo", T0 + 60_000, T0 + 90_000, True)])
    window = every_page(api, f"&from_ms={T0 + 12_000}&to_ms={T0 + 60_000}")
    assert [i["started_ms"] for i in window] == list(range(T0 + 12_000, T0 + 60_000, 6000))
    one = every_page(api, "&screen_id=s1")
    assert {i["screen_id"] for i in one} == {"s1"} and len(one) == 11
    assert [i["kind"] for i in every_page(api, "&screen_id=s1&kind=overlay")] == ["overlay"]
    assert len(every_page(api, "&kind=slide")) == 30
    assert api.get(f"/v1/telemetry/plays?from_ms={T0 + 10 ** 9}").json == {"items": [], "next_cursor": None}


def test_csv_is_the_same_rows(host, api):
    insert_plays(host.db, rows(5) + [("slide", "x", "message", '=HYPERLINK("http://x"), "quoted"', T0 + 40_000,
                                      T0 + 41_000, False)])
    json_items = api.get("/v1/telemetry/plays?limit=4").json
    answer = api.get("/v1/telemetry/plays?limit=4", headers={"Accept": "text/csv"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(answer.text)))
    assert table[0] == FIELDS
    assert table[1:] == [[str(i[f]).lower() if isinstance(i[f], bool) else str(i[f]) for f in FIELDS]
                         for i in json_items["items"]]
    assert answer.headers["next-cursor"] == json_items["next_cursor"]
    last = api.get(f"/v1/telemetry/plays?cursor={json_items['next_cursor']}", headers={"Accept": "text/csv"})
    table = list(csv.reader(io.StringIO(last.text)))
    assert "next-cursor" not in last.headers
    assert table[-1] == ["x", "message", '\'=HYPERLINK("http://x"), "quoted"', str(T0 + 40_000), str(T0 + 41_000),
                         "false", "slide"]  # a formula is text in a spreadsheet
    for accept in ("*/*", "application/json", "text/csv;q=0.5, application/json", ""):
        assert "items" in api.get("/v1/telemetry/plays", headers={"Accept": accept} if accept else {}).json


@pytest.mark.parametrize("query", [
    "limit=0", "limit=100001", "limit=x", "from_ms=-1", "to_ms=abc", f"from_ms={T0}&to_ms={T0 - 1}",
    "kind=ticker", "screen_id=" + "x" * 101, "cursor=", "cursor=garbage", "cursor=p1.", "cursor=p1.%21%21",
    "cursor=p1.YWJj", "cursor=p1.LTEuMg", "cursor=p1." + "A" * 41, "cursor=" + encode_cursor(1, 2)[:-1] + "%00",
    "cursor=p1.OTk5OTk5OTk5OTk5OTk5OTkuMQ",
])
def test_bad_queries_are_400_validation_failed(host, api, query):
    insert_plays(host.db, rows(2))
    answer = api.get(f"/v1/telemetry/plays?{query}")
    assert answer.status_code == 400, answer.text
    assert answer.json["code"] == "validation_failed"


def test_plays_need_telemetry_read(host, api):
    assert ApiClient(host, issue_key(host, "viewer")).get("/v1/telemetry/plays").status_code == 200
    assert ApiClient(host, "").get("/v1/telemetry/plays").status_code == 401
    assert ApiClient(host, "svc_bogus").get("/v1/telemetry/plays").status_code == 401


def test_the_route_is_in_the_openapi_document_with_its_csv_form(api):
    document = api.get("/v1/openapi.json").json
    operation = document["paths"]["/v1/telemetry/plays"]["get"]
    assert operation["x-permission"] == "telemetry.read"
    assert set(operation["responses"]["200"]["content"]) == {"application/json", "text/csv"}
    names = {p["name"] for p in operation["parameters"]}
    assert names == {"from_ms", "to_ms", "screen_id", "kind", "limit", "cursor"}


def test_recording_goes_on_while_the_database_is_locked_and_the_plays_are_written_after(host, backend):
    """The layers' calls never wait for the database: with the table locked by another connection,
    a hundred slide changes are recorded, nothing is written (a flush times out); once the lock
    goes, every ended play is written."""
    plays = host.services[PLAYS]
    host.clock = FixedClock(T0)
    if backend == "sqlite":
        import sqlite3

        lock = sqlite3.connect(host.settings.sqlite_path, isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
    else:
        import psycopg2

        lock = psycopg2.connect(host.settings.database_url)
        lock.cursor().execute("LOCK TABLE svc_play IN ACCESS EXCLUSIVE MODE")
    try:
        for index in range(101):
            plays.replace("slide", [{"id": f"s{index}", "type": "message", "label": ""}], complete=True)
            host.clock.ms += 1000
        assert not plays.flush(timeout=1.0)  # the writer waits on the lock; the calls above did not
    finally:
        lock.rollback()
        lock.close()
    assert plays.flush(timeout=60)
    assert [r[1] for r in stored(host)] == [f"s{index}" for index in range(100)]


@pytest.mark.slow
@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)
def test_a_batch_that_fails_is_written_with_a_later_one(host):
    """SQLite gives up on a lock after its busy timeout (10 s): the batch fails, is kept, and is
    written once the database can be written again, before the plays that ended after it."""
    import sqlite3
    import time

    plays = host.services[PLAYS]
    host.clock = FixedClock(T0)
    lock = sqlite3.connect(host.settings.sqlite_path, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        for index in range(5):
            plays.replace("slide", [{"id": f"s{index}", "type": "message", "label": ""}], complete=True)
            host.clock.ms += 1000
        deadline = time.monotonic() + 120
        while plays.failures == 0:
            assert time.monotonic() < deadline, "the writer never gave up on the lock"
            time.sleep(0.1)
    finally:
        lock.rollback()
        lock.close()
    plays.replace("slide", [{"id": "after", "type": "message", "label": ""}], complete=True)
    assert plays.flush(timeout=60)
    assert [r[1] for r in stored(host)] == ["s0", "s1", "s2", "s3", "s4"] and plays.lost == 0
