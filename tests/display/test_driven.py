"""The slide program and the ticker band on the real canvas (offscreen, the builtin types and
layers, rows stored through REST), with the frame time driven by the test
(:mod:`tests.display.driven`): minutes of program in seconds, the same run every time."""
from __future__ import annotations

import math
from collections import Counter

import pytest

from hookspecs.render import default_theme
from svc_host.kit.weights import appearances
from tests.display.driven import run

pytestmark = pytest.mark.slow


def message(slide_id: str, colour: str, weight: float = 1, dwell: float = 5, **extra) -> dict:
    return {"id": slide_id, "screen_type": "message", "dwell_seconds": dwell, "frequency_weight": weight,
            "config_json": {"title": slide_id.title(), "body": f"Slide {slide_id}", "backgroundColor": colour},
            **extra}


def posted(*screens: dict, tapes: tuple = ()) -> list:
    return [["POST", "/v1/screens", s] for s in screens] + [["POST", "/v1/ticker/tapes", t] for t in tapes]


SIX = [
    message("welcome", "#1f4e79", weight=3),
    message("menu", "#2e7d32", weight=2),
    {"id": "clock", "screen_type": "clock", "dwell_seconds": 5, "frequency_weight": 1, "config_json": {}},
    {"id": "headlines", "screen_type": "news_headlines", "dwell_seconds": 5, "frequency_weight": 1,
     "config_json": {"showSource": True}},
    {"id": "wifi", "screen_type": "qr_code", "dwell_seconds": 5, "frequency_weight": 0.4,
     "config_json": {"payload": "https://example.invalid/wifi"}},
    message("events", "#6d2877", weight=2.5),
    message("retired", "#000000", weight=5, enabled=False),
]


def test_every_enabled_slide_appears_per_its_weight_in_each_cycle(env, tmp_path):
    """Six enabled slides (weights 3, 2, 1, 1, 0.4 and 2.5: 3, 2, 1, 1, 1 and 3 appearances,
    a cycle of 11) and a disabled one, four cycles of 5 s slides: each cycle shows each slide
    as often as its weight says (±1), the headlines slide with ``showSource`` included."""
    weights = {s["id"]: appearances(s["frequency_weight"]) for s in SIX if s.get("enabled", True)}
    cycle = sum(weights.values())
    result = run(env, {"scenario": "program", "requests": posted(*SIX), "seed": "news", "size": (640, 360),
                       "seconds": 4 * cycle * 5 + 1, "dt": 0.5}, tmp_path)
    shown = [slide for _reason, slide in result["shown"]]
    assert len(shown) >= 4 * cycle, result["shown"]
    for start in range(0, 4 * cycle, cycle):
        counts = Counter(shown[start:start + cycle])
        for slide, weight in weights.items():
            assert abs(counts[slide] - weight) <= 1, (start, counts, shown)
    assert Counter(shown[:4 * cycle]) == {slide: 4 * weight for slide, weight in weights.items()}
    assert "retired" not in shown
    assert "news renderer" not in result["log"] and "Traceback" not in result["log"], result["log"][-3000:]


def test_a_one_slide_program_does_not_change_into_itself(env, tmp_path):
    result = run(env, {"scenario": "program", "requests": posted(message("only", "#1f4e79", dwell=2)),
                       "size": (640, 360), "seconds": 11, "dt": 0.25}, tmp_path)
    assert [reason for reason, _slide in result["shown"]] == ["start"] + ["dwell"] * 5  # its dwell, again and again
    assert result["widgets"] == 1  # the slide built once...
    assert result["most_widgets"] == 1  # ...and never a second copy fading over it


def test_the_screen_is_filled_once_a_frame_under_slides_with_their_own_background(env, tmp_path):
    """Issue 29: a slide's own background (the ground the compositor paints under the decoration)
    covering the content area takes the theme backdrop off, as an opaque slide does: on llvmpipe
    each full-screen fill is milliseconds of CPU a frame. Over two slide changes every frame has
    one fill over the content area, never none (no black frame) and never two."""
    result = run(env, {"scenario": "fills", "requests": posted(message("one", "#1f4e79", dwell=2),
                                                               message("two", "#2e7d32", dwell=2), tapes=TAPES[:1]),
                       "size": (640, 360), "seconds": 5, "dt": 0.25}, tmp_path)
    x, y, width, height = result["content"]
    assert len(result["shown"]) >= 3, result["shown"]
    for fills in result["frames"]:
        over = [f for f in fills if f[0] <= x and f[1] <= y and f[0] + f[2] >= x + width and f[1] + f[3] >= y + height]
        assert len(over) == 1, (fills, result["content"])


def test_a_slide_of_one_colour_is_a_clear_of_the_window_not_a_fill(env, tmp_path):
    """Issue 29: the ground of one opaque colour that covers the content area (the backdrop off) is
    drawn as a clear of the window in its colour rather than a rectangle (on llvmpipe a 1920x1080
    fill is 13-16 ms of CPU a frame, a clear next to nothing), in every frame over two slide changes;
    the picture (drawn as the live preview draws the window) shows the slide's colour in the content
    area and the ticker band's own colour under the band."""
    result = run(env, {"scenario": "fills", "requests": posted(message("one", "#1f4e79", dwell=2),
                                                               message("two", "#2e7d32", dwell=2), tapes=TAPES[:1]),
                       "size": (640, 360), "seconds": 5, "dt": 0.25}, tmp_path)
    assert len(result["shown"]) >= 3, result["shown"]
    assert all(clears == [True] for clears in result["clears"]), result["clears"]
    colours = {"one": [0x1F, 0x4E, 0x79], "two": [0x2E, 0x7D, 0x32]}
    shown_last = result["shown"][-1][1]
    assert all(abs(a - b) <= 2 for a, b in zip(result["content_pixel"], colours[shown_last])), result
    band = [round(255 * c) for c in default_theme().background[0][:3]]
    assert all(abs(a - b) <= 2 for a, b in zip(result["band_pixel"], band)), (result["band_pixel"], band)


def test_the_backdrop_is_filled_only_where_nothing_opaque_lies_over_it(env, tmp_path):
    """Issue 29: with an overlay panel the slide's ground covers only the free area, so the theme
    backdrop stays; it is filled in pieces that leave out the ground and the ticker band (each was
    a second fill of those pixels every frame): the pieces, the ground and the band tile the screen."""
    clock = {"id": "clock", "overlay_type": "digital_clock", "enabled": True, "start_month": 1, "start_day": 1,
             "end_month": 12, "end_day": 31, "config_json": {}}
    requests = posted(message("one", "#1f4e79", dwell=600), tapes=TAPES[:1]) + [["POST", "/v1/display/overlays", clock]]
    result = run(env, {"scenario": "backdrop", "requests": requests, "size": (640, 360), "seconds": 2, "dt": 0.25},
                 tmp_path)
    assert result["attached"] and not result["clears"] and result["pieces"], result
    width, height = result["screen"]
    assert result["ground"] is not None and result["ground"][2] * result["ground"][3] < width * (height - result["band"][3])

    def inside(rect: list[float]) -> list[float]:  # the whole pixels of a rectangle (the backdrop covers its edges)
        x, y = math.ceil(rect[0]), math.ceil(rect[1])
        return [x, y, math.floor(rect[0] + rect[2]) - x, math.floor(rect[1] + rect[3]) - y]

    ground, band = inside(result["ground"]), inside(result["band"])

    def overlap(a: list[float], b: list[float]) -> float:
        return max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])) * max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))

    pieces = [list(piece) for piece in result["pieces"]]
    assert all(overlap(piece, ground) == 0 and overlap(piece, band) == 0 for piece in pieces), (pieces, ground, band)
    assert abs(sum(p[2] * p[3] for p in pieces) + ground[2] * ground[3] + band[2] * band[3] - width * height) < 1, result


@pytest.mark.parametrize("other, after", [
    (message("second", "#2e7d32", dwell=600), ("content_changed", ["second"])),
    # the only other slide has no content (no articles): the slide is cleared, not left showing,
    # and the nothing-to-show card says why (issue 34)
    ({"id": "empty", "screen_type": "news_headlines", "dwell_seconds": 600, "config_json": {}}, ("idle", [])),
], ids=["replaced", "cleared"])
def test_a_slide_disabled_through_rest_leaves_the_screen_on_its_change_event(env, tmp_path, other, after):
    screens = [message("first", "#1f4e79", dwell=600), other]
    result = run(env, {"scenario": "disable", "requests": posted(*screens), "slide": "first", "size": (640, 360)},
                 tmp_path)
    assert tuple(result["last"]) == after
    assert result["current"] == (after[1][0] if after[1] else None)
    assert result["elapsed"] == 0  # on the event: no frame time (no dwell, no timer) passed
    assert result["fade_frames"] <= 7  # gone within the change's 0.6 s
    assert result["on_stage"] == len(after[1])
    assert result["card"] == (None if after[1] else ["1 slide has no content to show yet"])


TAPES = (
    {"id": "hello", "ticker_type": "text", "sort_order": 1, "config_json": {"text": "Welcome to the lobby"}},
    {"id": "now", "ticker_type": "time", "sort_order": 2,
     "config_json": {"timeFormatPreset": "24h_hms", "labelPrefix": "Now", "timeZone": "UTC"}},
    {"id": "coffee", "ticker_type": "text", "sort_order": 3, "frequency_weight": 2,
     "config_json": {"text": "Fresh coffee in the lounge until 11:00"}},
)


def test_the_ticker_band_shows_text_in_every_frame_of_two_cycles(env, tmp_path):
    """Frame by frame (1/15 s each) until two runs of the row have left the band: every frame
    of the band has text in it; the time item changes in place; the texts are drawn into
    textures when they change, not per frame, and their glyphs off the frame (the loader thread)."""
    result = run(env, {"scenario": "ticker", "requests": posted(message("calm", "#1f4e79", dwell=600),
                                                                tapes=TAPES),
                       "cycles": 2, "dt": 1 / 15}, tmp_path)
    ink = result["ink"]
    assert result["cycles"] == 2 and result["frames"] * 5 > 2 * result["row_width"], result  # 5 px per frame
    assert min(ink) > 50, [i for i, count in enumerate(ink) if count <= 50][:20]
    assert len(result["times"]) >= result["frames"] / 15 - 2  # "Now ... hh:mm:ss", one per second
    assert result["renders"] < result["frames"] / 5  # a handful per second of frames, never one per frame
    # issue 35, item 9: the glyphs are drawn into pixels on the loader thread, with the cycle's or the
    # refresh's texts; a frame only uploads them (it drew them itself, in the frame, before)
    assert result["renders"] and result["renders_in_frame"] == [], result["renders_in_frame"]


def test_ticker_navigation_brings_the_next_and_the_previous_item_to_the_left_edge(env, tmp_path):
    result = run(env, {"scenario": "ticker_navigation", "requests": posted(message("calm", "#1f4e79", dwell=600),
                                                                           tapes=TAPES), "size": (640, 360)}, tmp_path)
    margin, before = result["margin"], result["before"]
    following = next(index for index, start in enumerate(before) if start > margin + 1)
    assert abs(result["forward"][following] - margin) < 1, result
    assert abs(result["back"][following - 1] - margin) < 1, result


LOBBY = ["message", "photo", "news_headlines", "news_article", "weather_current", "weather_forecast",
         "calendar_agenda", "calendar_month", "clock", "qr_code", "trivia", "joke"]
"""Twelve builtin slide types (benchmarks/render_fps.py --rss's program), with their examples."""


def lobby_requests(make_host, tmp_path, slide_types: list[str], dwell: float) -> list[list]:
    """The REST requests of a program of ``slide_types`` (``dwell`` seconds each) with clock, QR and
    confetti overlays and text, time, news and weather tapes, every row with its type's example."""
    registries = make_host({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "types")}).registries

    def example(registry, type_id: str) -> dict:
        return dict(registry.get(type_id).example_config)

    requests = [["POST", "/v1/screens", {"id": f"s{i:02d}", "screen_type": t, "dwell_seconds": dwell,
                                         "config_json": example(registries.screen_types, t)}]
                for i, t in enumerate(slide_types)]
    requests += [["POST", "/v1/display/overlays", {"id": t, "overlay_type": t, "start_month": 1, "start_day": 1,
                                                   "end_month": 12, "end_day": 31,
                                                   "config_json": example(registries.overlay_types, t)}]
                 for t in ("digital_clock", "qr_code", "birthday_confetti")]
    requests += [["POST", "/v1/ticker/tapes", {"id": f"tape_{t}", "ticker_type": t,
                                               "config_json": example(registries.ticker_types, t)}]
                 for t in ("text", "time", "news", "weather")]
    return requests


def test_slide_cycles_leave_the_live_widgets_and_textures_bounded(env, tmp_path, make_host):
    """Six cycles of a twelve-slide program of builtin types with sample content, clock, QR and
    confetti overlays and four tapes: at the end of each cycle the same slide is on screen, and
    no more widgets are alive than after the first two cycles, and about as many textures and
    vertex instructions (what a slide, an overlay or a tape builds is let go when it leaves)."""
    requests = lobby_requests(make_host, tmp_path, LOBBY, 5)
    result = run(env, {"scenario": "cycles", "requests": requests, "seed": "samples", "size": (960, 540),
                       "cycles": 6, "cycle_seconds": 12 * 5, "dt": 0.5}, tmp_path, timeout=900)
    shown = [slide for _reason, slide in result["shown"]]
    assert set(shown) == {f"s{i:02d}" for i in range(12)}, result["shown"]
    counts = result["counts"]  # the ticker's runs in the band vary a little with the scroll
    first = {kind: max(c[kind] for c in counts[:2]) for kind in counts[0]}
    assert all(c["widgets"] <= first["widgets"] for c in counts[2:]), counts
    # the band's runs (a rectangle per item, a dot per separator) and the time tape's textures
    # swing with where the scroll is at a count: one cycle may be high, a leak keeps both high
    for kind in ("textures", "vertex_instructions"):
        assert min(c[kind] for c in counts[-2:]) <= first[kind] * 1.25, (kind, counts)


def test_theme_switches_leave_no_old_theme_alive(env, tmp_path, make_host):
    """Issue 29: a theme switch must not leave the old theme's widgets and textures alive. Six
    cycles of a four-slide program with overlays and tapes, the theme switched between two after
    each (every slide, overlay and the band drawn again in the new colours): at the end of each
    cycle, as many widgets as after the first two and about as many textures and vertex
    instructions. (Fails when a slide outlives its cycle: checked by keeping every
    ``themed_slide`` in a module list, the widgets then grow by the slides of each cycle.)"""
    slides = ["message", "news_headlines", "weather_current", "qr_code"]
    requests = lobby_requests(make_host, tmp_path, slides, 5)
    switch = [[["PUT", "/v1/display/settings", {"display_theme_id": theme}]] for theme in ("forest_amber",
                                                                                         "navy_coral")]
    result = run(env, {"scenario": "cycles", "requests": requests, "seed": "samples", "size": (640, 360),
                       "cycles": 6, "cycle_seconds": len(slides) * 5, "dt": 0.5, "between": switch},
                 tmp_path, timeout=600)
    assert {slide for _reason, slide in result["shown"]} == {f"s{i:02d}" for i in range(len(slides))}
    counts = result["counts"]
    first = {kind: max(c[kind] for c in counts[:2]) for kind in counts[0]}
    assert all(c["widgets"] <= first["widgets"] for c in counts[2:]), counts
    # the band's runs (a rectangle per item, a dot per separator) and the time tape's textures
    # swing with where the scroll is at a count: one cycle may be high, a leak keeps both high
    for kind in ("textures", "vertex_instructions"):
        assert min(c[kind] for c in counts[-2:]) <= first[kind] * 1.25, (kind, counts)
