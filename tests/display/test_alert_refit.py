"""Alerts are seen and hide nothing silently (issue 35, item 4): on the real canvas, a warning alert
over the weather slides. The band is in the severity's colour with its icon and text at the body
size at least (in portrait too: the card grows); the slide under it re-fits into the space left
(the kit's text rule) and what must go is said: a "+N more" line (or an ellipsis row) in the
caption style under the last item kept, never a line dropped unseen."""
from __future__ import annotations

import json

import pytest

from tests.display.driven import run

pytestmark = pytest.mark.slow

ALERT = {"title": "Storm warning", "body": "Strong winds from 15:00, the terrace is closed", "severity": "warning"}
SLIDES = [{"id": "now", "screen_type": "weather_current", "dwell_seconds": 600,
           "config_json": {"locationId": "home", "showAirQuality": True, "showAlerts": True}},
          {"id": "days", "screen_type": "weather_forecast", "dwell_seconds": 600,
           "config_json": {"locationId": "home", "days": 5}}]


def inside(outer: list[float], inner: list[float]) -> bool:
    return inner[0] >= outer[0] - 1 and inner[1] >= outer[1] - 1 and \
        inner[0] + inner[2] <= outer[0] + outer[2] + 1 and inner[1] + inner[3] <= outer[1] + outer[3] + 1


def cafe() -> list[dict]:
    """The scene gallery's café: a clock and a QR panel in the corners, a birthday celebration."""
    from svc_host.display.scenes import OVERLAYS, WHOLE_YEAR

    return [{**row, **WHOLE_YEAR} for row in OVERLAYS]


@pytest.mark.parametrize("size, trims, composed", [([1280, 720], True, False), ([720, 1280], False, False),
                                                   ([1080, 1920], False, True)],
                         ids=["landscape", "portrait", "portrait-cafe"])
def test_a_warning_alert_trims_nothing_unseen(env, tmp_path, size, trims, composed):
    job = {"scenario": "tests.display.alert_refit:refit", "size": size, "seed": "samples",
           "slides": SLIDES, "alert": ALERT}
    if composed:  # the café's panels and celebration, our alert the only one (the weather's samples only)
        job.update(overlays=cafe(), samples=["weather"])
    seen = run(env, job, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    said = 0
    for slide in seen["slides"]:
        for column in slide["before"] + slide["after"]:
            left_out = [item["text"] for item in column["items"] if not item["drawn"]]
            if left_out:  # said, in the caption style, inside the column, under what is drawn
                said += 1
                assert column["more"] in (f"+{len(left_out)} more", "\u2026"), (slide["id"], column)
                assert inside(column["rect"], column["more_rect"]), (slide["id"], column)
                assert column["more_px"] >= slide["caption_min"] - 0.5, column
                lowest = min(item["rect"][1] for item in column["items"] if item["drawn"])
                assert column["more_rect"][1] + column["more_rect"][3] <= lowest + 1, column
            else:
                assert column["more"] is None, column
        (card,) = [c for c in slide["cards"] if any(t["text"] == ALERT["title"] for t in c)]  # ours (the samples have theirs)
        assert [t for t in card if t["icon"]], card
        words = [t for t in card if not t["icon"]]
        assert {t["text"] for t in words} >= {ALERT["title"], ALERT["body"]}, card
        # the body size, in portrait too: a narrower card grows until its wrapped body fits at it (it
        # used to keep a landscape card's height, the body shrunk to the body's minimum)
        assert all(t["px"] >= slide["body_px"] - 0.5 for t in words), (slide["body_px"], card)
    if composed:  # under the café's panels too, the weather keeps its temperature (whole, no ellipsis),
        # conditions and high/low (they shrink together) and the forecast three days with their lows
        now, days = seen["slides"]
        (column,) = now["after"]
        assert all(item["drawn"] and "\u2026" not in item["text"] for item in column["items"][:3]), column
        (column,) = days["after"]
        drawn = [item["text"] for item in column["items"] if item["drawn"]]
        assert len(drawn) >= 3 and all("Low" in text and "\u2026" not in text for text in drawn), column
    if not trims:  # portrait: the icon above the text, every line still fits under the alert
        return
    # the alert took room: the current weather's column lost a line to it, and said so
    now = seen["slides"][0]
    drawn_before = sum(item["drawn"] for column in now["before"] for item in column["items"])
    drawn_after = sum(item["drawn"] for column in now["after"] for item in column["items"])
    assert drawn_after < drawn_before and said, json.dumps(now, indent=1)


def test_a_news_article_in_portrait_keeps_its_text_whole_under_the_alert_its_code_on_the_picture(env, tmp_path):
    """Portrait, the café's panels and a warning alert: the article's link code sits on its
    picture's lower right corner, so the headline and summary have the slide's whole width down to
    its bottom inset. The column used to stop above the code's row (an empty band beside the code)
    and the summary ended early under the alert with room to spare."""
    article = {"id": "article", "screen_type": "news_article", "dwell_seconds": 600,
               "config_json": {"feedIds": ["bbc-world"], "showSummary": True, "showQrLink": True}}
    job = {"scenario": "tests.display.alert_refit:refit", "size": [1080, 1920], "seed": "samples",
           "slides": [article], "alert": ALERT, "overlays": cafe(), "samples": ["news"]}
    seen = run(env, job, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    (slide,) = seen["slides"]
    x, y, width, height = slide["slide_rect"]  # under the alert
    for column in slide["before"] + slide["after"]:
        assert all(item["drawn"] and "\u2026" not in item["text"] for item in column["items"]), column
    (column,) = slide["after"]
    assert column["rect"][1] <= y + height * 0.06 + 1, (column["rect"], slide["slide_rect"])  # to the bottom inset
    assert column["rect"][2] >= width * 0.84 - 1, (column["rect"], slide["slide_rect"])  # the whole text width
