"""Proof of play of a group from the controller (``GET /bff/v1/fleet/plays``, docs/controller.md
"Proof of play of a group"), on SQLite and PostgreSQL: two real displays with recorded plays,
a hung display, a keyless one, displays answering what is not a page of plays, all in one group,
exported as one CSV with a summary naming each display's result; bad queries are 400."""
from __future__ import annotations

import csv
import io
import time

import pytest

from tests.controllers import ControllerProcess, display_with_plays, running
from tests.controller.fakedisplay import FakeDisplay, Gauge

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]

DAY_MS = 86_400_000
CONCURRENCY = 3
COLUMNS = ["display_id", "display_name", "screen_id", "screen_type", "label", "started_ms", "ended_ms", "complete",
           "kind", "started_utc", "ended_utc", "duration_s"]


@pytest.fixture(scope="module")
def ctl(tmp_path_factory, module_database_url):
    root = tmp_path_factory.mktemp("plays")
    # the poller is not what this module tests; at most CONCURRENCY displays asked at once
    env = {"SVC_CONTROLLER_FLEET_POLL_SECONDS": "3600", "SVC_CONTROLLER_FLEET_CONCURRENCY": str(CONCURRENCY)}
    if module_database_url:
        env["SVC_CONTROLLER_DATABASE_URL"] = module_database_url
    controller = ControllerProcess(root / "ctl" / "data", env)
    with running(controller):
        controller.start()
        yield controller


def every_play(display, key: str, from_ms: int, to_ms: int) -> list[dict]:
    items, cursor = [], None
    while True:
        query = f"/v1/telemetry/plays?from_ms={from_ms}&to_ms={to_ms}&limit=100000" + (f"&cursor={cursor}" if cursor else "")
        answer = display.get(query, key=key).json()
        items += answer["items"]
        cursor = answer["next_cursor"]
        if cursor is None:
            return items


def split(text: str) -> tuple[list[list[str]], list[list[str]]]:
    """The plays table (header first) and the summary section (after the first empty row)."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    blank = rows.index([])
    return rows[:blank], rows[blank + 1:]


def test_a_group_exports_as_one_csv_and_the_summary_names_each_display_that_did_not_answer(ctl, tmp_path):
    now = int(time.time() * 1000)
    t0 = now - 3 * DAY_MS
    first = display_with_plays(tmp_path / "first", t0, 2300, ["Welcome", "=HYPERLINK(\"x\")", "Menu, today"])
    second = display_with_plays(tmp_path / "second", t0 + 1000, 40, ["Sponsor"])
    hung, garbage, deep, old = FakeDisplay().start(), FakeDisplay().start(), FakeDisplay().start(), FakeDisplay().start()
    hung.mode, garbage.mode, deep.mode = "hang", "garbage", "deep"  # old: answers 404 (no proof of play)
    try:
        with running(first, second):
            keys = {"first": first.key("viewer"), "second": second.key("viewer")}
            fleet = [("first", "Front window", first.url, keys["first"]), ("second", "Back wall", second.url,
                                                                           keys["second"]),
                     ("hung", "Hung one", hung.url, "svc_whatever"), ("keyless", "No key", first.url, None),
                     ("garbage", "Garbage", garbage.url, "svc_whatever"), ("deep", "Deep", deep.url, "svc_whatever"),
                     ("old", "Old release", old.url, "svc_whatever")]
            for display_id, name, url, key in fleet:
                body = {"name": name, "baseUrl": url, "group": "Shop floor", **({"apiKey": key} if key else {})}
                assert ctl.request("PUT", f"/bff/v1/displays/{display_id}", json=body).status_code == 201
            body = {"name": "Elsewhere", "baseUrl": first.url, "apiKey": keys["first"], "group": "Other"}
            assert ctl.request("PUT", "/bff/v1/displays/elsewhere", json=body).status_code == 201

            # a window that leaves out the first plays of each and the ones after it
            from_ms, to_ms = t0 + 6000 * 10, t0 + 6000 * 2200
            r = ctl.get("/bff/v1/fleet/plays", params={"group": "Shop floor", "from_ms": from_ms, "to_ms": to_ms})
            assert r.status_code == 200, r.text
            assert r.headers["content-type"].startswith("text/csv")
            assert r.headers["content-disposition"].startswith('attachment; filename="plays-Shop-floor-')
            table, summary = split(r.text)
            assert table[0] == COLUMNS

            # every play of each real display in the window, as the display itself serves them, in order
            expected = []
            for display_id, name, display in (("first", "Front window", first), ("second", "Back wall", second)):
                for play in every_play(display, keys[display_id], from_ms, to_ms):
                    expected.append([display_id, name, play["screen_id"], play["screen_type"],
                                     "'" + play["label"] if play["label"].startswith("=") else play["label"],
                                     str(play["started_ms"]), str(play["ended_ms"]),
                                     "true" if play["complete"] else "false", play["kind"]])
            assert len(expected) > 2100  # more than two pages of the first display
            assert [row[:9] for row in table[1:]] == expected
            # the first display's alert came after the window, the second's within it
            assert [row[0] for row in table[1:] if row[8] == "alert"] == ["second"]
            # the UTC times and the duration a spreadsheet reads
            row = table[1]
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(row[5]) / 1000))
            assert row[9] == f"{started}.{int(row[5]) % 1000:03d}" and row[11] == "6.000"

            # the summary: a title, a header, one row per display of the group (not the other group's)
            assert summary[0][0] == "summary"
            assert "7 displays" in summary[0][1] and "5 did not answer or failed" in summary[0][1], summary[0]
            assert "Hung one" in summary[0][1]
            assert summary[1] == ["display_id", "display_name", "result", "plays", "reason"]
            results = {row[0]: row for row in summary[2:]}
            assert set(results) == {"first", "second", "hung", "keyless", "garbage", "deep", "old"}
            counts = {display_id: sum(1 for r in table[1:] if r[0] == display_id) for display_id in ("first", "second")}
            assert results["first"][2:4] == ["exported", str(counts["first"])]
            assert results["second"][2:4] == ["exported", str(counts["second"])] and counts["second"] == 40 - 10 + 1
            assert results["hung"][2] == "timed_out" and "no answer within 10 s" in results["hung"][4]
            assert results["keyless"][2] == "failed" and "no API key" in results["keyless"][4]
            for display_id in ("garbage", "deep"):  # not JSON; JSON nested past what Python parses
                assert results[display_id][2] == "failed" and "without a page of plays" in results[display_id][4]
            assert results["old"][2] == "failed" and "answered 404" in results["old"][4]
            assert all(results[i][3] == "0" and "none of its plays" in results[i][4]
                       for i in ("hung", "keyless", "garbage", "deep", "old"))
            assert r.headers["x-svc-plays-rows"] == str(len(expected))
            assert r.headers["x-svc-plays-incomplete"] == "deep,garbage,hung,keyless,old"
            assert all(key not in r.text and key not in ctl.log for key in keys.values())

            # only one kind; the hung display is quick to refuse from now on
            hung.mode = "close"
            r = ctl.get("/bff/v1/fleet/plays", params={"group": "Shop floor", "from_ms": t0, "to_ms": now,
                                                        "kind": "alert"})
            assert r.status_code == 200, r.text
            table, summary = split(r.text)
            assert [(row[0], row[2], row[4], row[8]) for row in table[1:]] == [
                ("first", "fire", "Fire drill", "alert"), ("second", "fire", "Fire drill", "alert")]
            assert {row[0]: row[2] for row in summary[2:]}["hung"] == "failed"
    finally:
        for fake in (hung, garbage, deep, old):
            fake.stop()


def test_at_most_the_fleet_concurrency_of_displays_are_asked_at_once_and_their_texts_are_made_safe(ctl):
    gauge, fakes = Gauge(), []
    try:
        for index in range(8):
            fake = FakeDisplay().start()
            fake.gauge, fake.plays_hold_s = gauge, 0.3
            fake.plays = [{"screen_id": "s1", "screen_type": "message", "label": label, "started_ms": 1000 * i,
                           "ended_ms": 1000 * i + 500, "complete": i % 2 == 0, "kind": "slide"}
                          for i, label in enumerate(["@SUM(A1)", "+1", f"Display {index}"])]
            fakes.append(fake)
            body = {"name": f"=cmd|' /C calc'!A{index}", "baseUrl": fake.url, "apiKey": "svc_whatever", "group": "many"}
            assert ctl.request("PUT", f"/bff/v1/displays/many-{index}", json=body).status_code == 201
        r = ctl.get("/bff/v1/fleet/plays", params={"group": "many", "from_ms": 0, "to_ms": 10_000})
        assert r.status_code == 200, r.text
        assert r.headers["x-svc-plays-incomplete"] == "" and r.headers["x-svc-plays-rows"] == "24"
        table, summary = split(r.text)
        assert len(table) == 1 + 24 and [row[2] for row in summary[2:]] == ["exported"] * 8
        assert 1 <= gauge.peak <= CONCURRENCY, gauge.peak
        first = table[1:4]
        assert [row[1] for row in first] == ["'=cmd|' /C calc'!A0"] * 3
        assert [row[4] for row in first] == ["'@SUM(A1)", "'+1", "Display 0"]
        assert [row[7] for row in first] == ["true", "false", "true"]
        assert [(row[9], row[10], row[11]) for row in first][1] == (
            "1970-01-01 00:00:01.000", "1970-01-01 00:00:01.500", "0.500")
        assert {row[1] for row in summary[2:]} == {f"'=cmd|' /C calc'!A{i}" for i in range(8)}
    finally:
        for fake in fakes:
            fake.stop()
        for index in range(8):
            ctl.request("DELETE", f"/bff/v1/displays/many-{index}")


BAD = [
    ({}, {"group", "from_ms", "to_ms"}),
    ({"group": "Shop floor", "from_ms": "1"}, {"to_ms"}),
    ({"group": "Shop floor", "from_ms": "5", "to_ms": "5"}, {"to_ms"}),
    ({"group": "Shop floor", "from_ms": "9", "to_ms": "2"}, {"to_ms"}),
    ({"group": "Shop floor", "from_ms": "-1", "to_ms": "2"}, {"from_ms"}),
    ({"group": "Shop floor", "from_ms": "1.5", "to_ms": "2"}, {"from_ms"}),
    ({"group": "Shop floor", "from_ms": "0", "to_ms": "9" * 400}, {"to_ms"}),
    ({"group": "Shop floor", "from_ms": "0", "to_ms": "253402300800000"}, {"to_ms"}),
    ({"group": "Shop floor", "from_ms": "0x10", "to_ms": "99"}, {"from_ms"}),
    ({"group": "Shop floor", "from_ms": "0", "to_ms": "9", "kind": "sponsor"}, {"kind"}),
    ({"group": "", "from_ms": "0", "to_ms": "9"}, {"group"}),
    ({"group": "x" * 5000, "from_ms": "0", "to_ms": "9"}, {"group"}),
    ({"group": "a\x00b", "from_ms": "0", "to_ms": "9"}, {"group"}),
    ({"group": "a\nb", "from_ms": "0", "to_ms": "9"}, {"group"}),
    ({"group": "Nobody's group", "from_ms": "0", "to_ms": "9"}, {"group"}),
]


@pytest.mark.parametrize("params,fields", BAD)
def test_bad_queries_are_400_with_the_field_named(ctl, params, fields):
    r = ctl.get("/bff/v1/fleet/plays", params=params)
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "validation_failed" and set(r.json()["details"]) == fields, r.text


@pytest.mark.parametrize("raw", ["group=%ff%fe&from_ms=0&to_ms=9", "group=%ed%a0%80&from_ms=0&to_ms=9",
                                 "group=a&from_ms=%00&to_ms=9", "group=a&group=b&from_ms=0&to_ms=%ff",
                                 "%ff=%fe&group=a", "group=a&from_ms=" + "1" * 20000 + "&to_ms=9"])
def test_any_bytes_in_the_query_are_400_never_500(ctl, raw):
    r = ctl.get("/bff/v1/fleet/plays?" + raw)
    assert r.status_code in (400, 414, 431), r.text
    assert r.json()["code"], r.text
