"""One voice per fact (issue 35, the compositor's rule): the clock panel yields while the slide is a
clock and the QR panel while the slide shows its own code; both come back with the next slide.
On the real canvas, the program running through a clock, a QR code and a message slide."""
from __future__ import annotations

import pytest

from tests.display.driven import run

pytestmark = pytest.mark.slow

WHOLE_YEAR = {"start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31, "enabled": True}
OVERLAYS = [{"id": "clock", "overlay_type": "digital_clock", "config_json": {"position": "top_right"}, **WHOLE_YEAR},
            {"id": "qr", "overlay_type": "qr_code", "config_json": {"payload": "https://example.org/menu",
                                                                    "position": "bottom_right"}, **WHOLE_YEAR}]
SLIDES = [{"id": "clock-slide", "screen_type": "clock", "dwell_seconds": 2, "config_json": {"style": "digital"}},
          {"id": "wifi", "screen_type": "qr_code", "dwell_seconds": 2,
           "config_json": {"payload": "WIFI:T:WPA;S:cafe;P:espresso;;"}},
          {"id": "welcome", "screen_type": "message", "dwell_seconds": 2,
           "config_json": {"title": "Welcome", "body": "Coffee all day"}}]


def test_an_overlay_yields_while_the_slide_says_the_same(env, tmp_path):
    requests = [["POST", "/v1/display/overlays", o] for o in OVERLAYS] + [["POST", "/v1/screens", s] for s in SLIDES]
    seen = run(env, {"scenario": "tests.display.voices:program", "requests": requests, "size": [960, 540],
                     "seconds": 9, "dt": 0.1}, tmp_path)["seen"]
    by_slide: dict[str, set] = {}
    for frame in seen:
        by_slide.setdefault(frame["slide"], set()).add(tuple(sorted(frame["panels"].items())))
    assert set(by_slide) == {"clock-slide", "wifi", "welcome"}, by_slide
    assert by_slide["clock-slide"] == {(("qr", 1.0), ("time", 0.0))}  # the time once: the slide's
    assert by_slide["wifi"] == {(("qr", 0.0), ("time", 1.0))}  # one code: the slide's
    assert by_slide["welcome"] == {(("qr", 1.0), ("time", 1.0))}  # nothing said twice: both panels


def test_captioned_codes_of_different_payloads_stand_together_and_the_same_code_is_shown_once(env, tmp_path):
    """Two QR codes a viewer can tell apart, each with its caption, may stand together ("or both
    captioned"): the "Rate your visit" panel stays beside the Wi-Fi slide's captioned code (it
    yielded, leaving its corner empty), while a panel of the slide's own code yields to it."""
    wifi = SLIDES[1]["config_json"]["payload"]
    overlays = [{"id": "rate", "overlay_type": "qr_code", "config_json": {
                    "payload": "https://example.org/rate", "caption": "Rate your visit",
                    "position": "bottom_right"}, **WHOLE_YEAR},
                {"id": "same", "overlay_type": "qr_code", "config_json": {
                    "payload": wifi, "caption": "Wi-Fi", "position": "top_right"}, **WHOLE_YEAR}]
    requests = [["POST", "/v1/display/overlays", o] for o in overlays] + \
        [["POST", "/v1/screens", s] for s in SLIDES[1:]]
    seen = run(env, {"scenario": "tests.display.voices:program", "requests": requests, "size": [960, 540],
                     "seconds": 6, "dt": 0.1}, tmp_path)["seen"]
    by_slide: dict[str, set] = {}
    for frame in seen:
        by_slide.setdefault(frame["slide"], set()).add(tuple(sorted(frame["panels"].items())))
    rate, same = "qr:https://example.org/rate", f"qr:{wifi}"
    assert by_slide["wifi"] == {tuple(sorted({rate: 1.0, same: 0.0}.items()))}, by_slide  # told apart: both
    assert by_slide["welcome"] == {tuple(sorted({rate: 1.0, same: 1.0}.items()))}, by_slide


def test_every_time_on_screen_is_in_the_displays_zone(env, tmp_path):
    """Issue 35, item 10: the clock panel and the ticker's time tape, with no zone of their own, both
    show the display's zone (Europe/Berlin here, never UTC beside it): the same HH:MM, the display's
    time now. (The scene gallery sets the display's zone the same way: svc_host/display/scenes.py.)"""
    requests = [["PUT", "/v1/display/settings", {"display_timezone": "Europe/Berlin"}],
                ["POST", "/v1/display/overlays", {"id": "clock", "overlay_type": "digital_clock",
                                                  "config_json": {"position": "top_right",
                                                                  "time_format_preset": "24h_hm"}, **WHOLE_YEAR}],
                ["POST", "/v1/screens", SLIDES[2]],
                ["POST", "/v1/ticker/tapes", {"id": "time", "ticker_type": "time", "config_json": {}}]]
    seen = run(env, {"scenario": "tests.display.voices:times", "requests": requests, "size": [960, 540],
                     "frames": 12, "dt": 0.25}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    assert seen["zone"] == "Europe/Berlin" and seen["now"] != seen["utc"], seen
    shown = {seen["now"], seen["before"]}  # the minute may turn over between a panel's tick and the end
    assert len(seen["panel"]) == 1 and seen["panel"][0] in shown and shown & set(seen["tape"]), seen
