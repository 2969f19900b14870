"""Displays in step (CONTRACT "Displays in step, and proof of play"; docs/display.md): three real
canvases of one sync group on one machine, each its own host, database and program state in its
own process (:mod:`tests.display.in_step`), their frame time driven so five minutes of the
program take seconds: started seconds apart, frames of random length each, one with a stalled
frame and a dark spell, one restarted mid-run (a new process on its database). Every slide change
of the three happens within 20 ms of the others' by their recorded start times, with the same
slide, and each was made by the first frame at or after its instant."""
from __future__ import annotations

import concurrent.futures

import pytest

from builtin_plugins.screens.timetable import dwell_seconds, timetable

from tests.display.driven import run

pytestmark = pytest.mark.slow

GROUP = "lobby"
PROGRAM = [
    {"id": "welcome", "screen_type": "message", "dwell_seconds": 3, "frequency_weight": 2,
     "config_json": {"title": "Welcome", "body": "Lobby", "backgroundColor": "#1f4e79"}},
    {"id": "menu", "screen_type": "message", "dwell_seconds": 2.5, "frequency_weight": 1,
     "config_json": {"title": "Menu", "body": "Soup", "backgroundColor": "#2e7d32"}},
    {"id": "clock", "screen_type": "clock", "dwell_seconds": 2, "frequency_weight": 1, "config_json": {}},
    {"id": "offer", "screen_type": "message", "dwell_seconds": 1.7, "frequency_weight": 1,
     "config_json": {"title": "Offer", "body": "Two for one", "backgroundColor": "#6d2877"}},
    {"id": "headlines", "screen_type": "news_headlines", "dwell_seconds": 2.2, "frequency_weight": 1,
     "config_json": {}},  # no content on display c (no news there): c skips it
]
SKIPPED_ON_C = "headlines"
T0 = 1_796_000_000_000 + 1234  # a wall-clock start off any cycle boundary
MINUTES_5 = 300_000
TOLERANCE_MS = 20


def job(start_s: float, end_s: float, seed: int, first_run: bool = True, seed_news: bool = False,
        group: str = GROUP, **extra) -> dict:
    requests = [["POST", "/v1/screens", row] for row in PROGRAM] + [["PUT", "/v1/display/settings",
                                                                       {"sync_group": group}]]
    return {"scenario": "tests.display.in_step:display", "size": (320, 180), "requests": requests if first_run else [],
            "start_ms": T0 + int(start_s * 1000), "end_ms": T0 + int(end_s * 1000), "seed_frames": seed,
            "dt": (0.02, 0.2), "seed": "news" if seed_news else None, **extra}


def test_three_displays_change_slides_together_for_five_minutes(env, tmp_path):
    envs = {name: {**env, "SVC_DISPLAY_DATA_DIR": str(tmp_path / name)} for name in ("a", "b", "c")}
    for name in envs:
        (tmp_path / name).mkdir()

    def display_c() -> list[dict]:  # restarted: a new process on the same database, 6.5 s later
        first = run(envs["c"], job(7.9, 150, seed=3), tmp_path / "c")
        second = run(envs["c"], job(156.5, 300, seed=4, first_run=False), tmp_path / "c")
        return [first, second]

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        a = pool.submit(run, envs["a"], job(0, 300, seed=1, seed_news=True), tmp_path / "a")
        b = pool.submit(run, envs["b"], job(3.2, 300, seed=2, seed_news=True, stall_ms=T0 + 61_000,
                                            dark=[T0 + 200_000, 6_000]), tmp_path / "b")
        c = pool.submit(display_c)
        runs = {"a": [a.result()], "b": [b.result()], "c": c.result()}

    syncs = {(r["sync"]["group"], r["sync"]["program_hash"], r["sync"]["cycle_ms"]) for rs in runs.values() for r in rs}
    assert len(syncs) == 1 and next(iter(syncs))[0] == GROUP, syncs  # one group, one program
    for name, rs in runs.items():
        for r in rs:
            assert "Traceback" not in r["log"], (name, r["log"][-3000:])
            for change in r["changes"]:
                if change["reason"] == "dwell":  # made by the first frame at or after its instant
                    assert change["before_ms"] < change["at_ms"] <= change["frame_ms"], (name, change)

    def running(name: str, at_ms: int) -> bool:
        """``name`` drew frames around ``at_ms`` (not before its start, while dark or restarting)."""
        for r in runs[name]:
            if r["started_ms"] < at_ms < r["ended_ms"] and \
                    not any(begin <= at_ms <= end + 1 for begin, end in r["spells"]):
                return True
        return False

    scheduled = {name: {c["at_ms"]: c["slide"] for r in rs for c in r["changes"] if c["reason"] == "dwell"}
                 for name, rs in runs.items()}
    instants = sorted(set().union(*scheduled.values()))
    assert instants[-1] - instants[0] > MINUTES_5 - 10_000 and len(instants) > 100, instants[:5]
    compared, kept = 0, 0
    for at_ms in instants:
        members = [name for name in runs if running(name, at_ms)]
        slides = {}
        for name in members:
            near = [t for t in scheduled[name] if abs(t - at_ms) <= TOLERANCE_MS]
            assert near, f"{name} made no change within {TOLERANCE_MS} ms of {at_ms - T0} ms (the others did)"
            slides[name] = scheduled[name][near[0]]
        if slides.get("a", slides.get("b")) == SKIPPED_ON_C and "c" in slides:
            # c cannot show it: its slide of the instant before stays on screen for this slot
            on_screen = max((c["at_ms"], c["slide"]) for r in runs["c"] for c in r["changes"]
                            if c["at_ms"] < at_ms - TOLERANCE_MS)[1]
            assert slides.pop("c") == on_screen != SKIPPED_ON_C, (at_ms - T0, slides, on_screen)
            kept += 1
        assert len(set(slides.values())) == 1, (at_ms - T0, slides)
        compared += len(members) >= 2
    assert compared > 100 and kept > 5, (compared, kept)
    assert SKIPPED_ON_C not in {c["slide"] for r in runs["c"] for c in r["changes"]}
    # started, restarted, back from dark, after a stall: on the group's slide at once
    for name, rs in runs.items():
        for r in rs:
            for change in r["changes"]:
                if change["reason"] in ("start", "in_step"):
                    earlier = [(t, other) for other in runs if other != name and running(other, change["frame_ms"])
                               for t in scheduled[other] if t <= change["frame_ms"]]
                    if earlier:
                        t, other = max(earlier)
                        if name == "c" and scheduled[other][t] == SKIPPED_ON_C:
                            continue  # c shows the slot before's slide (checked above for the instants)
                        assert change["slide"] == scheduled[other][t], (name, change, other, t - T0)


def test_a_display_joins_a_group_at_once_and_leaves_it_for_its_own_dwell(env, tmp_path):
    """A display in no group joins one (``PUT /v1/display/settings``) mid-slide: at its next frame it
    shows the slot's slide (``in_step``), then every change is at an instant of the group's cycle;
    out of the group again, each slide stays its own dwell from when it came."""
    table = timetable(PROGRAM[:-1])
    result = run(env, job(0, 60, seed=5, group="", groups=[[T0 + 20_000, GROUP], [T0 + 40_000, ""]]) | {
        "requests": [["POST", "/v1/screens", row] for row in PROGRAM[:-1]]}, tmp_path)
    changes = result["changes"]
    first = next(i for i, c in enumerate(changes) if c["reason"] == "in_step")
    joined = [c for c in changes[first:] if c["frame_ms"] < T0 + 40_000]
    assert 0 <= joined[0]["at_ms"] - T0 - 20_000 <= 200, joined[0]  # the first frame after the request
    assert joined[0]["slide"] == table.at(joined[0]["at_ms"]).row["id"], joined[0]
    assert all(c["at_ms"] <= joined[0]["at_ms"] for c in changes[:first])
    assert len(joined) > 5 and all(c["reason"] == "dwell" for c in joined[1:]), joined
    for change in joined[1:]:  # at the group's instants, each the slot's slide
        slot = table.at(change["at_ms"])
        assert (slot.start_ms, slot.row["id"]) == (change["at_ms"], change["slide"]), change
    left = [c for c in changes if c["frame_ms"] >= T0 + 40_000 and c["reason"] == "dwell"]
    by_id = {row["id"]: row for row in PROGRAM}
    for before, after in zip(left, left[1:]):  # its own dwell, in frame time (a frame of at most 0.2 s late)
        assert 0 <= after["at_ms"] - before["at_ms"] - dwell_seconds(by_id[before["slide"]]) * 1000 <= 201, \
            (before, after)
    assert len(left) > 5
