"""Safe area and overscan (issue 35, item 3): on the real canvas at 1920x1080 and 1080x1920, with the
display's ``display_overscan_percent`` at 0 and 5, the café's kinds of layers at once (text slides,
a clock and a QR panel in corners, a confetti celebration with its message, a warning alert and the
ticker): every text drawn lies inside the title-safe area (the theme's inset, 5 % of each side, of
the short side of the screen the overscan leaves) but the ticker's crawl, which runs edge to edge along the bottom by
design, and the composition, the ticker too, shrinks inwards with the overscan."""
from __future__ import annotations

import pytest

from hookspecs.render import SAFE_INSET
from tests.display.driven import run

pytestmark = pytest.mark.slow

WHOLE_YEAR = {"start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31, "enabled": True}
REQUESTS = [
    ["POST", "/v1/display/overlays", {"id": "clock", "overlay_type": "digital_clock",
                                      "config_json": {"position": "top_right", "show_date": True}, **WHOLE_YEAR}],
    ["POST", "/v1/display/overlays", {"id": "qr", "overlay_type": "qr_code", "config_json": {
        "payload": "https://example.org/rate", "caption": "Rate your visit", "position": "bottom_left"}, **WHOLE_YEAR}],
    ["POST", "/v1/display/overlays", {"id": "party", "overlay_type": "birthday_confetti",
                                      "config_json": {"messages": ["Happy birthday, Maximiliane!"]}, **WHOLE_YEAR}],
    ["POST", "/v1/screens", {"id": "welcome", "screen_type": "message", "dwell_seconds": 2, "config_json": {
        "title": "Welcome to Aurora Café", "body": "Fresh coffee, cinnamon buns and the soup of the day"}}],
    ["POST", "/v1/screens", {"id": "weather", "screen_type": "weather_current", "dwell_seconds": 2,
                             "config_json": {"locationId": "home", "showAirQuality": True}}],
    ["POST", "/v1/ticker/tapes", {"id": "tape", "ticker_type": "text",
                                  "config_json": {"text": "Open until 18:00 today · Free Wi-Fi: cafe"}}],
    ["POST", "/v1/alerts", {"title": "Storm warning", "body": "The terrace is closed from 15:00", "severity": "warning"}],
]


def inside(outer: list[float], box: list[float], slack: float = 1.0) -> bool:
    return box[0] >= outer[0] - slack and box[1] >= outer[1] - slack and \
        box[0] + box[2] <= outer[0] + outer[2] + slack and box[1] + box[3] <= outer[1] + outer[3] + slack


@pytest.mark.parametrize("overscan", [0, 5])
@pytest.mark.parametrize("size", [[1920, 1080], [1080, 1920]])
def test_every_text_lies_inside_the_title_safe_area(env, tmp_path, size, overscan):
    requests = [["PUT", "/v1/display/settings", {"display_overscan_percent": overscan}], *REQUESTS]
    seen = run(env, {"scenario": "tests.display.safe_area:texts", "requests": requests, "size": size,
                     "seed": "samples", "seconds": 7, "dt": 0.25}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    width, height = size
    screen, safe, ticker = seen["screen"], seen["safe"], seen["ticker"]
    # the overscan shrinks the whole composition inwards, centred; the inset is 5 % of what is left
    assert screen == pytest.approx([width * overscan / 200, height * overscan / 200,
                                    width * (1 - overscan / 100), height * (1 - overscan / 100)])
    margin = min(screen[2], screen[3]) * SAFE_INSET  # the same on every side
    assert safe == pytest.approx([screen[0] + margin, screen[1] + margin, screen[2] - 2 * margin, screen[3] - 2 * margin])
    # the ticker's crawl runs edge to edge along the bottom of the screen the overscan leaves (its
    # text is a band's, not judged against the inset); the content area sits on it
    assert ticker[3] > 0 and ticker[:3] == pytest.approx(screen[:3])
    assert {frame["slide"] for frame in seen["seen"]} == {"welcome", "weather"}, seen["seen"][:2]
    outside, counted = [], set()
    for frame in seen["seen"]:
        for layer, boxes in frame["layers"].items():
            for text in boxes:
                counted.add((layer, text["role"] or text["text"]))
                if not inside(safe, text["box"]):
                    outside.append((frame["slide"], layer, text))
    assert not outside, outside[:5]
    layers = {layer for layer, _text in counted}
    assert {"slides", "overlays", "alerts"} <= layers, counted  # every kind of text was judged
    assert any(role == "celebration" for _layer, role in counted), counted
