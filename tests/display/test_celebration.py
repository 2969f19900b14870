"""The celebration line (issue 35, item 9): on the real canvas, a message slide under birthday
confetti with its message. The message lies inside the slides' title inset (the kit's layout rule,
kit/layout.arrange; not 10-17 px from the screen's edge), in the theme's celebration style (its
accent made legible, a thin halo of the theme's ground, not a heavy black outline), and the
confetti keeps off every text whole: no piece is drawn over a text's box, none cut to a sliver."""
from __future__ import annotations

import pytest

from svc_host.kit.contrast import BLACK, composite, contrast_ratio
from hookspecs.render import TITLE_BOX
from tests.display.driven import run

pytestmark = pytest.mark.slow

WHOLE_YEAR = {"start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31, "enabled": True}
MESSAGE = "Happy birthday, Maximiliane!"


def overlaps(a: list[float], b: list[float]) -> bool:
    return min(a[0] + a[2], b[0] + b[2]) > max(a[0], b[0]) and min(a[1] + a[3], b[1] + b[3]) > max(a[1], b[1])


@pytest.mark.parametrize("size, theme", [([1280, 720], None), ([720, 1280], "slate_citrus")])
def test_the_celebration_line_keeps_the_title_inset_reads_and_no_confetti_sliver_touches_text(env, tmp_path,
                                                                                             size, theme):
    requests = [["POST", "/v1/display/overlays", {"id": "party", "overlay_type": "birthday_confetti",
                                                  "config_json": {"messages": [MESSAGE]}, **WHOLE_YEAR}],
                ["POST", "/v1/screens", {"id": "welcome", "screen_type": "message", "dwell_seconds": 60,
                                         "config_json": {"title": "Welcome to Aurora Café",
                                                         "body": "Fresh coffee and pastries all day"}}]]
    if theme:
        requests.insert(0, ["PUT", "/v1/display/settings", {"display_theme_id": theme}])
    seen = run(env, {"scenario": "tests.display.celebration:line", "requests": requests, "size": size,
                     "frames": 40, "dt": 0.1}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    (message,) = seen["messages"]
    x, y, width, height = message["rect"]
    cx, _cy, cw, _ch = seen["content"]
    inset = cw * TITLE_BOX[0]
    assert message["text"] == MESSAGE
    assert x >= cx + inset - 1 and x + width <= cx + cw - inset + 1, (message["rect"], inset)
    # drawn inside its box (centred): the text itself is inside the inset too
    assert message["texture"][0] <= width + 1, message
    # the theme's style: readable on the theme's ground, a thin halo (not a 4 px black outline)
    grounds = [composite(b, BLACK) for b in seen["theme"]["background"]]
    assert min(contrast_ratio(message["color"], g) for g in grounds) >= 3.0, message
    assert message["outline_width"] <= max(1, round(1.5 * seen["unit"])), message
    assert message["outline_color"][:3] != [0, 0, 0]
    # confetti: drawn whole or not at all, never over a text's box
    drawn = hidden = 0
    for frame in seen["frames"]:
        for piece in frame["pieces"]:
            if piece[2] <= 0 or piece[3] <= 0:
                hidden += 1
                continue
            drawn += 1
            assert not any(overlaps(piece, box) for box in frame["boxes"]), (piece, frame["boxes"])
    assert drawn > 100 and hidden > 0, (drawn, hidden)
