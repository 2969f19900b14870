"""The analog clock faces on the real canvas (offscreen, the builtin layers, rows stored through
REST). The clock slide's face lies in the slide's own area and is centred there, whether the slide
has the whole screen, the free area a corner overlay leaves, or is laid out in that area after it
was built (a slide fading out when the overlay comes), and it fits the width of a portrait screen;
the analog_clock overlay's face fills the panel it is given. Measured on the pixels of the slide or
panel drawn on its own (:mod:`tests.clock.faces`)."""
from __future__ import annotations

import time

import pytest
from PIL import Image, ImageChops

from hookspecs.render import SAFE_INSET, Rect
from tests.clock.pictures import calendar, drawn_box, holds
from tests.display.driven import run

SCENARIO = "tests.clock.faces:analog_faces"
SLIDES = [  # no title, no date: the only text-coloured pixels are the face's (ring, ticks, hands)
    {"id": "clock", "screen_type": "clock", "dwell_seconds": 600, "frequency_weight": 1,
     "config_json": {"style": "analog", "showDate": False}},
    {"id": "notice", "screen_type": "message", "dwell_seconds": 600, "frequency_weight": 1,
     "config_json": {"title": "Welcome", "body": "Lunch is served in the atrium at noon."}},
]


def slide_face(width: float, height: float) -> tuple[float, float, float]:
    """Where the slide's face goes in its area: the look of the full-screen slide (centre at 50 % of
    the width and 52 % of the height, radius 30 % of the height: the ring ends below the title band,
    which starts at 84 %, and above the date, which ends at 16 %), never wider than 90 % of the area."""
    return width / 2, 0.52 * height, min(0.30 * height, 0.45 * width)


def panel_face(width: float, height: float) -> tuple[float, float, float]:
    """Where an analog_clock overlay's face goes in its panel: the middle, the panel 2.1 radii across."""
    return width / 2, height / 2, min(width, height) / 2.1


def coloured(image: Image.Image, rgb: list[int], tolerance: int = 24) -> Image.Image:
    """A mask of the pixels within ``tolerance`` of ``rgb`` in every channel."""
    bands = [ImageChops.difference(band, Image.new("L", image.size, value))
             .point(lambda v: 255 if v <= tolerance else 0) for band, value in zip(image.split(), rgb)]
    return ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])


def check_face(result: dict, name: str, geometry=slide_face) -> Rect:
    """The face of picture ``name``: nothing drawn outside its widget's area, its ring centred and
    sized in that area as ``geometry`` says. The ring's box."""
    seen = result["pictures"][name]
    area = Rect(*seen["rect"])
    with Image.open(seen["png"]) as source:
        image = source.convert("RGB")
    drawn = drawn_box(image)
    assert holds(area, drawn), (name, "drawn outside its area", drawn, area)
    ring = drawn_box(image, coloured(image, result["text"]))
    cx, cy, radius = geometry(area.width, area.height)
    width = max(1.5, radius * 0.03)  # the ring's line
    centre = (ring.x + ring.width / 2, ring.y + ring.height / 2)
    assert centre == pytest.approx((area.x + cx, area.y + cy), abs=2), (name, ring, area)
    for extent in (ring.width / 2, ring.height / 2):
        assert radius <= extent <= radius + width + 2, (name, extent, radius, ring, area)
    return ring


@pytest.mark.slow
def test_the_face_follows_the_area_a_corner_overlay_leaves_the_slide(env, tmp_path):
    result = run(env, {"scenario": SCENARIO, "size": [960, 540], "out": str(tmp_path),
                       "requests": [["POST", "/v1/screens", slide] for slide in SLIDES],
                       "overlay": calendar("top_right")}, tmp_path)
    full = result["pictures"]["full"]
    assert full["rect"] == [0, 0, 960, 540], full  # the whole screen
    ring = check_face(result, "full")
    assert (ring.x + ring.width / 2, ring.y + ring.height / 2) == pytest.approx((480, 0.52 * 540), abs=2)
    for name in ("fading", "zone"):
        seen = result["pictures"][name]
        assert seen["rect"] == pytest.approx(seen["free"], abs=1), seen  # laid out in the free area
        assert seen["rect"][2] < 0.75 * 960, seen  # a column beside the calendar, narrower than the screen
        check_face(result, name)
    assert "Traceback" not in result["log"], result["log"][-3000:]


@pytest.mark.slow
def test_the_face_fits_the_width_of_a_portrait_screen(env, tmp_path):
    result = run(env, {"scenario": SCENARIO, "size": [540, 960], "out": str(tmp_path),
                       "requests": [["POST", "/v1/screens", slide] for slide in SLIDES]}, tmp_path)
    assert result["pictures"]["full"]["rect"] == [0, 0, 540, 960]
    ring = check_face(result, "full")
    assert ring.x > 0 and ring.right < 540, ring  # the whole ring, inside the screen's width
    assert "Traceback" not in result["log"], result["log"][-3000:]


@pytest.mark.slow
def test_the_overlay_face_fills_the_panel_it_is_given(env, tmp_path):
    """At ``size`` 1 the panel it asks for (2.1 radii of half the height across) is taller than the
    screen: the zone clamps it to the screen's height, and the face is drawn in that panel."""
    today = time.gmtime()
    overlay = {"id": "o_face", "enabled": True, "overlay_type": "analog_clock",
               "config_json": {"position": "top_right", "size": 1, "show_seconds": True},
               "start_month": today.tm_mon, "start_day": today.tm_mday}
    result = run(env, {"scenario": "tests.clock.faces:analog_overlay", "size": [960, 540], "out": str(tmp_path),
                       "overlay": overlay}, tmp_path)
    panel = Rect(*result["pictures"]["panel"]["rect"])
    # its right edge on the theme's title-safe inset (a share of the short side: docs/display.md)
    assert panel.height == pytest.approx(540, abs=1) and panel.right == pytest.approx(960 - SAFE_INSET * 540, abs=1), panel
    check_face(result, "panel", panel_face)
    assert "Traceback" not in result["log"], result["log"][-3000:]
