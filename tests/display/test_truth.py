"""The rule "skip, don't blank" (``svc_host.display.truth``) on its own, without a canvas: which
rows may be shown, the back-off of a renderer that fails again and again and its log lines, the
report the REST side reads; and ``GET /v1/display/screen`` of a host without a canvas."""
from __future__ import annotations

import logging
import threading

from svc_host.display.truth import HOLD_AFTER, HOLD_SECONDS, MAX_HOLD_SECONDS, ScreenTruth


class Frames:
    def __init__(self) -> None:
        self.elapsed = 0.0


def truth(frames: Frames, published: list | None = None) -> ScreenTruth:
    types = {"message": "basic", "boom": "boomer"}

    def unavailable(kind: str, type_id: str) -> str | None:
        return None if type_id in types else f"no loaded plugin provides the {kind} type {type_id!r}"

    return ScreenTruth(unavailable, lambda: frames.elapsed, lambda: 1_000 + int(frames.elapsed * 1000),
                       published.append if published is not None else None, lambda _kind, t: types.get(t))


ROWS = [{"id": "ok", "screen_type": "message"}, {"id": "bad", "screen_type": "boom", "config_json": {"a": 1}},
        {"id": "gone", "screen_type": "weather_current"}]


def test_a_renderer_failing_again_and_again_is_held_back_doubling_and_logs_rarely(caplog):
    frames = Frames()
    t = truth(frames)
    caplog.set_level(logging.INFO, "svc_host.display")
    assert [r["id"] for r in t.showable("slides", "screen", ROWS)] == ["ok", "bad"]  # the gone type: skipped
    tried = 0
    for _turn in range(2000):  # a turn every 5 s of frames for about 2.8 hours
        if any(r["id"] == "bad" for r in t.showable("slides", "screen", ROWS)):
            tried += 1
            t.failed("screen", "boom", "bad", "build", RuntimeError("boom"))
        frames.elapsed += 5
    # held 30 s, 60, 120 ... then every 10 min: about 23 tries in 2000 turns
    expected, clock, hold = HOLD_AFTER, 0.0, HOLD_SECONDS
    clock = HOLD_AFTER * 5.0
    while clock < 2000 * 5:
        clock += hold
        expected += 1
        hold = min(MAX_HOLD_SECONDS, hold * 2)
    assert abs(tried - expected) <= 3, (tried, expected)
    lines = [r for r in caplog.records if "renderer 'boom'" in r.getMessage()]
    assert len(lines) <= 8, [r.getMessage() for r in lines]  # 1, 2, 3, 4, 8, 16 ... not one a turn
    assert sum(1 for r in lines if r.exc_info) == 1  # the traceback once
    report = t.snapshot()
    assert report["failing"] == [{"kind": "screen", "type": "boom", "plugin": "boomer", "message": "RuntimeError: boom",
                                  "count": tried, "since_ms": 1_000}]
    assert [(s["screen_id"], s["reason"]) for s in report["skipped"]] == [("bad", "renderer_failed"),
                                                                           ("gone", "type_unavailable")]


def test_a_changed_row_ends_the_hold_and_a_whole_turn_clears_the_record():
    frames = Frames()
    t = truth(frames)
    for _ in range(HOLD_AFTER):
        t.showable("slides", "screen", ROWS)
        t.failed("screen", "boom", "bad", "build", RuntimeError("boom"))
    assert "bad" not in [r["id"] for r in t.showable("slides", "screen", ROWS)]  # held
    fixed = [ROWS[0], {**ROWS[1], "config_json": {"a": 2}}]
    assert "bad" in [r["id"] for r in t.showable("slides", "screen", fixed)]  # its row changed: tried now
    t.showing(fixed[1])
    t.shown("screen", "boom", "bad")
    frames.elapsed += 1
    t.frame()
    assert t.snapshot()["failing"]  # not yet: a few frames are no proof
    t.shown("screen", "boom", "bad", whole=True)  # it stayed its dwell
    assert t.snapshot() == {"state": "showing", "current": {"screen_id": "bad", "screen_type": "boom",
                                                            "since_ms": 1_000}, "skipped": [], "failing": []}


def test_a_failing_row_that_leaves_the_program_is_no_longer_failing_and_events_follow_changes():
    frames, published = Frames(), []
    t = truth(frames, published)
    t.showable("slides", "screen", ROWS)
    t.failed("screen", "boom", "bad", "prepare", KeyError("x"))
    assert t.degraded() == {"boomer": "its screen renderer 'boom' is failing: KeyError: 'x'"}
    assert published  # the change event: the plugins state file follows it
    count = len(published)
    t.showable("slides", "screen", ROWS)  # nothing changed: no event
    assert len(published) == count
    t.showable("slides", "screen", [ROWS[0]])  # the operator disabled it
    assert t.snapshot()["failing"] == [] and t.degraded() == {}
    assert t.snapshot()["state"] == "starting"  # the slides said nothing yet
    t.showing(None)
    assert t.snapshot()["state"] == "nothing_to_show"
    t.dark(True)
    assert t.snapshot()["state"] == "off"


def test_the_report_is_read_whole_from_other_threads_while_it_changes():
    frames = Frames()
    t = truth(frames)
    stop, seen, errors = threading.Event(), [], []

    def read() -> None:
        while not stop.is_set():
            report = t.snapshot()
            try:
                assert set(report) == {"state", "current", "skipped", "failing"}
                assert all(set(i) == {"kind", "type", "plugin", "message", "count", "since_ms"} for i in report["failing"])
            except AssertionError as exc:  # pragma: no cover  reported below
                errors.append(exc)
            seen.append(report["state"])

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for index in range(300):
            t.showable("slides", "screen", ROWS)
            t.failed("screen", "boom", "bad", "tick", ValueError(str(index)))
            t.showing(ROWS[index % 2])
    finally:
        stop.set()
        reader.join()
    assert not errors and seen


def test_the_screen_route_answers_headless_for_any_valid_key_and_is_documented(svc_display_host, svc_display_api):
    host = svc_display_host()
    viewer = svc_display_api(host, role="viewer")
    answer = viewer.get("/v1/display/screen")
    assert answer.status_code == 200
    assert answer.json == {"state": "headless", "current": None, "skipped": [], "failing": [],
                           "sync": answer.json["sync"]}  # tests/screens/test_in_step.py says what it holds
    assert viewer.get("/v1/display/screen", key="").status_code == 401
    document = viewer.get("/v1/openapi.json").json
    schema = document["paths"]["/v1/display/screen"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema  # its response schema is in the document, like every route's
