"""The digital clock slide's time and date on the real canvas (offscreen, the builtin layers, rows
stored through REST): each is one line inside the slide's area and its own box, and they do not
overlap, whether the slide has a 16:9 screen to itself (at their nominal sizes, 260 and 72 px at
1080 lines), the column one or two corner overlays leave it, or a portrait screen; and the time
keeps its size while its text changes (across an hour, ``9:59:59 AM`` to ``10:00:00 AM``).
Measured on the pixels of each label drawn on its own (:mod:`tests.clock.faces`), on the longest
time of its format and a long date (a Wednesday in September)."""
from __future__ import annotations

import datetime as dt

import pytest
from PIL import Image

from hookspecs.render import Rect
from tests.clock.pictures import calendar, drawn_box, holds
from tests.display.driven import run

MOMENT = dt.datetime(2027, 9, 29, 9, 59, 57, tzinfo=dt.timezone.utc)  # 10:00:00 AM after 3 s
DATE = "Wednesday 29 September 2027"
CLOCK = {"id": "clock", "screen_type": "clock", "dwell_seconds": 600, "frequency_weight": 1,
         "config_json": {"style": "digital", "timeFormatPreset": "12h_hms_tt", "timeZone": "UTC"}}
FRAMES = 12  # of 0.5 s: from 9:59:57 AM to 10:00:03 AM


def texts(env: dict, tmp_path, size: tuple[int, int], groups: list[list[dict]]) -> list[dict]:
    result = run(env, {"scenario": "tests.clock.faces:digital_texts", "size": list(size), "out": str(tmp_path),
                       "requests": [["POST", "/v1/screens", CLOCK]], "groups": groups,
                       "start_ms": int(MOMENT.timestamp() * 1000), "frames": FRAMES, "dt": 0.5}, tmp_path)
    assert "Traceback" not in result["log"], result["log"][-3000:]
    return result["groups"]


def ink(seen: dict) -> tuple[Rect, list[int]]:
    """What a label drew (its picture: the label alone, black elsewhere): the box of its ink
    (window pixels) and the picture rows holding ink, top down."""
    with Image.open(seen["png"]) as source:
        image = source.convert("L").point(lambda v: 255 if v > 40 else 0)
    rows = [y for y in range(image.height) if image.crop((0, y, image.width, y + 1)).getbbox()]
    return drawn_box(image), rows


def lines(rows: list[int]) -> int:
    """How many bands of ink rows, separated by blank rows, ``rows`` make: the lines of text."""
    return sum(1 for before, row in zip([-2, *rows], rows) if row > before + 1)


def check_texts(group: dict, index: int) -> dict[str, Rect]:
    """Time and date of group ``index``: one line each, inside the slide's area and their own box,
    not overlapping, the time ``10:00:0x AM`` and the date :data:`DATE`. Their ink boxes."""
    area = Rect(*group["slide"])
    boxes, failures = {}, []
    for name in ("time", "date"):
        seen = group["pictures"][f"{index}-{name}"]
        drawn, rows = ink(seen)
        boxes[name] = drawn
        if lines(rows) != 1 or drawn.height > seen["font_px"]:  # a line's ink is less than its font size high
            failures.append(f"{name} {seen['text']!r}: {lines(rows)} lines, {drawn.height} px high at "
                            f"{seen['font_px']} px")
        if not holds(area, drawn):
            failures.append(f"{name}: drawn outside the slide's area {area}: {drawn}")
        if not holds(Rect(*seen["rect"]), drawn):
            failures.append(f"{name}: drawn outside its box {seen['rect']}: {drawn}")
    if boxes["time"].y <= boxes["date"].top:  # the time above the date, apart
        failures.append(f"the time {boxes['time']} reaches the date {boxes['date']}")
    assert not failures, f"group {index}:\n" + "\n".join(failures)
    assert group["pictures"][f"{index}-date"]["text"] == DATE
    assert group["pictures"][f"{index}-time"]["text"].startswith("10:00:0")
    return boxes


def check_steady(group: dict) -> None:
    """The time crossed the hour (to a wider text) at one size."""
    ticks = group["ticks"]
    assert ticks[0][0].startswith("9:59:5") and ticks[-1][0].startswith("10:00:0"), ticks
    assert len({size for _text, size in ticks}) == 1, ticks


@pytest.mark.slow
def test_time_and_date_fit_the_column_beside_corner_overlays_at_one_size(env, tmp_path):
    """A 16:9 screen alone (the nominal sizes), beside a calendar in the top right corner (a column
    of 633 of 960 px), and with a large analog clock in the bottom left too (411 x 281 px)."""
    day = MOMENT.date()
    face = {"id": "o_face", "enabled": True, "overlay_type": "analog_clock", "start_month": day.month,
            "start_day": day.day, "config_json": {"position": "bottom_left", "size": 0.9}}
    groups = texts(env, tmp_path, (960, 540), [[], [calendar("top_right", day)], [calendar("top_right", day), face]])
    full = groups[0]
    assert full["slide"] == [0, 0, 960, 540], full["slide"]
    boxes = check_texts(full, 0)
    check_steady(full)
    time_px, date_px = (full["pictures"][f"0-{name}"]["font_px"] for name in ("time", "date"))
    assert (time_px, date_px) == (260 * 540 / 1080, 72 * 540 / 1080)  # nominal: the look of the full screen
    assert 0.70 * time_px <= boxes["time"].height <= 0.76 * time_px, boxes  # drawn so: figures are 0.71 em high
    widths = []
    for index, group in enumerate(groups[1:], 1):
        area = Rect(*group["slide"])
        widths.append(area.width)
        assert area.width < 0.7 * 960, (index, area)
        boxes = check_texts(group, index)
        check_steady(group)
        assert boxes["time"].width >= 0.8 * 0.92 * area.width, (index, boxes, area)  # as large as fits
    assert widths[1] < 0.75 * widths[0], widths  # the second corner narrowed the column


@pytest.mark.slow
def test_time_and_date_fit_a_portrait_screen_at_one_size(env, tmp_path):
    group = texts(env, tmp_path, (540, 960), [[]])[0]
    assert group["slide"] == [0, 0, 540, 960], group["slide"]
    boxes = check_texts(group, 0)
    check_steady(group)
    for name in ("time", "date"):
        assert boxes[name].width >= 0.8 * 0.92 * 540, (name, boxes)  # as large as fits the width
