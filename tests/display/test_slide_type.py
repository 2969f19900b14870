"""The type and layout of every builtin slide as a person reads them: ``svc-display gallery`` run
as a real process (Kivy offscreen, the real builtin types with their example configs and sample
content) in the default theme at 1920x1080, and a few slides at 3840x2160; then what it drew.

- every label a slide marks ``primary`` is at least the type scale's body size (56 px at 1080
  lines, twice that at 4K), every slide has a title (``role = "title"``) and a primary text;
- a slide's text reaches below the upper half of the screen (not the top 45 % of old);
- news names its source and age, the agenda writes friendly times and marks the running event,
  the trivia answer is marked by a tick, a frame and words, the weather's icons are glyphs of the
  shipped Material Symbols font (drawn: their pixels are there) and its highs and lows labelled.

The friendly date formatting itself is unit-tested at the end (no canvas).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from svc_host.kit import formatting
from hookspecs.render import TYPE_MIN, TYPE_SCALE
from svc_host.kit.display import SYMBOLS_FONT, has_icon
from tests import REPO
from tests.display.fixture_plugin import SCREEN_TYPES
from svc_host.kit.formatting import formats

PICTURES = {t.id for t in SCREEN_TYPES} - {"photo", "video", "plugin_template"}
"""The slides that are text (the photo and video are pictures with a credit line; a folder
plugin's template sizes its own blocks)."""
BIG = ("news_headlines", "weather_current", "trivia", "calendar_agenda")


def run_gallery(out: Path, tmp: Path, size: str, types: list[str]) -> dict:
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "TMPDIR": str(tmp), "PYTHONPATH": str(REPO),
           "SVC_DISPLAY_LOG_LEVEL": "WARNING"}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    command = [sys.executable, "-m", "svc_host", "gallery", str(out), "--size", size, "--theme", "navy_coral"]
    for type_id in types:
        command += ["--type", type_id]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, cwd=str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    manifest = json.loads((out / "gallery.json").read_text())
    return {p["type_id"]: p for p in manifest["pictures"] if p["kind"] == "screen" and p["file"]}


@pytest.fixture(scope="module")
def hd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("slides-hd")
    return out, run_gallery(out, tmp_path_factory.mktemp("slides-hd-tmp"), "1920x1080", sorted(PICTURES))


@pytest.fixture(scope="module")
def uhd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("slides-4k")
    return out, run_gallery(out, tmp_path_factory.mktemp("slides-4k-tmp"), "3840x2160", list(BIG))


def texts(picture: dict, role: str | None = None) -> list[dict]:
    return [t for t in picture["texts"] if role is None or t["role"] == role]


SHRUNK_BY_THE_TEXT_RULE = {"news_article": "the sample's newest article has a 200-character summary (issue 24), "
                                           "which does not fit at the body step and shrinks toward its minimum"}
"""Slide types whose sample text is long on purpose: their primary text may be below the body
step, but never below the body's minimum (``TYPE_MIN``; docs/display.md, "The text rule")."""


def body_floor(type_id: str, height: int) -> float:
    step = TYPE_MIN["body"] if type_id in SHRUNK_BY_THE_TEXT_RULE else TYPE_SCALE["body"]
    return step * height / 1080


def check_type_scale(pictures: dict, types: set[str] | tuple, height: int) -> None:
    failures = []
    for type_id in types:
        picture = pictures[type_id]
        assert texts(picture, "title"), f"{type_id}: no label marked as its title"
        primary = texts(picture, "primary")
        assert primary, f"{type_id}: no label marked as its primary text"
        body = body_floor(type_id, height)
        failures += [f"{type_id}: {t['text'][:30]!r} at {t['font_px']} px" for t in primary if t["font_px"] < body - 0.5]
        lowest = max(t["box"][1] + t["box"][3] for t in texts(picture))
        if lowest <= height / 2:
            failures.append(f"{type_id}: its text ends at {lowest} px, in the upper half of {height}")
    assert not failures, "\n".join(failures)


def test_every_slide_has_a_title_and_body_text_at_the_type_scale_over_the_whole_slide(hd):
    _out, pictures = hd
    assert set(pictures) == PICTURES
    check_type_scale(pictures, PICTURES, 1080)


def test_at_4k_the_type_scales_with_the_screen(uhd):
    _out, pictures = uhd
    assert set(pictures) == set(BIG)
    check_type_scale(pictures, BIG, 2160)
    assert min(t["font_px"] for t in texts(pictures["news_headlines"], "primary")) >= 112


def test_news_shows_its_source_and_age_and_a_title_of_its_own(hd):
    _out, pictures = hd
    for type_id in ("news_headlines", "news_article"):
        shown = [t["text"] for t in texts(pictures[type_id])]
        metas = [t for t in shown if t.startswith("World News \u00b7 ") and t.endswith(" ago")]
        assert metas, f"{type_id} names no source and age: {shown}"
    headlines = pictures["news_headlines"]
    assert [t["text"] for t in texts(headlines, "title")] == ["World News"]  # the feed, not "Headlines"
    assert len([t for t in texts(headlines) if t["text"].endswith(" ago")]) == len(texts(headlines, "primary"))
    article_body = [t for t in texts(pictures["news_article"], "primary")]
    assert article_body and all(t["font_px"] >= body_floor("news_article", 1080) for t in article_body)


def test_titles_say_what_the_slide_shows(hd):
    _out, pictures = hd
    titles = {type_id: [t["text"] for t in texts(p, "title")] for type_id, p in pictures.items()}
    assert titles["joke"] == ["Dad jokes"] and titles["trivia"] == ["Science quiz"]
    assert titles["calendar_agenda"] == ["Family calendar"]
    assert titles["weather_forecast"] == ["Berlin \u00b7 5-day forecast"]
    assert not {"Joke", "Headlines", "Trivia"} & {t for found in titles.values() for t in found}


def test_the_agenda_writes_friendly_times_and_marks_the_running_event(hd):
    _out, pictures = hd
    shown = [t["text"] for t in texts(pictures["calendar_agenda"])]
    assert any(t.startswith("Now \u00b7 until ") for t in shown), shown
    assert any(t.startswith("Today ") and "\u2013" in t for t in shown) or \
        any(t.startswith("Tomorrow ") for t in shown), shown
    assert not any(t[:4].isdigit() and t[4:5] == "-" for t in shown), "an ISO date is still shown"
    clock = [t["text"] for t in texts(pictures["clock"])]
    assert any(t.split(" ")[0] in formatting.WEEKDAYS and t.split(" ")[-1].isdigit() for t in clock), clock


def test_the_trivia_answer_is_marked_by_more_than_colour(hd):
    _out, pictures = hd
    shown = texts(pictures["trivia"])
    answer = [t for t in shown if t["text"].endswith("right answer")]
    assert len(answer) == 1 and answer[0]["bold"] and "Saturn" in answer[0]["text"]
    assert [t["icon"] for t in shown if t["icon"] == "check_circle"] == ["check_circle"]
    assert len([t for t in shown if t["icon"] == "radio_button_unchecked"]) == 3


def glyph_pixels(out: Path, picture: dict, text: dict) -> int:
    """Pixels of the icon's own colour inside its box."""
    want = tuple(int(text["color"][i:i + 2], 16) for i in (1, 3, 5))
    x, y, w, h = text["box"]
    with Image.open(out / picture["file"]) as image:
        crop = image.convert("RGB").crop((x, y, x + w, y + h))
    return sum(count for count, colour in crop.getcolors(max(1, crop.width * crop.height))  # one a pixel at most
               if max(abs(a - b) for a, b in zip(colour, want)) <= 24)


def test_weather_icons_come_from_the_shipped_font_and_highs_and_lows_are_labelled(hd):
    out, pictures = hd
    assert SYMBOLS_FONT.is_file() and SYMBOLS_FONT.parent.name == "fonts"
    assert (SYMBOLS_FONT.parent / "LICENSE-MaterialSymbols.txt").is_file()
    current, forecast = pictures["weather_current"], pictures["weather_forecast"]
    for picture, count in ((current, 1), (forecast, 5)):
        icons = [t for t in texts(picture) if t["icon"]]
        assert len([t for t in icons if t["font"] == SYMBOLS_FONT.name]) >= count, icons
        assert all(has_icon(t["icon"]) for t in icons)
        for text in icons:
            assert glyph_pixels(out, picture, text) > 20, f"{text['icon']} drew nothing"
    sunny = next(t for t in texts(current) if t["icon"] == "sunny")
    assert sunny["box"][3] > 200  # a big glyph, not a stamp
    shown = [t["text"] for t in texts(current)]
    assert "High 24°C \u00b7 Low 14°C" in shown and "Air quality: Fair (21)" in shown
    boxes = [t["text"] for t in texts(forecast)]
    assert len([t for t in boxes if t.startswith("High ")]) == 5 and len([t for t in boxes if t.startswith("Low ")]) == 5
    assert {"Today", "Tomorrow"} <= set(boxes)


# -- friendly dates, no canvas --------------------------------------------------------------------
ZONE = formatting.zone_or_utc("Europe/Berlin")
NOW = dt.datetime(2026, 11, 27, 14, 30, tzinfo=ZONE)  # a Friday


def at(day: int, hour: int, minute: int = 0, month: int = 11) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, tzinfo=ZONE)


@pytest.mark.parametrize("start, end, preset, all_day, order, expected", [
    (at(27, 16), at(27, 17), "24h_hm", False, "ymd", "Today 16:00\u201317:00"),
    (at(27, 14), at(27, 15), "24h_hm", False, "ymd", "Now \u00b7 until 15:00"),
    (at(27, 16), at(27, 17), "12h_hm_tt", False, "ymd", "Today 4:00 PM\u20135:00 PM"),
    (at(28, 9), at(28, 10, 30), "24h_hm", False, "ymd", "Tomorrow 09:00\u201310:30"),
    (at(26, 9), None, "24h_hm", False, "ymd", "Yesterday 09:00"),
    (at(1, 9, month=12), at(1, 10, month=12), "24h_hm", False, "ymd", "Tuesday 09:00\u201310:00"),
    (at(9, 0, month=12), at(10, 0, month=12), "24h_hm", True, "dmy", "Wed 9 Dec \u00b7 all day"),
    (at(9, 0, month=12), None, "24h_hm", False, "mdy", "Wed Dec 9 00:00"),
    (at(27, 22), at(28, 2), "24h_hm", False, "ymd", "Today 22:00\u2013Tomorrow 02:00"),
    (at(27, 0), at(28, 0), "24h_hm", True, "ymd", "Now \u00b7 all day"),
    (at(26, 20), at(28, 8), "12h_hm_tt", False, "ymd", "Now \u00b7 until Tomorrow 8:00 AM"),
])
def test_friendly_spans(start, end, preset, all_day, order, expected):
    assert formatting.format_span(start, end, NOW, preset, all_day, order) == expected


def test_friendly_days_dates_and_ages():
    today = NOW.date()
    assert formatting.friendly_day(today + dt.timedelta(days=6), today) == "Thursday"
    assert formatting.friendly_day(today + dt.timedelta(days=7), today) == "Fri 4 Dec"
    assert formatting.friendly_day(dt.date(2027, 1, 8), today, "mdy") == "Fri Jan 8 2027"
    assert formatting.long_date(today) == "Friday 27 November 2026"
    assert formatting.long_date(today, "mdy") == "Friday, November 27, 2026"
    assert formatting.short_date(today) == "Fri 27 Nov" and formatting.short_date(today, "mdy") == "Fri, Nov 27"
    now_ms = 1_800_000_000_000
    ages = [formatting.format_age(now_ms - minutes * 60_000, now_ms) for minutes in (0, 12, 125, 60 * 24, 60 * 72)]
    assert ages == ["just now", "12 min ago", "2 h ago", "1 day ago", "3 days ago"]
    assert formatting.format_age(None, now_ms) == "" and formatting.format_age(now_ms + 5000, now_ms) == "just now"


def test_the_render_context_formats_in_the_display_zone_and_clock():
    from hookspecs.render import RenderContext

    class Clock:
        def now_ms(self) -> int:
            return int(NOW.timestamp() * 1000)

    host = type("Host", (), {"clock": Clock()})()
    context = RenderContext(host, "screen", "calendar_agenda", {}, timezone="Europe/Berlin", time_format="12h")
    start = int(at(27, 16).timestamp() * 1000)
    assert formats(context).format_span(start, start + 3_600_000) == "Today 4:00 PM\u20135:00 PM"
    assert formats(context).is_running(start - 7_200_000, start) and not formats(context).is_running(start, start + 1)
    assert formats(context).format_age(start - 3 * 3_600_000) == "1 h ago" and formats(context).format_age(start) == "just now"
    assert context.type_px("body") == TYPE_SCALE["body"]
    assert RenderContext(host, "screen", "x", {}, size=(3840, 2160), text_scale=1.5).type_px("body") == 56 * 3
