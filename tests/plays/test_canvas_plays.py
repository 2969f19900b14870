"""Proof of play from the real canvas (offscreen, driven frame by frame: :mod:`tests.display.driven`):
the slides, an alert and an overlay it showed are rows of the display's database after the canvas
process ends, read by a new host (a restart) through ``GET /v1/telemetry/plays``, on SQLite and
PostgreSQL."""
from __future__ import annotations

import pytest

from svc_display.testing import ApiClient, issue_key
from tests.display.driven import run

pytestmark = [pytest.mark.svc_display_storage, pytest.mark.slow]


def slide(slide_id: str, name: str) -> dict:
    return {"id": slide_id, "name": name, "screen_type": "message", "dwell_seconds": 2, "frequency_weight": 1,
            "config_json": {"title": name, "body": f"Slide {slide_id}"}}


def test_the_canvas_records_every_slide_alert_and_overlay_it_shows_and_they_survive_a_restart(env, make_host,
                                                                                             tmp_path):
    slides = [slide("one", "Opening hours"), slide("two", "Lunch menu"), slide("three", "Sponsor: Bean & Co")]
    result = run(env, {"scenario": "tests.plays.scenario:plays", "size": (640, 360),
                       "requests": [["POST", "/v1/screens", s] for s in slides]}, tmp_path)
    start = result["start_ms"]
    # what was on screen when the canvas stopped: a slide (since the navigation) and the overlay
    assert sorted((p["kind"], p["started_ms"] - start) for p in result["open"]) == [("overlay", 5000), ("slide", 7000)]

    host = make_host()  # a new host on the same database: the canvas's process is gone
    items = ApiClient(host, issue_key(host, "viewer")).get("/v1/telemetry/plays").json["items"]
    at = [(p["kind"], p["screen_id"], p["started_ms"] - start, p["ended_ms"] - start, p["complete"]) for p in items]
    names = {s["id"]: s["name"] for s in slides}
    played = [p for p in at if p[0] == "slide"]
    # each 2 s dwell ran out (complete); the navigation cut one short at 7 s; the stop cut the last at 8 s
    assert [p[2:] for p in played] == [(0, 2000, True), (2000, 4000, True), (4000, 6000, True),
                                       (6000, 7000, False), (7000, 8000, False)], at
    assert {p[1] for p in played[:3]} == set(names)  # each slide once a cycle
    assert played[3][1] == played[0][1] and played[4][1] != played[3][1]
    for item in items:
        if item["kind"] == "slide":
            assert (item["screen_type"], item["label"]) == ("message", names[item["screen_id"]])
    assert [p for p in at if p[0] != "slide"] == [("alert", result["alert"], 5000, 7000, True),
                                                  ("overlay", "sponsor", 5000, 8000, False)], at
    overlay = next(i for i in items if i["kind"] == "overlay")
    assert (overlay["screen_type"], overlay["label"]) == ("bouncing_message", "Thanks to our sponsor")
    alert = next(i for i in items if i["kind"] == "alert")
    assert (alert["screen_type"], alert["label"]) == ("warning", "Fire drill at 3")
    assert "Traceback" not in result["log"], result["log"][-3000:]
