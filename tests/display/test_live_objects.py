"""Memory over time (issue 29): the canvas's live Kivy textures and widgets return to their
steady level after program cycles and theme switches (a slide, overlay, tape or theme that
left must not keep its textures alive). Counted on the real canvas's UI thread after a full
collection (``GET /v1/test-display/live``), always at the same point: one resting slide shown
alone, after the counts stop moving.

The test fails when a slide's widgets outlive it (checked by keeping every ``themed_slide`` in
a module list: the counts at rest grow each round). The tapes are one text tape: a ``time``
tape's textures (one per second shown, dropped with the run that shows them) make the count
at rest swing by up to eight with where the band is in its loop."""
from __future__ import annotations

import time

import pytest

from tests.display.canvas import CanvasServer, canvas_env

ROUNDS = 3
SLACK = 4  # a texture or widget more or less between two counts at rest (a clock's glyph cache)


def message(screen_id: str, colour: str, dwell: float = 60) -> dict:
    return {"id": screen_id, "screen_type": "message", "enabled": True, "dwell_seconds": dwell,
            "frequency_weight": 1, "config_json": {"title": screen_id, "body": f"{screen_id} " * 12,
                                                   "backgroundColor": colour}}


REST = message("rest", "#202020")
CYCLE = [message(f"slide{i}", colour, dwell=1.0) for i, colour in enumerate(["#aa0000", "#00aa00", "#0000aa"])]
TAPES = [{"id": "words", "ticker_type": "text", "enabled": True, "frequency_weight": 1,
          "config_json": {"text": "Tape text that is drawn into textures " * 2}}]
OVERLAYS = [{"id": "clock", "enabled": True, "overlay_type": "digital_clock", "label": "clock",
             "config_json": {}, "start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31}]


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory):
    server = CanvasServer(canvas_env(tmp_path_factory.mktemp("live") / "data")).start().seeded()
    yield server
    server.stop()


def at_rest(canvas: CanvasServer) -> dict:
    """The resting slide alone (the same tapes and overlay), counted once the counts settle."""
    canvas.put_program(canvas.admin, screens=[REST], tapes=TAPES, overlays=OVERLAYS)
    canvas.wait_until_showing(canvas.admin, "rest")
    last = None
    for _ in range(30):
        r = canvas.get("/v1/test-display/live", key=canvas.admin)
        assert r.status_code == 200, r.text
        if r.json() == last:
            return last
        last = r.json()
        time.sleep(0.5)  # the crossfade and the slides' disposal: poll until two counts agree
    return last


def cycle(canvas: CanvasServer) -> None:
    """One round of the three-slide program, every slide shown."""
    after = int(time.time() * 1000)
    canvas.put_program(canvas.admin, screens=CYCLE, tapes=TAPES, overlays=OVERLAYS)
    for slide in CYCLE:
        canvas.wait_for_slide(canvas.admin, slide["id"], after_ms=after, timeout=30)


def switch_theme(canvas: CanvasServer, theme_id: str) -> None:
    canvas.put_settings(canvas.admin, settings={"display_theme_id": theme_id})
    cycle(canvas)


def test_textures_and_widgets_return_to_the_steady_level(canvas):
    cycle(canvas)
    steady = at_rest(canvas)
    assert steady["textures"] > 0 and steady["widgets"] > 0
    seen = []
    for _round in range(ROUNDS):
        cycle(canvas)
        switch_theme(canvas, "forest_amber" if _round % 2 == 0 else "navy_coral")
        seen.append(at_rest(canvas))
    canvas.put_settings(canvas.admin, settings={"display_theme_id": "navy_coral"})
    for counts in seen:
        assert counts["textures"] <= steady["textures"] + SLACK, (steady, seen)
        assert counts["widgets"] <= steady["widgets"] + SLACK, (steady, seen)
