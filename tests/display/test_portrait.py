"""Portrait designed for portrait (issue 35, item 5): on a 1080x1920 screen with the café's corner
panels and celebration up, the free area a slide gets is wider than high (a band between the top
and bottom panels), yet the screen is read top to bottom: the slides with a side-by-side layout lay
out vertically (the kit's ``stacked``, their one owner): the news article's picture above its text,
the weather's icon above its column, the forecast a row a day in one column, a QR slide's code
under its heading. They used to draw a landscape band in the middle of the screen."""
from __future__ import annotations

import os

import pytest

from svc_host.display.gallery import SAMPLE_CONTROLLER_URL
from tests.display.driven import run

pytestmark = pytest.mark.slow

SLIDES = [["news_article", {"category": "news", "maxAgeHours": 1, "showSummary": True, "showQrLink": True}],
          ["weather_current", {}], ["weather_forecast", {}], ["qr_code", {}], ["controller_invite", {}]]


def top(rect: list[float]) -> float:
    return rect[1] + rect[3]


def test_slides_lay_out_top_to_bottom_in_a_wide_free_area_of_a_portrait_screen(env, tmp_path):
    env = {**env, "SVC_DISPLAY_CONTROLLER_PUBLIC_URL": SAMPLE_CONTROLLER_URL}  # the invite's address
    seen = run(env, {"scenario": "tests.display.portrait:stacked", "size": [1080, 1920], "seed": "samples",
                     "samples": ["news", "weather"], "alert": True,
                     "slides": SLIDES, "png": os.environ.get("PORTRAIT_PNG", "")}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    slides = seen["slides"]
    assert set(slides) == {type_id for type_id, _ in SLIDES}, slides
    # the case: a band wider than high between the alert's card and the bottom panels' row (without
    # the alert the café leaves a portrait slide an area higher than wide)
    for type_id, slide in slides.items():
        assert slide["free"][2] > slide["free"][3], (type_id, slide["free"])

    article = slides["news_article"]  # the picture across the slide, above the headline and summary
    picture = max(article["pictures"], key=lambda r: r[2] * r[3])
    assert picture[2] >= 0.9 * article["slide"][2], (picture, article["slide"])
    assert all(picture[1] >= top(t["rect"]) - 1 for t in article["texts"]), article  # the headline too

    now = slides["weather_current"]  # the icon above the column of temperature, conditions...
    icon = now["icons"][0] if now["icons"] else None
    column = now["columns"][0] if now["columns"] else []
    assert icon is not None and column, now
    assert all(icon[1] >= top(rect) - 1 for rect in column), (icon, column)
    assert len({round(rect[0]) for rect in column}) == 1, column  # one column

    days = slides["weather_forecast"]  # a row a day, one column, each under the one before
    rows = days["columns"][0] if days["columns"] else []
    assert len(rows) >= 3 and len({round(rect[0]) for rect in rows}) == 1, days
    assert all(top(lower) <= upper[1] + 1 for upper, lower in zip(rows, rows[1:])), rows

    for type_id in ("qr_code", "controller_invite"):  # the code under its heading and caption
        slide = slides[type_id]
        (code,) = slide["pictures"]
        assert all(top(code) <= t["rect"][1] + 1 for t in slide["texts"]), (type_id, code, slide["texts"])
