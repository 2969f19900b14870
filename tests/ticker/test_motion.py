"""The marquee's motion follows the clock: the same stretch of time moves the text the same
distance whether it came as many short frames or as a few late ones (no canvas: the layer's
runs are stand-ins, only their widths and Translates count)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from builtin_plugins.ticker.display import MAX_STEP_SECONDS, SPEED_AT_1080
from tests.display.layers import layer


def _band(host):
    """The real marquee layer of ``host`` with one long run on screen (no Kivy window)."""
    marquee = layer(host, "marquee")
    marquee.tapes = [{"id": "t"}]
    marquee.__dict__["widget"] = SimpleNamespace(x=0, y=0, width=1920, height=81)
    row = SimpleNamespace(width=1e9, segments=[], items=[])
    marquee.runs = [SimpleNamespace(row=row, translate=SimpleNamespace(xy=(0, 0)))]
    return marquee


@pytest.mark.parametrize("late", [0.3, 0.49, 1.0, 2.5])
def test_a_late_frame_does_not_slow_the_ticker(host, late):
    smooth, stuttering = _band(host), _band(host)
    frames = round(late / (1 / 60))
    for _ in range(frames):
        smooth.tick(late / frames)
    stuttering.tick(late)  # one frame arrives ``late`` seconds after the last
    assert stuttering.offset == pytest.approx(smooth.offset)
    speed = SPEED_AT_1080 * stuttering.stage.layout.screen.height / 1080
    assert stuttering.offset == pytest.approx(-speed * late)
    assert stuttering.runs[0].translate.xy == (round(stuttering.offset), 0)


def test_a_suspended_machine_does_not_make_the_text_leap(host):
    marquee = _band(host)
    marquee.tick(600.0)
    speed = SPEED_AT_1080 * marquee.stage.layout.screen.height / 1080
    assert marquee.offset == pytest.approx(-speed * MAX_STEP_SECONDS)


def test_irregular_frame_times_put_the_text_where_the_clock_says(host):
    """Issue 35: on a busy box frames come irregularly (a frame 1 ms after the last, the next 199 ms
    after it, 4 ms, 29 ms...). At every frame the text is where the frame's time says: its offset
    is a function of the time (the sum of the frames' dt), so between any two frames it has moved
    the same pixels per millisecond, whatever their spacing. (The screen shows 0 px, then 39 px in
    100 ms only when no frame is drawn at all in between: benchmarks/ticker_pacing.py counts those
    gaps.)"""
    marquee = _band(host)
    speed = SPEED_AT_1080 * marquee.stage.layout.screen.height / 1080
    time, rates = 0.0, []
    for dt in [0.001, 0.199, 0.004, 0.029, 0.017, 1 / 60, 0.002, 0.031] * 20:
        before = marquee.offset
        marquee.tick(dt)
        time += dt
        assert marquee.offset == pytest.approx(-speed * time)
        rates.append((before - marquee.offset) / (dt * 1000))
    assert max(rates) - min(rates) == pytest.approx(0, abs=1e-6)  # px per ms: the same at every frame


def test_a_portrait_screen_has_a_landscape_band_that_shows_more_than_30_characters(host):
    """Issue 35, item 5: the band is the theme's ticker step at 1080 px of the short side, so a
    1080x1920 screen's band is a 1920x1080 one's (it was 144 px high with 79 px text: 30 characters
    across); a typical tape line at that size shows well over 30 characters across 1080 px
    (measured with the band's own font, Roboto Bold)."""
    from pathlib import Path

    import kivy
    from PIL import ImageFont

    from builtin_plugins.ticker.display import FONT_SHARE
    from hookspecs.render import Rect

    marquee = _band(host)
    landscape, portrait = marquee.claims(Rect(0, 0, 1920, 1080)), marquee.claims(Rect(0, 0, 1080, 1920))
    assert portrait == landscape and 70 <= portrait["ticker"] <= 90, (portrait, landscape)
    font = ImageFont.truetype(str(Path(kivy.__file__).parent / "data" / "fonts" / "Roboto-Bold.ttf"),
                              round(portrait["ticker"] * FONT_SHARE))
    line = "Fresh coffee and cinnamon buns until 18:00 · Free Wi-Fi: cafe · Lifts serviced on Friday"
    per_character = font.getlength(line) / len(line)
    assert 1080 / per_character > 40, per_character
