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
