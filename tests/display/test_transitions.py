"""Slide changes never lay text on text (issue 35): on the real canvas, frame by frame through
several changes between two text slides, no frame shows a text of the outgoing slide over a text
of the incoming one. The default fades out to the ground, then in (the two slides are never
visible together); a theme that pushes (Slate & citrus) moves them side by side."""
from __future__ import annotations

import pytest

from tests.display.driven import run

pytestmark = pytest.mark.slow


def slide(slide_id: str, title: str, body: str) -> dict:
    return {"id": slide_id, "screen_type": "message", "dwell_seconds": 1.5,
            "config_json": {"title": title, "body": body}}


SLIDES = [slide("welcome", "Welcome to Aurora Café", "Fresh coffee and pastries all day"),
          slide("menu", "Today's menu", "Flat white, cinnamon buns and the soup of the day")]


def overlapping(a: list[float], b: list[float]) -> bool:
    return min(a[0] + a[2], b[0] + b[2]) > max(a[0], b[0]) + 1 and min(a[1] + a[3], b[1] + b[3]) > max(a[1], b[1]) + 1


def text_over_text(frame: dict, width: float) -> list:
    """The pairs of texts of two different visible slides that overlap on screen in ``frame``."""
    visible = [s for s in frame["stage"] if s["opacity"] > 0.01 and -width < s["x"] < width]
    found = []
    for index, a in enumerate(visible):
        for b in visible[index + 1:]:
            found += [(ra, rb) for ra in a["texts"] for rb in b["texts"] if overlapping(ra, rb)]
    return found


def run_changes(env, tmp_path, theme: str | None) -> dict:
    requests = [["POST", "/v1/screens", s] for s in SLIDES]
    if theme:
        requests.insert(0, ["PUT", "/v1/display/settings", {"display_theme_id": theme}])
    return run(env, {"scenario": "tests.display.transitions:changes", "requests": requests, "size": [960, 540],
                     "seconds": 6.0, "dt": 0.05}, tmp_path)


@pytest.mark.parametrize("theme, kind", [(None, "fade"), ("slate_citrus", "push")])
def test_no_frame_of_a_change_draws_text_over_text(env, tmp_path, theme, kind):
    seen = run_changes(env, tmp_path, theme)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    frames, width = seen["frames"], seen["window"][0]
    changing = [f for f in frames if len(f["stage"]) > 1]
    shown = [f["current"] for f in frames]
    assert {"welcome", "menu"} <= set(shown) and len(changing) >= 6, shown  # several changes, frame by frame
    bad = [(index, pairs) for index, f in enumerate(frames) if (pairs := text_over_text(f, width))]
    assert not bad, bad[:3]
    if kind == "fade":  # out, then in: one slide visible at a time, the ground always there
        assert all(sum(s["opacity"] > 0.01 for s in f["stage"]) <= 1 for f in frames)
        assert any(all(s["opacity"] < 0.99 for s in f["stage"]) for f in changing)  # a frame of ground between
    else:  # side by side: both on screen at once in some frames, moving
        assert any(sum(0 < s["opacity"] and abs(s["x"]) < width for s in f["stage"]) == 2 for f in changing)
        assert len({s["x"] for f in changing for s in f["stage"]}) > 6
    assert all(f["ground"] for f in frames)  # every frame paints a ground: never an empty stage
