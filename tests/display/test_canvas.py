"""The real canvas, rendered offscreen in one harness process for this module.

Frames come through the live-preview WebSocket, so these tests also exercise capture.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.display.fixture_plugin import OVERLAY_TYPES, SCREEN_TYPES
from tests.content_media import b64, video_bytes
from tests.display.canvas import (
    GREY,
    PREVIEW_FPS,
    PREVIEW_HEIGHT,
    PREVIEW_WIDTH,
    SLIDE_BOX,
    TICKER_BOX,
    CanvasServer,
    canvas_env,
    changed_fraction,
    colour_fraction,
    message,
    no_containment_error,
    overlay,
    show_only,
    wait_for_change,
)
from tests.display.web_page import ColourPage, closed_port, live_processes

# plugin_web pages: far from the grey slide, white text and every navy_coral accent
VIOLET, GREEN = (120, 0, 255), (0, 255, 0)

SCREEN_CONFIGS = {
    "message": {"body": "Hello", "backgroundColor": "#ff0000"},
    "clock": {"timeFormatPreset": "24h_hms"},
    "qr_code": {"payload": "https://example.invalid/qr"},
    "controller_invite": {"urlOverride": "https://controller.invalid"},
    "task_board": {"boardKey": "board1"},
    "plugin_template": {"pluginId": "tester", "template": "card", "data": {"title": "Plugin", "body": "from a plugin"},
                        "backgroundBlobKey": "test/blue.png"},
    "news_article": {},
}


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory):
    data_dir: Path = tmp_path_factory.mktemp("canvas") / "data"
    # the canvas's temporary files (web snapshot browser profiles) under a path of its own,
    # so the tests can see which browsers it runs
    tmp = str(tmp_path_factory.mktemp("canvas-tmp"))
    server = CanvasServer(canvas_env(data_dir, SVC_DISPLAY_CONTROLLER_PUBLIC_URL="https://controller.invalid",
                                     TMPDIR=tmp)).start().seeded()
    server.tmp = tmp
    yield server
    server.stop()


def blank_frame(canvas: CanvasServer):
    """A frame of the grey "blank" slide, taken once for the module: what a slide type's frame is
    compared with (a third of the slide's box must change). Taking it before each type cost two
    slide changes and a frame each (about 1.7 s, 34 tests)."""
    if getattr(canvas, "blank_frame", None) is None:
        show_only(canvas, message("blank", GREY))
        canvas.blank_frame = canvas.frame(canvas.admin)
    return canvas.blank_frame


@pytest.fixture(scope="module")
def web_page():
    """A plugin's web page on a real loopback server: solid violet."""
    page = ColourPage(VIOLET).start()
    yield page
    page.close()


def test_live_preview_status_reports_the_canvas(canvas):
    r = canvas.get("/v1/display/live-preview", key=canvas.admin)
    assert r.json() == {"configured": True, "enabled": True, "fps": PREVIEW_FPS, "width": PREVIEW_WIDTH,
                        "quality": 80}


def test_a_message_slide_shows_the_colour_its_config_asked_for(canvas):
    show_only(canvas, message("red", "#ff0000"))
    frame = canvas.frame(canvas.admin)
    assert frame.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
    assert colour_fraction(frame, (255, 0, 0), box=SLIDE_BOX) > 0.5


@pytest.mark.parametrize("screen_type", [
    "clock", "weather_current", "weather_forecast", "news_headlines", "news_article", "photo", "video", "joke",
    "trivia", "stock_quotes", "calendar_agenda", "calendar_month", "task_board", "alerts", "qr_code",
    "controller_invite", "plugin_template",
])
def test_every_screen_type_draws_something(canvas, screen_type):
    baseline = blank_frame(canvas)
    alerts = [{"id": "al1", "title": "Heads up", "body": "A test alert", "severity": "info"}] \
        if screen_type == "alerts" else []
    screen = {"id": f"s_{screen_type}", "screen_type": screen_type, "enabled": True, "dwell_seconds": 60,
              "config_json": SCREEN_CONFIGS.get(screen_type, {})}
    show_only(canvas, screen, alerts=alerts)
    frame = canvas.frame(canvas.admin)
    assert changed_fraction(baseline, frame, SLIDE_BOX) > 0.3, screen_type
    if screen_type == "photo":  # the seeded photo is green
        assert colour_fraction(frame, (30, 200, 30), box=SLIDE_BOX) > 0.3
    if screen_type == "plugin_template":
        assert colour_fraction(frame, (0, 0, 255), box=SLIDE_BOX) > 0.3
    if screen_type == "video":  # the seeded video: red, then blue (letterboxed 16:9 in 16:9)
        assert max(colour_fraction(frame, (220, 20, 20), box=SLIDE_BOX),
                   colour_fraction(frame, (20, 20, 220), box=SLIDE_BOX)) > 0.5


def test_a_video_uploaded_through_rest_plays(canvas):
    """A manual video upload (real MP4: 1.5 s green, then 1.5 s magenta, looping) shown by a
    ``video`` screen: frames over a few seconds show both colours, so it plays, not a poster."""
    clip = video_bytes([(20, 200, 20), (200, 20, 200)], seconds_each=1.5)
    r = canvas.request("POST", "/v1/curator/categories", key=canvas.admin, json={"id": "clips", "label": "Clips"})
    assert r.status_code == 201, r.text
    r = canvas.request("POST", "/v1/curator/manual/videos", key=canvas.admin, json={
        "category": "clips", "bytes_base64": b64(clip), "content_type": "video/mp4", "duration_seconds": 3,
        "alt_text": "Uploaded clip"})
    assert r.status_code == 201, r.text
    show_only(canvas, {"id": "clip", "screen_type": "video", "enabled": True, "dwell_seconds": 60,
                       "config_json": {"category": "clips", "muted": True, "showAttribution": False}})
    frames = canvas.frames(canvas.admin, count=40, skip=0)
    green = [colour_fraction(f, (20, 200, 20), box=SLIDE_BOX) for f in frames]
    magenta = [colour_fraction(f, (200, 20, 200), box=SLIDE_BOX) for f in frames]
    assert max(green) > 0.6 and max(magenta) > 0.6, (green, magenta)


def test_a_qr_code_configured_white_on_white_is_drawn_dark_on_light(canvas):
    """Issue 17 found a QR slide drawn white on white. (Fainter pairs are no case here: this
    decoder's adaptive threshold reads even yellow on white; the rule itself is tested in
    tests/settings/test_themes.py.)"""
    import zxingcpp

    payload = "https://example.invalid/scan"
    show_only(canvas, {"id": "qr_colours", "screen_type": "qr_code", "enabled": True, "dwell_seconds": 60,
                       "config_json": {"payload": payload, "foreground": "#ffffff", "background": "#ffffff"}})
    frame = canvas.frame(canvas.admin)
    assert payload in {code.text for code in zxingcpp.read_barcodes(frame)}


OVERLAY_CONFIGS = {
    "shape_rain": {"shapes": ["square"], "colors": ["#00ff00"], "density": 2.5, "fall_speed": 0.5},
    "birthday_confetti": {"messages": ["Happy birthday"], "shapes": ["circle"], "colors": ["#ff00ff"],
                          "density": 1.5, "message_interval_sec": 2, "fall_speed": 0.4, "opacity": 1},
    "bouncing_message": {"messages": ["Bounce"], "color": "#ffff00"},
    "falling_images": {"image_blob_keys": ["test/photo.png"], "density": 2},
    "matrix_rain": {},
    "edge_glow": {"color": "#ff0000", "thickness": 0.1},
    "floating_balloons": {"colors": ["#ffff00"], "density": 1.7},
    "cloud_drift": {"density": 1.3, "tint": "#ffffff"},
    "static_image": {"image_blob_key": "test/photo.png"},
    "digital_clock": {"time_format_preset": "24h_hms", "show_date": True},
    "analog_clock": {"show_seconds": True},
    "calendar_month": {},
    "calendar_upcoming": {},
    "stock_quote": {"symbol": "ACME"},
    "photo_slideshow": {"interval_sec": 2},
    "qr_code": {"payload": "https://example.invalid", "caption": "Scan"},
    "plugin_template": {"plugin_id": "tester", "template": "party", "data": {"title": "Party"}},
    "plugin_web": {"plugin_id": "tester", "size": 0.4},  # url: the web_page fixture's page
}
COLOUR_CHECKS = {"shape_rain": (0, 255, 0), "birthday_confetti": (255, 0, 255), "floating_balloons": (255, 255, 0),
                 "static_image": (30, 200, 30), "photo_slideshow": (30, 200, 30), "plugin_web": VIOLET}


@pytest.mark.parametrize("overlay_type", sorted(OVERLAY_CONFIGS))
def test_every_overlay_type_draws_over_the_slide(canvas, web_page, overlay_type):
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    config = OVERLAY_CONFIGS[overlay_type]
    if overlay_type == "plugin_web":
        config = {**config, "url": web_page.url}
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)], overlays=[overlay(overlay_type, config)])
    colour = COLOUR_CHECKS.get(overlay_type)
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.01, colour=colour)
    if colour:
        assert colour_fraction(baseline, colour, 150, SLIDE_BOX) < 0.001


def wait_for_colour(canvas: CanvasServer, colour, minimum: float, timeout: float) -> float:
    deadline = time.monotonic() + timeout
    fraction = 0.0
    while time.monotonic() < deadline:
        fraction = colour_fraction(canvas.frame(canvas.admin), colour, 90, SLIDE_BOX)
        if fraction > minimum:
            return fraction
        time.sleep(0.3)
    raise AssertionError(f"{colour} covers {fraction:.3f} of the slide, not {minimum}\n{canvas.log[-3000:]}")


def test_a_refreshing_web_overlay_follows_its_page_and_leaves_no_browser(canvas):
    page = ColourPage(VIOLET).start()
    try:
        show_only(canvas, message("calm", GREY))
        web = overlay("plugin_web", {"plugin_id": "tester", "url": page.url, "position": "fullscreen",
                                     "refresh_seconds": 10}, id="web_refresh")
        canvas.put_program(canvas.admin, screens=[message("calm", GREY)], overlays=[web])
        wait_for_colour(canvas, VIOLET, 0.9, timeout=20)  # the whole slide area, from the first snapshot
        page.colour = GREEN
        wait_for_colour(canvas, GREEN, 0.9, timeout=10 + 20)
        assert page.served >= 2
        canvas.put_program(canvas.admin, screens=[message("calm", GREY)], overlays=[])
        deadline = time.monotonic() + 10
        while live_processes(canvas.tmp) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert live_processes(canvas.tmp) == []
        served = page.served
        time.sleep(12)  # longer than the refresh period: the removed overlay takes no snapshot
        assert page.served == served
    finally:
        page.close()


def test_a_web_overlay_whose_page_does_not_load_names_the_page(canvas):
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    url = f"http://127.0.0.1:{closed_port()}/status"
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)],
                       overlays=[overlay("plugin_web", {"plugin_id": "tester", "url": url, "size": 0.4},
                                         id="web_down")])
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.01)  # the naming panel, at once
    expected = f"web snapshot of {url} failed: the page did not load (net::ERR_CONNECTION_REFUSED)"
    deadline = time.monotonic() + 30  # the snapshot runs on the overlay's own thread
    while expected not in canvas.log and time.monotonic() < deadline:
        time.sleep(0.2)
    assert expected in canvas.log
    no_containment_error(canvas, "plugin_web")


def test_what_draws_through_a_stencil_shows_in_the_preview_as_on_screen(canvas):
    """A ring drawn through a stencil is a ring in the preview frames, not its filled bounding box
    (the capture's Fbo has a stencil buffer, as the window has)."""
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)], overlays=[overlay("stencil_ring", {})])
    red = (214, 10, 10)  # 80 % red over the grey slide
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.01, colour=red)
    frame = canvas.frame(canvas.admin)
    cx, cy, side = PREVIEW_WIDTH // 2, PREVIEW_HEIGHT // 2, PREVIEW_HEIGHT // 10
    centre = (cx - side, cy - side, cx + side, cy + side)
    ring = (cx - PREVIEW_HEIGHT // 3, cy - PREVIEW_HEIGHT // 3, cx + PREVIEW_HEIGHT // 3, cy + PREVIEW_HEIGHT // 3)
    assert colour_fraction(frame, red, box=centre) < 0.02  # the ring's hole shows the slide
    assert colour_fraction(frame, (48, 48, 48), 40, box=centre) > 0.9
    assert 0.1 < colour_fraction(frame, red, box=ring) < 0.5  # a ring, not a filled square


def test_overlays_outside_their_window_or_switched_off_are_not_drawn(canvas):
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    rain = OVERLAY_CONFIGS["shape_rain"]
    today = time.gmtime()
    other_month = today.tm_mon % 12 + 1
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)],
                       overlays=[overlay("shape_rain", rain, start_month=other_month, start_day=1)])
    time.sleep(1.5)
    assert changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) < 0.005
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)], overlays=[overlay("shape_rain", rain)])
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.01)
    canvas.put_settings(canvas.admin, key_values={"display.overlay.enabled": "false"})
    try:
        time.sleep(1.5)
        assert changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) < 0.005
    finally:
        canvas.put_settings(canvas.admin, key_values={"display.overlay.enabled": "true"})


def test_a_slide_change_has_no_blank_frame(canvas):
    show_only(canvas, message("red", "#ff0000", dwell=1.5))
    canvas.put_program(canvas.admin, screens=[message("red", "#ff0000", dwell=1.5),
                                              message("blue", "#0000ff", dwell=1.5)])
    frames = canvas.frames(canvas.admin, count=45, skip=0, timeout=30)
    saw_red = saw_blue = False
    for frame in frames:
        red = colour_fraction(frame, (255, 0, 0), 90, SLIDE_BOX)
        blue = colour_fraction(frame, (0, 0, 255), 90, SLIDE_BOX)
        saw_red |= red > 0.5
        saw_blue |= blue > 0.5
        # every pixel of the slide area is red, blue or a blend of them: never the empty stage
        px = frame.crop(SLIDE_BOX).resize((32, 16)).load()
        for y in range(2, 14):
            for x in range(2, 30):
                r, g, b = px[x, y]
                assert r + b > 180 and g < 90, (r, g, b)
    assert saw_red and saw_blue


def test_navigation_moves_the_program_forward_and_back(canvas):
    screens = [message(f"n{i}", colour) for i, colour in enumerate(["#ff0000", "#00ff00", "#0000ff"])]
    show_only(canvas, screens[0])
    canvas.put_program(canvas.admin, screens=screens)
    time.sleep(0.8)
    first = canvas.programs(canvas.admin)[0]
    start = int(time.time() * 1000)
    r = canvas.request("POST", "/v1/display/navigation", key=canvas.admin,
                       json={"surface": "screen", "direction": "forward"})
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + 10
    forward = None
    while time.monotonic() < deadline and forward is None:
        forward = next((l for l in canvas.programs(canvas.admin) if l["reason"] == "navigation_forward"
                        and l["at_ms"] >= start - 50), None)
        time.sleep(0.2)
    assert forward is not None
    assert forward["slides"][0]["id"] != "n0"
    assert first["slides"][0]["id"] == "n0"
    r = canvas.request("POST", "/v1/display/navigation", key=canvas.admin,
                       json={"surface": "screen", "direction": "back"})
    assert r.status_code == 202
    back = canvas.wait_for_slide(canvas.admin, "n0", reason="navigation_back", after_ms=start)
    assert back["slides"][0]["screen_type"] == "message"
    r = canvas.request("POST", "/v1/display/navigation", key=canvas.admin,
                       json={"surface": "ticker", "direction": "forward"})
    assert r.status_code == 202


def test_the_ticker_scrolls_and_reports_its_program(canvas):
    tape = {"id": "tape1", "ticker_type": "text", "enabled": True, "frequency_weight": 1, "sort_order": 0,
            "config_json": {"text": "SCROLLING TEXT " * 3}}
    clock_tape = {"id": "tape2", "ticker_type": "time", "enabled": True, "frequency_weight": 1, "sort_order": 1,
                  "config_json": {"timeFormatPreset": "24h_hms", "labelPrefix": "Now"}}
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)], tapes=[tape, clock_tape])
    deadline = time.monotonic() + 10
    items = []
    while time.monotonic() < deadline and not items:
        r = canvas.get("/v1/telemetry/ticker-programs?limit=1", key=canvas.admin)
        items = r.json()["items"][0]["items"] if r.json()["items"] else []
        if not any(i["kind"] == "text" for i in items):
            items = []
        time.sleep(0.2)
    assert items[0]["body"].startswith("SCROLLING TEXT")
    assert items[1]["kind"] == "time" and items[1]["body"].startswith("Now ")
    time.sleep(2.0)
    a = canvas.frame(canvas.admin)
    time.sleep(0.7)
    b = canvas.frame(canvas.admin)
    assert changed_fraction(a, b, TICKER_BOX, threshold=90) > 0.01
    assert changed_fraction(a, b, SLIDE_BOX) < 0.01


def first(items: list[dict], **where) -> dict:
    found = [item for item in items if all(test(item[key]) for key, test in where.items())]
    assert found, f"nothing in {items[-10:]} with {list(where)}"
    return found[0]


def test_program_changes_through_rest_reach_the_canvas_by_their_event(canvas):
    """The write's change event reaches the UI thread at the next frame (the display bus's
    trigger) and a load after it brings the new slide: counted in frames and loads by the test
    plugin's ``event_witness`` layer, not timed."""
    show_only(canvas, message("before", "#ff0000"))
    since = canvas.get("/v1/test-display/witness", key=canvas.admin).json()["frame"]
    canvas.put_program(canvas.admin, screens=[message("after", "#00ff00")])
    line = canvas.wait_for_slide(canvas.admin, "after")  # a stall bound, not a timing target
    assert line["reason"] == "content_changed"
    seen = canvas.get("/v1/test-display/witness", key=canvas.admin).json()
    published = first(seen["published"], topic="screens".__eq__, frame=lambda f: f >= since)
    delivered = first(seen["delivered"], topic="screens".__eq__, frame=lambda f: f >= published["frame"])
    assert delivered["frame"] - published["frame"] <= 2  # the bus runs it at the next frame
    shown = first(seen["lines"], slides=["after"].__eq__, reason="content_changed".__eq__,
                  frame=lambda f: f >= delivered["frame"])
    # a load after the delivery (the write was committed before its event) brought the new program
    first(seen["loads"], frame=lambda f: delivered["frame"] <= f <= shown["frame"], screens=["after"].__eq__)


def test_the_time_tape_is_built_again_in_place_while_it_scrolls(canvas):
    """``refresh_seconds`` (the time tape: 1): the marquee builds the shown tape again and
    replaces its text within the same cycle."""
    clock_tape = {"id": "seconds", "ticker_type": "time", "enabled": True, "frequency_weight": 1,
                  "config_json": {"timeFormatPreset": "24h_hms", "labelPrefix": "Now"}}
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)], tapes=[clock_tape])
    deadline = time.monotonic() + 20  # a stall bound: the seconds turn every second
    texts: dict[int, set[str]] = {}
    while time.monotonic() < deadline and not any(len(shown) >= 3 for shown in texts.values()):
        texts = {}
        for seen in canvas.get("/v1/test-display/witness", key=canvas.admin).json()["segments"]:
            if seen["tape"] == "seconds":
                texts.setdefault(seen["cycle"], set()).add(seen["text"])
        time.sleep(0.5)
    in_one_cycle = max(texts.values(), key=len, default=set())
    assert len(in_one_cycle) >= 3, texts
    assert all(text.startswith("Now ") and len(text.split()[-1]) == 8 for text in in_one_cycle)  # HH:MM:SS


def test_a_raising_renderer_is_contained(canvas):
    canvas.put_program(canvas.admin, screens=[{"id": "bad", "screen_type": "boom", "enabled": True,
                                               "dwell_seconds": 60, "frequency_weight": 100},
                                              message("good", "#00ff00", frequency_weight=1)],
                       overlays=[overlay("boom_overlay", {}), overlay("boom_tick", {})])
    canvas.wait_for_slide(canvas.admin, "good")
    time.sleep(1.0)
    assert "renderer 'boom' of plugin 'display_test_types' failed" in canvas.log
    assert "renderer 'boom_overlay' of plugin 'display_test_types' failed" in canvas.log
    assert "renderer 'boom_tick' of plugin 'display_test_types' failed" in canvas.log
    assert "boom_tick disposed" in canvas.log  # removed and disposed (its threads, decoders, browsers)
    assert canvas.process.poll() is None
    assert colour_fraction(canvas.frame(canvas.admin), (0, 255, 0), box=SLIDE_BOX) > 0.5


def test_a_served_canvas_reports_failing_renderers_and_the_cli_lists_the_plugin_degraded(canvas):
    """Issue 34 on ``svc-display serve``: the screen's report over HTTP (any valid key: a viewer's)
    names the failing renderers and the skipped slide, ``GET /v1/plugins`` and ``svc-display plugins
    list`` (the state file the server rewrites when a renderer starts failing) say ``degraded``."""
    import json

    from svc_display.testing.waiting import wait_for

    canvas.put_program(canvas.admin, screens=[{"id": "bad", "screen_type": "boom", "enabled": True,
                                               "dwell_seconds": 60, "frequency_weight": 1},
                                              message("good", "#00ff00")],
                       overlays=[overlay("boom_overlay", {})])
    viewer = canvas.key("viewer", "screen-watcher")

    def report() -> dict | None:
        answer = canvas.get("/v1/display/screen", key=viewer).json()
        failing = {(item["kind"], item["type"]) for item in answer["failing"]}
        return answer if {("screen", "boom"), ("overlay", "boom_overlay")} <= failing else None

    screen = wait_for(report, timeout=30, what="the failing renderers in the screen's report")
    assert screen["state"] == "showing" and screen["current"]["screen_id"] == "good", screen
    assert [(item["screen_id"], item["reason"]) for item in screen["skipped"]] == [("bad", "renderer_failed")]
    assert {item["plugin"] for item in screen["failing"]} == {"display_test_types"}
    rows = {row["id"]: row for row in canvas.get("/v1/plugins", key=canvas.admin).json()["items"]}
    assert rows["display_test_types"]["state"] == "degraded", rows["display_test_types"]
    assert "boom" in rows["display_test_types"]["reason"]

    def listed() -> dict | None:
        out = canvas.cli("plugins", "list", "--json")
        row = next(r for r in json.loads(out.stdout) if r["id"] == "display_test_types")
        return row if row["state"] == "degraded" else None

    assert "boom" in wait_for(listed, timeout=30, what="plugins list saying degraded")["reason"]
    assert canvas.get("/v1/display/screen").status_code == 401  # any valid key, not none
    canvas.put_program(canvas.admin, screens=[message("good", "#00ff00")])  # the operator removes them
    cleared = wait_for(lambda: (lambda a: a if not a["failing"] and not a["skipped"] else None)(
        canvas.get("/v1/display/screen", key=viewer).json()), timeout=30, what="the report clearing")
    assert cleared["state"] == "showing"


def test_a_failing_layer_is_contained_and_the_others_keep_drawing(canvas):
    show_only(canvas, message("green", "#00ff00"))
    # the test plugin's layer raised in its first tick, at canvas start: named, removed, disposed
    assert "display: layer 'boom_layer' of plugin 'display_test_types' failed (tick)" in canvas.log
    assert "boom_layer disposed" in canvas.log
    assert canvas.process.poll() is None
    assert colour_fraction(canvas.frame(canvas.admin), (0, 255, 0), box=SLIDE_BOX) > 0.5


def test_the_adoption_card_draws_above_the_slide(canvas):
    from tests.trust.helpers import wait_for_code

    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    asked = canvas.request("POST", "/v1/adoption/request",
                           json={"identifier": "card-tablet", "role": "operator"})
    assert asked.status_code == 200, asked.text
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.2)

    def amber() -> float:  # the corner panel's challenge text is amber on a near-black panel
        return colour_fraction(canvas.frame(canvas.admin), (255, 217, 77), 120, SLIDE_BOX)

    # the first changed frame can be the slide re-fitting beside the panel, before the panel is
    # drawn: wait for the panel itself (a frame after a frame, not a time)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and amber() <= 0.001:
        time.sleep(0.2)
    assert amber() > 0.001
    confirmed = canvas.request("POST", "/v1/adoption/confirm", json={
        "identifier": "card-tablet", "challenge_code": wait_for_code(canvas, "card-tablet")})
    assert confirmed.status_code == 200, confirmed.text
    deadline = time.monotonic() + 10  # confirmed: the card and its alert leave the screen
    while time.monotonic() < deadline and changed_fraction(baseline, canvas.frame(canvas.admin),
                                                           SLIDE_BOX) > 0.005:
        time.sleep(0.2)
    assert changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) <= 0.005


def test_the_theme_setting_changes_the_canvas(canvas):
    canvas.put_program(canvas.admin, screens=[])
    time.sleep(1.0)
    before = canvas.frame(canvas.admin)
    canvas.put_settings(canvas.admin, settings={"display_custom_themes": [
        {"id": "lime", "label": "Lime", "preview": {"display": ["#00ff00", "#00ff00"],
                                                    "primaryContainer": ["#000000", "#00aa00"],
                                                    "secondaryContainer": ["#000000", "#ffffff"],
                                                    "accents": ["#ff0000", "#00ff00", "#0000ff", "#ffff00"]}}],
        "display_theme_id": "lime"})
    try:
        frame = wait_for_change(canvas, before, SLIDE_BOX, 0.5)
        assert colour_fraction(frame, (0, 255, 0), box=SLIDE_BOX) > 0.8
    finally:
        canvas.put_settings(canvas.admin, settings={"display_theme_id": "navy_coral"})


def test_the_live_preview_stream(canvas):
    key = canvas.admin
    ticket = canvas.ticket(key)
    with connect(canvas.ws_url(ticket), additional_headers={"Authorization": f"Bearer {key}"}, max_size=None) as ws:
        ws.recv(timeout=10)
        start, count = time.monotonic(), 0
        while time.monotonic() - start < 3:
            from tests.display.canvas import decode

            image = decode(ws.recv(timeout=10))
            assert image.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
            count += 1
        rate = count / (time.monotonic() - start)
    assert PREVIEW_FPS * 0.4 <= rate <= PREVIEW_FPS * 1.5, rate
    # capture stops when the last viewer leaves
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and \
            canvas.log.count("capture started") != canvas.log.count("capture stopped"):
        time.sleep(0.2)
    assert canvas.log.count("capture started") == canvas.log.count("capture stopped") > 0
    # the ticket was single use
    with pytest.raises(InvalidStatus):
        with connect(canvas.ws_url(ticket), additional_headers={"Authorization": f"Bearer {key}"}):
            pass
    # tickets are credentials: never in the log
    assert ticket not in canvas.log
    assert "ticket=<redacted>" in canvas.log


def test_a_browser_passes_its_key_as_a_subprotocol(canvas):
    key = canvas.admin
    with connect(canvas.ws_url(canvas.ticket(key)), subprotocols=[f"bearer.{key}"], max_size=None) as ws:
        assert ws.subprotocol == f"bearer.{key}"
        from tests.display.canvas import decode

        assert decode(ws.recv(timeout=10)).size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
    with pytest.raises(InvalidStatus):
        with connect(canvas.ws_url(canvas.ticket(key)), subprotocols=["bearer.svc_wrong"]):
            pass


def test_the_live_preview_socket_needs_key_ticket_and_an_allowed_origin(canvas):
    key = canvas.admin
    with pytest.raises(InvalidStatus):  # no bearer key
        with connect(canvas.ws_url(canvas.ticket(key))):
            pass
    with pytest.raises(InvalidStatus):  # no ticket
        with connect(canvas.ws_url(""), additional_headers={"Authorization": f"Bearer {key}"}):
            pass
    with pytest.raises(InvalidStatus):  # a foreign origin
        with connect(canvas.ws_url(canvas.ticket(key)), origin="https://evil.invalid",
                     additional_headers={"Authorization": f"Bearer {key}"}):
            pass
    viewer = canvas.key("viewer")  # lacks navigation.control
    r = canvas.request("POST", "/v1/display/live-preview/session", key=viewer)
    assert r.status_code == 403
    with pytest.raises(InvalidStatus):  # another client's ticket
        with connect(canvas.ws_url(canvas.ticket(key)), additional_headers={"Authorization": f"Bearer {viewer}"}):
            pass


def test_the_live_preview_socket_accepts_the_displays_own_origins(canvas):
    key = canvas.admin
    for own in (f"http://127.0.0.1:{canvas.port}", f"http://localhost:{canvas.port}"):
        url = canvas.ws_url(canvas.ticket(key))
        if "localhost" in own:
            url = url.replace("127.0.0.1", "localhost")
        with connect(url, origin=own, additional_headers={"Authorization": f"Bearer {key}"},
                     open_timeout=10, max_size=None) as ws:
            from tests.display.canvas import decode

            assert decode(ws.recv(timeout=10)).size[0] == PREVIEW_WIDTH
    with pytest.raises(InvalidStatus):  # this machine, but not the port the display serves on
        with connect(canvas.ws_url(canvas.ticket(key)), origin=f"http://127.0.0.1:{canvas.port + 1}",
                     additional_headers={"Authorization": f"Bearer {key}"}):
            pass


def test_an_offscreen_canvas_writes_the_adoption_code_to_the_console(canvas):
    from tests.trust.helpers import wait_for_code

    asked = canvas.request("POST", "/v1/adoption/request", json={"identifier": "offscreen-tablet", "role": "viewer"})
    assert asked.status_code == 200, asked.text
    code = wait_for_code(canvas, "offscreen-tablet")  # no window anyone looks at: the console shows it
    assert code
    # confirmed, so that its card (drawn above everything for the challenge's 5 minutes) does not
    # cover the middle of the screen for the module's later tests
    confirmed = canvas.request("POST", "/v1/adoption/confirm", json={
        "identifier": "offscreen-tablet", "challenge_code": code})
    assert confirmed.status_code == 200, confirmed.text


def test_the_screen_text_scale_changes_the_slide(canvas):
    show_only(canvas, message("words", GREY))
    before = canvas.frame(canvas.admin)
    canvas.put_settings(canvas.admin, settings={"display_text_scale_screen": 2.5})
    try:
        wait_for_change(canvas, before, SLIDE_BOX, 0.01)
        assert canvas.programs(canvas.admin)[0]["reason"] in ("settings_changed", "dwell")
    finally:
        canvas.put_settings(canvas.admin, settings={"display_text_scale_screen": 1.0})


def test_alerts_are_drawn_above_the_slide(canvas):
    show_only(canvas, message("bright", "#f0f0f0"))
    baseline = canvas.frame(canvas.admin)
    alert = {"id": "al1", "title": "Fire drill", "body": "At noon", "severity": "critical", "priority": 5,
             "qr_payload": "https://example.invalid/drill"}
    canvas.put_program(canvas.admin, screens=[message("bright", "#f0f0f0")], alerts=[alert])
    frame = wait_for_change(canvas, baseline, SLIDE_BOX, 0.05)
    # the critical alert is a band in its severity's red over the grey slide
    assert colour_fraction(frame, (217, 26, 26), 40, SLIDE_BOX) > 0.05
    canvas.put_program(canvas.admin, screens=[message("bright", "#f0f0f0")], alerts=[])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) > 0.005:
        time.sleep(0.2)
    assert changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) <= 0.005


@pytest.mark.parametrize("screen_type", [t for t in SCREEN_TYPES if t.id != "message"], ids=lambda t: t.id)
def test_every_builtin_screen_example_config_renders(canvas, screen_type):
    r = canvas.request("POST", "/v1/test-display/seed-examples", key=canvas.admin)
    assert r.status_code == 200, r.text
    baseline = blank_frame(canvas)
    alerts = [{"id": "al2", "title": "Storm", "body": "Stay inside", "severity": "warning"}] \
        if screen_type.id == "alerts" else []
    screen = {"id": f"example_{screen_type.id}", "screen_type": screen_type.id, "enabled": True,
              "dwell_seconds": 60, "config_json": screen_type.example_config}
    show_only(canvas, screen, alerts=alerts)
    assert changed_fraction(baseline, canvas.frame(canvas.admin), SLIDE_BOX) > 0.3, screen_type.id
    no_containment_error(canvas, screen_type.id)


def test_the_message_example_config_renders(canvas):
    example = next(t for t in SCREEN_TYPES if t.id == "message").example_config
    show_only(canvas, {"id": "example_message", "screen_type": "message", "enabled": True, "dwell_seconds": 60,
                       "config_json": {**example, "backgroundColor": "#00ff00"}})
    assert colour_fraction(canvas.frame(canvas.admin), (0, 255, 0), box=SLIDE_BOX) > 0.5
    no_containment_error(canvas, "message")


@pytest.mark.parametrize("overlay_type", OVERLAY_TYPES, ids=lambda t: t.id)
def test_every_builtin_overlay_example_config_renders(canvas, overlay_type):
    r = canvas.request("POST", "/v1/test-display/seed-examples", key=canvas.admin)
    assert r.status_code == 200, r.text
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)],
                       overlays=[overlay(overlay_type.id, overlay_type.example_config)])
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.004)
    no_containment_error(canvas, overlay_type.id)


def test_shutdown_disposes_what_is_on_screen(tmp_path):
    """SIGTERM: the display disposes the overlays it shows (a video decoder or a web
    snapshot's browser must not outlive it)."""
    server = CanvasServer(canvas_env(tmp_path / "data")).start()
    try:
        admin = server.key("admin")
        server.put_program(admin, screens=[message("calm", GREY)], overlays=[overlay("logs_dispose", {})])
        server.wait_until_showing(admin, "calm")
        time.sleep(2)  # the loader builds the overlay within a program refresh
    finally:
        server.stop()
    assert "overlay o_logs_dispose disposed" in server.log
