"""The layout system (issue 17): named overlay zones, the free area the slides lay out in, and on
the real canvas (offscreen, the builtin types and layers, rows stored through REST, the gallery's
sample content): with each corner overlay active, no overlay rectangle intersects the slide's
title or primary text, and a celebration message stays in its band."""
from __future__ import annotations

import os
import time

import pytest

from hookspecs.render import CORNERS, SAFE_INSET, TITLE_BOX, TYPE_MIN, ZONES, Rect
from svc_host.kit.display.layout import (BAND, FOOTER_MIN_SHARE, MARGIN, MIN_FREE_SHARE, PANEL_MAX_SHARE, arrange,
                                         layout_of, title_inset, with_occupied, zone_rect)
from svc_host.kit.display.text import MESSAGE_MAX_LINES
from tests.display.driven import run

SIZE = (1920, 1080)


# -- the arithmetic -------------------------------------------------------------------------------

def test_a_corner_panel_sits_its_margin_from_the_corner_of_the_content_area():
    layout = layout_of(1000, 600, {"ticker": 100})  # content: y 100..600
    rect = zone_rect(layout, "top_right", (0.2, 0.1))
    assert rect == Rect(1000 - 20 - 200, 600 - 15 - 50, 200, 50)
    assert zone_rect(layout, "bottom_left", (0.2, 0.1)) == Rect(20, 100 + 15, 200, 50)
    assert zone_rect(layout, "bottom_band") == Rect(0, 100, 1000, 500 * BAND)
    assert zone_rect(layout, "fullscreen") == layout.content


def test_a_wide_flat_corner_panel_cuts_a_band_and_a_tall_one_a_column():
    layout = layout_of(1000, 600)
    rects, occupied, _messages = arrange(layout, [("top_right", (0.3, 0.1), False)])
    free = with_occupied(layout, occupied).free
    assert free == Rect(0, 0, 1000, rects[0].y - 600 * MARGIN[1])  # a band off the top: the larger rest
    rects, occupied, _messages = arrange(layout, [("bottom_left", (0.1, 0.5), False)])
    free = with_occupied(layout, occupied).free
    assert free == Rect(rects[0].right + 1000 * MARGIN[0], 0, 1000 - rects[0].right - 20, 600)


def test_free_is_the_largest_area_every_combination_of_cuts_leaves():
    layout = layout_of(1000, 600)
    rects, occupied, _messages = arrange(layout, [("top_left", (0.3, 0.4), False), ("top_right", (0.3, 0.1), False),
                                      ("bottom_right", (0.1, 0.1), False)])
    free = with_occupied(layout, occupied).free
    for rect in rects:
        assert not rect.intersects(free)
    # of the eight combinations (the areas: 228k, 269k, 262k, 161k, ...) a band under the top left
    # panel (which clears the top right one too) and a column beside the bottom right one leave most
    assert free == Rect(0, 0, rects[2].x - 20, rects[0].y - 18)
    assert free.area == pytest.approx(860 * 324)


def test_a_band_wider_than_a_column_wins_when_their_areas_are_close():
    """A corner panel that leaves a column of 54 % of the width or a full-width band of 49 % of the
    height: the band (the slide's lines wrap less); the column was taken for its larger area."""
    layout = layout_of(1000, 1000)
    rects, occupied, _messages = arrange(layout, [("top_right", (0.42, 0.45), False)])
    free = with_occupied(layout, occupied).free
    assert free == Rect(0, 0, 1000, rects[0].y - 1000 * MARGIN[1])


def test_no_free_column_narrower_than_half_the_width_while_a_roomy_band_is_left():
    layout = layout_of(1920, 1000)
    # a column between the two panels (47 % of the width, the largest area) was taken
    rects, occupied, _messages = arrange(layout, [("top_left", (0.15, 0.3), False), ("bottom_right", (0.3, 0.5), False)])
    free = with_occupied(layout, occupied).free
    assert free.width >= 1920 * MIN_FREE_SHARE[0] and free.height >= 1000 * MIN_FREE_SHARE[1], free
    assert all(not rect.intersects(free) for rect in rects)


def test_a_portrait_screen_stacks_its_bands_and_keeps_its_panels_landscape_sized():
    """1080x1920: the alert band on top, the slides under it at the full width, the celebration band
    and the ticker at the bottom; a corner panel and the bands the size they have on a 1920x1080
    screen (type too), at most PANEL_MAX_SHARE of the width."""
    landscape = layout_of(1920, 1080, {"ticker": 81, "alert": 202})
    portrait = layout_of(1080, 1920, {"ticker": 81, "alert": 202})
    assert portrait.alert == Rect(0, 1920 - 202, 1080, 202) and portrait.ticker == Rect(0, 0, 1080, 81)
    assert portrait.content == Rect(0, 81, 1080, 1920 - 81 - 202)
    assert portrait.type_height == pytest.approx((1920 - 81) * 1080 / 1920)
    wanted = [("top_right", (0.22, 0.2), False), ("bottom_right", (0.17, 0.37), False), ("fullscreen", (1, 1), True)]
    rects, occupied, messages = arrange(portrait, wanted)
    flat, _occupied, flat_messages = arrange(layout_of(1920, 1080, {"ticker": 81}), wanted)
    clock, qr = rects[0], rects[1]
    assert clock.size == pytest.approx(flat[0].size, rel=0.2) and clock.width <= 1080 * PANEL_MAX_SHARE + 0.5
    free = with_occupied(portrait, occupied).free
    assert free.width == 1080 and free.top <= clock.y and free.y >= qr.top  # a band between the panels
    # the panels keep their size under the alert (it takes room, not size): the band between them is
    # at least the layout's own floor (MIN_FREE_SHARE) of the lower content area
    assert free.height > MIN_FREE_SHARE[1] * portrait.content.height, free
    # a footer: the message beside the QR panel, as high as the panel's row (at least the band's
    # height), from the title inset; the slide starts above that row
    message = messages[2]
    assert message.x == 1080 * TITLE_BOX[0] and message.right < qr.x and not message.intersects(qr)
    assert message.top == pytest.approx(qr.top) and message.y <= qr.y + 0.5  # the panel's row (taller than the band)
    assert message.height > flat_messages[2].height and message.width >= 1080 * FOOTER_MIN_SHARE
    assert message.top <= free.y
    assert not landscape.content.intersects(landscape.alert)


def test_a_portrait_screen_with_both_bottom_corners_taken_stacks_the_message_above_the_panels():
    """No room for a footer beside two bottom panels (less than FOOTER_MIN_SHARE of the width): the
    message goes across the width, above the panels' row, and the slide above it."""
    portrait = layout_of(1080, 1920, {"ticker": 81})
    wanted = [("bottom_left", (0.4, 0.3), False), ("bottom_right", (0.4, 0.3), False), ("fullscreen", (1, 1), True)]
    rects, occupied, messages = arrange(portrait, wanted)
    message, row_top = messages[2], max(rects[0].top, rects[1].top)
    assert message.y >= row_top and message.x == 1080 * TITLE_BOX[0] and message.right == 1080 * (1 - TITLE_BOX[0])
    assert with_occupied(portrait, occupied).free.y >= message.top


@pytest.mark.parametrize("size", [(1080, 1920), (1920, 1080)])
def test_a_panel_sized_in_pixels_keeps_its_size_and_shape_in_its_zone(size):
    """A renderer that sizes its panel in pixels (the digital clock: 422 x 216 at 1080 lines)
    divides by what the layout reads a hint as, the overlay context's ``reference``: its panel is
    drawn that size, not stretched to a thin strip on a portrait screen (issue 24)."""
    from hookspecs.render import Preferences
    from svc_host.kit.display import panel_fraction

    layout = layout_of(*size, {"ticker": 81})
    content = layout.content
    context = Preferences().context(None, "overlay", "digital_clock", {}, (int(content.width), int(content.height)),
                                    layout.type_height, layout.reference)
    rect = zone_rect(layout, "top_right", panel_fraction(context, 422, 216))
    assert rect.width == pytest.approx(422) and rect.height == pytest.approx(216), rect


def test_center_and_a_second_overlay_in_a_taken_corner_move_to_free_corners():
    layout = layout_of(1000, 600)
    rects, occupied, _messages = arrange(layout, [("top_right", (0.2, 0.2), False), ("center", (0.2, 0.2), False),
                                      ("top_right", (0.2, 0.2), False)])
    assert [zone for zone, _rect in occupied] == ["top_right", "bottom_right", "bottom_left"]
    assert rects[1] == zone_rect(layout, "bottom_right", (0.2, 0.2))
    rects, occupied, _messages = arrange(layout, [(corner, (0.1, 0.1), False) for corner in CORNERS]
                                     + [("center", (0.1, 0.1), False)])
    assert occupied[-1][0] == "bottom_right"  # no free corner: it shares one, never the middle


def test_a_full_screen_overlay_occupies_only_its_celebration_band():
    layout = layout_of(1000, 600, {"ticker": 50})
    rects, occupied, _messages = arrange(layout, [("fullscreen", (1, 1), True), ("fullscreen", (1, 1), False),
                                      ("no_such_zone", (1, 1), False)])
    assert rects == [layout.content] * 3
    assert occupied == [("bottom_band", zone_rect(layout, "bottom_band"))]
    band, inset = zone_rect(layout, "bottom_band"), 1000 * TITLE_BOX[0]
    assert _messages == [Rect(band.x + inset, band.y, band.width - 2 * inset, band.height), None, None]
    free = with_occupied(layout, occupied).free
    assert free == Rect(0, 50 + 550 * BAND, 1000, 550 * (1 - BAND))
    assert with_occupied(layout, []).free == layout.content


def test_a_celebration_message_lies_between_the_bottom_corner_panels():
    layout = layout_of(1000, 600)
    rects, occupied, messages = arrange(layout, [("bottom_left", (0.2, 0.1), False), ("fullscreen", (1, 1), True),
                                                ("bottom_right", (0.1, 0.1), False)])
    band = zone_rect(layout, "bottom_band")
    assert messages[1] == Rect(rects[0].right + 20, 0, rects[2].x - 20 - rects[0].right - 20, band.height)
    assert not messages[1].intersects(rects[0]) and not messages[1].intersects(rects[2])
    assert ("bottom_band", band) in occupied


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (1080, 1920), (3840, 2160)])
@pytest.mark.parametrize("panels", [[], [("bottom_left", (0.12, 0.12), False)], [("bottom_right", (0.17, 0.3), False)]])
def test_the_celebration_message_keeps_the_slide_titles_inset(size, panels):
    """The celebration line starts where a slide's title starts (TITLE_BOX's inset of the content
    area), never 10-17 px from the screen's edge, with or without a bottom corner panel beside it."""
    layout = layout_of(*size, {"ticker": 81 * min(size) / 1080})
    rects, occupied, messages = arrange(layout, [*panels, ("fullscreen", (1, 1), True)])
    message, c = messages[-1], layout.content
    inset = c.width * TITLE_BOX[0]
    assert message.x >= c.x + inset - 0.5 and message.right <= c.right - inset + 0.5, (message, inset)
    assert message.width > c.width * 0.3 and message.height > 0, message
    assert not any(message.intersects(rect) for rect in rects[:len(panels)])
    assert title_inset(layout) == pytest.approx(inset)


def test_a_full_screen_type_ignores_position_a_panel_type_follows_it():
    from hookspecs import OverlayType

    legacy = OverlayType("glow", "Glow", {"type": "object"}, {})  # a type from before zones
    panel = OverlayType("badge", "Badge", {"type": "object"}, {}, zone="top_left")
    assert legacy.zone_for({"position": "top_right"}) == "fullscreen"
    assert panel.zone_for({"position": "top_right"}) == "top_right"
    assert panel.zone_for({"position": "fullscreen"}) == "fullscreen"
    assert panel.zone_for({}) == panel.zone_for(None) == "top_left"


def test_every_builtin_overlay_type_declares_a_known_zone(host):
    for overlay_type in host.registries.overlay_types:
        assert overlay_type.zone in ZONES, overlay_type.id
        if "position" in overlay_type.config_schema.get("properties", {}):
            assert overlay_type.zone != "fullscreen", overlay_type.id  # a positioned panel has a corner
            assert overlay_type.zone_for({"position": "bottom_left"}) == "bottom_left"
            assert overlay_type.zone_for({"position": "nowhere"}) == overlay_type.zone
        else:
            assert overlay_type.zone_for({"position": "top_left"}) == overlay_type.zone


# -- on the real canvas ----------------------------------------------------------------------------

SLIDE = {"id": "welcome", "screen_type": "message", "dwell_seconds": 600, "frequency_weight": 1,
         "config_json": {"title": "Welcome to the lobby",
                         "body": "Lunch is served in the atrium at noon. The lifts are back in service."}}

CORNER_OVERLAYS = {  # every builtin overlay type with a position, in each corner its example or config names
    "digital_clock": {"position": "top_right", "show_date": True},
    "analog_clock": {"position": "top_left", "size": 0.3},
    "calendar_month": {"position": "top_left"},
    "calendar_upcoming": {"position": "top_right"},
    "stock_quote": {"position": "bottom_left"},
    "photo_slideshow": {"position": "bottom_right", "size": 0.3},
    "qr_code": {"payload": "https://example.org/feedback", "caption": "Tell us", "position": "bottom_right"},
    "qr_code@center": {"payload": "https://example.org/feedback", "position": "center"},
    # the panel naming the page (nothing answers there: no snapshot covers it)
    "plugin_web": {"url": "http://127.0.0.1:9/overlay", "position": "bottom_left", "size": 0.3},
}
CELEBRATIONS = {
    "birthday_confetti": {"messages": ["Happy birthday, Sam! Cake in the kitchen at three"]},
    "bouncing_message": {"messages": ["Welcome, visitors!"]},
    "floating_balloons": {"messages": ["Congratulations!"]},
    # no folder plugin "python-trivia" here: the panel saying so goes in the band
    "plugin_template": {"plugin_id": "python-trivia", "template": "cheer", "messages": ["Well played!"]},
}


def overlay(key: str, config: dict) -> dict:
    today = time.gmtime()
    overlay_type = key.split("@")[0]
    return {"id": "o_" + key.replace("@", "_"), "enabled": True, "overlay_type": overlay_type,
            "config_json": config, "start_month": today.tm_mon, "start_day": today.tm_mday}


def sample_config(host, overlay_type: str, config: dict) -> dict:
    """``config`` over the type's example (the gallery's sample content answers it)."""
    return {**host.registries.overlay_types.get(overlay_type).example_config, **config}


def groups(host) -> list[list[dict]]:
    singles = [[overlay(key, sample_config(host, key.split("@")[0], config))]
               for key, config in {**CORNER_OVERLAYS, **CELEBRATIONS}.items()]
    together = [overlay(key, sample_config(host, key, CORNER_OVERLAYS[key]))
                for key in ("digital_clock", "calendar_month", "stock_quote", "qr_code")]
    return singles + [together + [overlay("birthday_confetti", CELEBRATIONS["birthday_confetti"])]]


@pytest.mark.slow
def test_no_overlay_covers_the_slide_title_or_primary_text(env, host, tmp_path):
    result = run(env, {"scenario": "zones", "size": SIZE, "seed": "samples", "samples": ["calendar", "media", "stocks"],
                       "requests": [["POST", "/v1/screens", SLIDE]], "overlays": groups(host)}, tmp_path)
    seen = result["groups"]
    assert len(seen) == len(CORNER_OVERLAYS) + len(CELEBRATIONS) + 1
    for index, group in enumerate(seen):
        assert not group["failed"], (index, group)
        roles = {m["role"] for m in group["marked"]}
        assert roles == {"title", "primary"}, group  # the slide is on screen, its text marked
        marked = [(m["role"], Rect(*m["rect"])) for m in group["marked"]]
        free = Rect(*group["free"])
        assert group["built"] == [int(free.width), int(free.height)], group  # built again when free changed
        assert group["overlays"], group
        panels = [Rect(*d["rect"]) for d in group["overlays"] if d["zone"] != "fullscreen"]
        for drawn in group["overlays"]:
            rects = [Rect(*r) for r in drawn["celebrations"]] if drawn["zone"] == "fullscreen" \
                else [Rect(*drawn["rect"])]
            assert rects, drawn  # a celebration overlay shows its message
            for rect in rects:
                assert not rect.intersects(free), (drawn, free)
                for role, text in marked:
                    assert not rect.intersects(text), (drawn["id"], role, text, rect)
                if drawn["zone"] == "fullscreen":  # the message lies in the band at the bottom, by the panels
                    assert rect.top <= free.y + 1, (drawn, free)
                    assert not any(rect.intersects(panel) for panel in panels), (drawn, panels)
    # the slide's text keeps its size whatever room the overlays leave it; a title that no longer fits
    # its band on one line shrinks (the text rule), never below its minimum
    assert len({m["font_px"] for group in seen for m in group["marked"] if m["role"] == "primary"}) == 1, seen
    assert min(m["font_px"] for group in seen for m in group["marked"]) >= TYPE_MIN["title"], seen
    # the centre overlay moved to a free corner; the four corner panels shared the screen
    centre = next(g for g in seen if g["overlays"][0]["id"] == "o_qr_code_center")["overlays"][0]
    assert centre["zone"] == "center" and Rect(*centre["rect"]).x > SIZE[0] / 2
    last = seen[-1]
    assert len(last["overlays"]) == 5
    assert Rect(*last["free"]).area > 0.25 * SIZE[0] * SIZE[1]
    assert "Traceback" not in result["log"], result["log"][-3000:]


@pytest.mark.slow
def test_a_folder_plugins_template_overlay_keeps_its_text_off_the_slides(env, host, tmp_path):
    """python-trivia's ``cheer`` template writes its headline near the top of the screen: the
    slide is laid out below it (the template's solid blocks take a band), so neither its headline
    nor its message covers the slide's title or text."""
    from tests import REPO

    config = {"plugin_id": "python-trivia", "template": "cheer", "data": {"title": "Quiz champions"},
              "messages": ["Well played!"]}
    env = {**env, "SVC_DISPLAY_PLUGINS_DIR": str(REPO / "plugins")}
    result = run(env, {"scenario": "zones", "size": SIZE, "requests": [["POST", "/v1/screens", SLIDE]],
                       "overlays": [[overlay("plugin_template", config)]]}, tmp_path)
    group = result["groups"][0]
    assert not group["failed"] and {m["role"] for m in group["marked"]} == {"title", "primary"}, group
    drawn = group["overlays"][0]
    assert drawn["texts"] and drawn["celebrations"], drawn  # the headline and the message are drawn
    free = Rect(*group["free"])
    assert free.top < SIZE[1] * 0.9, free  # the headline's band is cut from the top
    for rect in [Rect(*r) for r in drawn["texts"] + drawn["celebrations"]]:
        for mark in group["marked"]:
            assert not rect.intersects(Rect(*mark["rect"])), (rect, mark)


def test_an_overlay_type_in_an_unknown_zone_is_refused_naming_its_plugin(caplog):
    import logging

    from hookspecs import OverlayType, hookimpl
    from svc_host.plugins import load_plugins
    from svc_host.registries import build_registries

    class Corner:
        @hookimpl
        def register_overlay_types(self):
            return [OverlayType("corner_badge", "Badge", {"type": "object"}, {}, zone="top_middle")]

    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("badge", Corner())])
    plugins.info["badge"].origin = "third-party"
    with caplog.at_level(logging.ERROR):
        registries = build_registries(plugins)
    assert "corner_badge" not in registries.overlay_types
    assert any("'badge'" in r.getMessage() and "zone must be one of" in r.getMessage() for r in caplog.records)


# -- the composition rule (docs/display.md, "Composition: the rule") ------------------------------

COMPOSITION = "tests.display.composition:"
QR_SLIDE = {"id": "menu", "screen_type": "qr_code", "dwell_seconds": 600, "frequency_weight": 1,
            "config_json": {"payload": "https://example.org/feedback", "caption": "Tell us what you think"}}
"""The QR panel's own code on the slide: the same code twice is shown once (the panel yields; a
captioned code of another payload would stand beside it, tests/display/test_one_voice.py)."""
CAFE_PANELS = [overlay("qr_code", {"payload": "https://example.org/feedback", "caption": "Tell us",
                                   "position": "bottom_right"}),
               overlay("digital_clock", {"position": "top_right", "show_date": True})]
EFFECTS = [overlay("birthday_confetti", {"density": 5, "opacity": 1, "shapes": ["mix"]}),
           overlay("shape_rain", {"density": 5, "opacity": 1, "shapes": ["star", "heart"]})]


@pytest.mark.slow
def test_decoration_falls_behind_the_slides_text_images_qr_codes_and_the_panels(env, tmp_path):
    """Confetti and shape rain drawn under the slide's content: every text, image and QR code box of
    the slide, and the QR overlay's panel, has the very same pixels with the effect as without it,
    while the effect does change the window around them."""
    result = run(env, {"scenario": COMPOSITION + "decoration", "size": SIZE, "slides": [SLIDE, QR_SLIDE],
                       "overlays": CAFE_PANELS, "judged": ["o_qr_code"], "effects": EFFECTS,
                       "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    seen = result["seen"]
    assert len(seen) == 4
    for step in seen:
        assert step["changed"] > 10, step  # the effect is drawn
        assert not step["moved"], step
        kinds = {box["what"] for box in step["boxes"]}
        assert kinds == {"slide", "o_qr_code"}, step
        # one voice per fact: the QR panel yields (is hidden, decoration may show in its place) while
        # the slide shows the same code, and only then
        yielded = {box["what"] for box in step["boxes"] if box.get("yielded")}
        assert yielded == ({"o_qr_code"} if step["slide"] == QR_SLIDE["id"] else set()), step
        covered = [box for box in step["boxes"] if not box["same"] and box["what"] not in yielded]
        assert not covered, (step["slide"], step["effect"], covered)
    assert "Traceback" not in result["log"], result["log"][-3000:]


def _bounds(rects: list[Rect]) -> Rect:
    x, y = min(r.x for r in rects), min(r.y for r in rects)
    return Rect(x, y, max(r.right for r in rects) - x, max(r.top for r in rects) - y)


@pytest.mark.slow
def test_an_alert_takes_a_band_at_the_top_and_a_critical_one_the_whole_screen(env, tmp_path):
    """A warning's card takes a band across the top: the slide's text and the corner panels are laid
    out below it, and its pixels are the same with the clock overlay removed (nothing under it shows
    through). A critical alert takes the whole screen: the slides and overlays wait."""
    alerts = [{"title": "Fire drill at 15:00", "body": "Please leave by the nearest exit when the bell rings.",
               "severity": "warning"},
              {"title": "Evacuate the building now", "body": "Leave by the nearest exit.", "severity": "critical"}]
    result = run(env, {"scenario": COMPOSITION + "alert_band", "size": SIZE, "slide": SLIDE, "overlays": CAFE_PANELS[::-1],
                       "alerts": alerts, "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    warning, critical = result["seen"]
    band = _bounds([Rect(*r) for r in warning["cards"]])
    # a band at the top, below the title-safe inset (and the cards' gap)
    assert band.top >= SIZE[1] * (1 - SAFE_INSET) - 20 and band.height < SIZE[1] * 0.3, band
    assert warning["slides_shown"] and warning["overlays_shown"]
    assert warning["slide_texts"] and len(warning["panels"]) == 2, warning
    for rect in [Rect(*r) for r in warning["slide_texts"] + warning["panels"]]:
        assert not rect.intersects(band), (rect, band)
    assert warning["same_without_clock"], warning  # nothing under the card shows through it
    whole = _bounds([Rect(*r) for r in critical["cards"]])
    assert whole.height > SIZE[1] * 0.8 and whole.width > SIZE[0] * (1 - 2 * SAFE_INSET) * 0.9, whole  # inside the inset
    assert not critical["slides_shown"] and not critical["overlays_shown"], critical
    assert critical["same_without_clock"], critical
    assert "Traceback" not in result["log"], result["log"][-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("size", [SIZE, (1080, 1920)], ids=["landscape", "portrait"])
def test_panels_on_screen_when_an_alert_comes_keep_their_size_and_shape_and_their_text_fits(env, tmp_path, size):
    """The café's clock and QR panels are up when a warning comes: its band makes the content area
    lower, and each panel is built again for it (as one built before the ticker claimed its band is),
    keeping its size and shape, below the band, its texts inside its box at no less than the
    caption's minimum. It used to keep its build and be squashed into the lower area (the clock's
    390x200 panel became 390x159)."""
    alert = {"title": "Fire drill at 15:00", "body": "Please leave by the nearest exit when the bell rings.",
             "severity": "warning"}
    seen = run(env, {"scenario": COMPOSITION + "panels_under_alert", "size": list(size), "slide": SLIDE,
                     "overlays": CAFE_PANELS, "alert": alert, "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    before, after = seen["before"], seen["after"]
    assert set(before) == set(after) == {"o_qr_code", "o_digital_clock"}, (before, after)
    band = _bounds([Rect(*r) for r in seen["cards"]])
    floor = TYPE_MIN["caption"] * min(size) / 1080 - 0.5
    for overlay_id in before:
        old, new = Rect(*before[overlay_id]["rect"]), Rect(*after[overlay_id]["rect"])
        assert abs(new.width - old.width) <= 1 and abs(new.height - old.height) <= 1, (overlay_id, old, new)
        assert not new.intersects(band), (overlay_id, new, band)
        for label in after[overlay_id]["labels"]:
            box = Rect(*label["rect"])
            width, height = label["texture"]
            assert width <= box.width + 1 and height <= box.height + 1, (overlay_id, label)
            assert box.x >= new.x - 1 and box.right <= new.right + 1 and box.y >= new.y - 1 \
                and box.top <= new.top + 1, (overlay_id, label, new)
            assert label["font_px"] >= floor and " ".join(label["lines"]).split() == label["text"].split(), label
        assert [lb["font_px"] for lb in after[overlay_id]["labels"]] == \
            [lb["font_px"] for lb in before[overlay_id]["labels"]], (overlay_id, before, after)


LONG_NAME = "Maria-Alexandra Konstantinopoulou-Vanderbilt"
BIRTHDAY = f"Happy birthday, {LONG_NAME}! Cake in the kitchen at three, from all of us at Aurora"


@pytest.mark.slow
def test_a_long_celebration_message_is_shown_whole_on_at_most_two_lines(env, tmp_path):
    """The birthday message with a long name: wrapped at word boundaries in its band (at most two
    lines, at least 28 px at 1080 lines), every word of it drawn, no ellipsis."""
    confetti = overlay("birthday_confetti", {"messages": [BIRTHDAY], "density": 2})
    result = run(env, {"scenario": COMPOSITION + "composed", "size": SIZE, "slide": SLIDE,
                       "overlays": [confetti] + CAFE_PANELS, "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    (message,) = result["messages"]
    assert not message["shorten"], message
    assert " ".join(line.strip() for line in message["lines"]) == BIRTHDAY, message
    assert 1 <= len(message["lines"]) <= 2 and message["font_px"] >= 28 * (SIZE[1] - result["ticker"][3]) / 1080 - 0.5
    box = Rect(*message["rect"])
    assert message["texture"][1] <= box.height + 1 and message["texture"][0] <= box.width + 1, message


@pytest.mark.slow
def test_portrait_is_a_layout_of_its_own_bands_stacked_panels_landscape_sized(env, tmp_path):
    """1080x1920 with the café's clock and QR panels and a birthday: the slide takes the full width
    between the panels, its type the size it has on a landscape screen, the panels fit their corners
    (at most PANEL_MAX_SHARE of the width), the message is whole in the footer beside the QR panel,
    under the slide's bottom."""
    size = (1080, 1920)
    confetti = overlay("birthday_confetti", {"messages": [BIRTHDAY], "density": 2})
    result = run(env, {"scenario": COMPOSITION + "composed", "size": size, "slide": SLIDE,
                       "overlays": [confetti] + CAFE_PANELS, "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    free, content = Rect(*result["free"]), Rect(*result["content"])
    assert free.width == size[0] and free.height > 0.45 * content.height, free
    panels = [Rect(*p["rect"]) for p in result["panels"]]
    assert len(panels) == 2
    for panel in panels:
        assert panel.width <= size[0] * PANEL_MAX_SHARE + 1 and panel.x >= 0 and panel.right <= size[0], panel
        assert not panel.intersects(free), (panel, free)
    (message,) = result["messages"]
    assert " ".join(line.strip() for line in message["lines"]) == BIRTHDAY and not message["shorten"], message
    box = Rect(*message["rect"])  # the footer: beside the QR panel, up to MESSAGE_MAX_LINES lines
    assert box.top <= free.y + 1 and len(message["lines"]) <= MESSAGE_MAX_LINES, message
    assert all(not box.intersects(panel) for panel in panels), message
    marked = result["marked"]
    assert {m["role"] for m in marked} == {"title", "primary"}, marked
    for mark in marked:
        rect = Rect(*mark["rect"])
        assert all(not rect.intersects(panel) for panel in panels) and not rect.intersects(Rect(*message["rect"]))
        assert rect.x >= 0 and rect.right <= size[0] + 1 and rect.top <= size[1] + 1, mark
        # the landscape type scale (TYPE_SCALE: title 80, body 56 and up), not 1920/1080 times it
        expected = 80 if mark["role"] == "title" else 56 * 1.5
        assert mark["font_px"] <= expected * (size[1] - result["ticker"][3]) * size[0] / size[1] / 1080 + 0.5, mark


@pytest.mark.slow
def test_a_celebration_message_too_long_for_two_lines_scrolls_whole_on_one_line(env, tmp_path):
    """At 1080x1920 a message that does not fit its band on two lines at the body's minimum is laid
    out whole on one line and scrolls through the band on frame time: its text stays the whole
    message (never cut, never an ellipsis), its drawn part stays in its box, and over the frames it
    moves from its start to its end, so every character is shown."""
    size = (1080, 1920)
    message = " ".join([BIRTHDAY] * 2)  # 211 characters (a message holds 280)
    confetti = overlay("birthday_confetti", {"messages": [message], "density": 1})
    result = run(env, {"scenario": COMPOSITION + "scrolling", "size": size, "slide": SLIDE,
                       "overlays": [confetti] + CAFE_PANELS, "frames": 90, "dt": 0.5,
                       "png": os.environ.get("COMPOSITION_PNG", "")}, tmp_path)
    assert result["scrolls"] and result["text"] == message, result
    assert " ".join(result["lines"]).split() == message.split(), result
    assert len(result["lines"]) == 1 and result["font_px"] >= result["minimum"] - 0.01, result
    box, window = Rect(*result["rect"]), Rect(*result["window"])
    assert window.x >= box.x - 1 and window.right <= box.right + 1 and window.width <= size[0], (box, window)
    offsets = [f["offset"] for f in result["frames"]]
    assert all(f["text"] == message for f in result["frames"])
    assert min(offsets) == 0 and max(offsets) == pytest.approx(result["travel"]) and result["travel"] > 0, offsets
    assert len({f["pixels"] for f in result["frames"]}) > 10, "the drawn text does not move"
    assert "Traceback" not in result["log"], result["log"][-3000:]
