"""End to end with only the builtin plugins: a real ``svc-display serve`` (canvas offscreen)
configured through the REST API, checked through telemetry and live-preview pixels.

No display test plugin here: the screen, overlay and ticker types, their schemas, the
entity program source and the lazily attached renderers are the ones a device runs."""
from __future__ import annotations

import time

import pytest

from tests.display.canvas import CANVAS_SIZE, PREVIEW_WIDTH, ServeCanvas, canvas_env, changed_fraction, \
    colour_fraction
from tests.integrations.upstream import wait_for

PREVIEW_HEIGHT = PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0]
SLIDE_BOX = (0, 0, PREVIEW_WIDTH, int(PREVIEW_HEIGHT * 0.9))
TICKER_BOX = (0, int(PREVIEW_HEIGHT * 0.94), PREVIEW_WIDTH, PREVIEW_HEIGHT)
MAGENTA, YELLOW = (255, 0, 255), (255, 255, 0)


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory):
    server = ServeCanvas(canvas_env(tmp_path_factory.mktemp("e2e") / "data")).start(timeout=60)
    server.admin = server.key("admin")
    yield server
    server.stop()


def post(device: ServeCanvas, path: str, body: dict, status: int = 201) -> dict:
    r = device.request("POST", path, key=device.admin, json=body)
    assert r.status_code == status, r.text
    return r.json()


def test_a_message_screen_created_through_rest_shows_its_configured_colours(device):
    body = {"id": "e2e_message", "screen_type": "message", "dwell_seconds": 60,
            "config_json": {"title": "Lobby", "body": "Configured through REST", "textAlign": "center",
                            "backgroundColor": "#ff00ff", "textColor": "#00ff00"}}
    post(device, "/v1/screens", body)
    device.wait_until_showing(device.admin, "e2e_message", timeout=20)
    line = device.programs(device.admin)[0]
    assert line["slides"][0]["screen_type"] == "message"
    time.sleep(1.2)  # the crossfade
    frame = device.frame(device.admin)
    assert colour_fraction(frame, MAGENTA, box=SLIDE_BOX) > 0.6
    # the text colour (green-dominant pixels: JPEG blends thin glyphs with the background),
    # centred as textAlign asks
    text = [x for y in range(SLIDE_BOX[3]) for x in range(SLIDE_BOX[2])
            if (lambda p: p[1] > p[0] + 30 and p[1] > p[2] + 30)(frame.getpixel((x, y)))]
    assert len(text) > 60
    assert abs(sum(text) / len(text) - PREVIEW_WIDTH / 2) < PREVIEW_WIDTH * 0.1
    assert "renderer 'message'" not in device.log


def test_an_overlay_created_through_rest_draws_over_the_slide(device):
    device.wait_until_showing(device.admin, "e2e_message", timeout=20)
    baseline = device.frame(device.admin)
    assert colour_fraction(baseline, YELLOW, 150, SLIDE_BOX) < 0.001
    today = time.gmtime()
    post(device, "/v1/display/overlays", {
        "id": "e2e_confetti", "overlay_type": "birthday_confetti", "label": "e2e", "start_month": today.tm_mon,
        "start_day": today.tm_mday,
        "config_json": {"shapes": ["rect"], "colors": ["#ffff00"], "density": 3, "fall_speed": 0.3,
                        "opacity": 1, "messages": ["Happy birthday"]}}, status=200)  # an upsert
    wait_for(lambda: colour_fraction(device.frame(device.admin), YELLOW, 150, SLIDE_BOX) > 0.01, interval=0.3)
    assert "renderer 'birthday_confetti'" not in device.log


def test_a_text_tape_created_through_rest_scrolls_in_the_ticker(device):
    post(device, "/v1/ticker/tapes", {"id": "e2e_tape", "ticker_type": "text",
                                      "config_json": {"text": "END TO END TAPE"}})

    def items():
        r = device.get("/v1/telemetry/ticker-programs?limit=5", key=device.admin)
        for program in r.json()["items"]:
            found = [i for i in program["items"] if i["body"] == "END TO END TAPE"]
            if found:
                return found
        return None

    found = wait_for(items, timeout=30, interval=0.3)
    assert found[0]["kind"] == "text"
    time.sleep(1.0)
    a = device.frame(device.admin)
    time.sleep(0.7)
    b = device.frame(device.admin)
    assert changed_fraction(a, b, TICKER_BOX, threshold=90) > 0.01
    assert "renderer 'text'" not in device.log
