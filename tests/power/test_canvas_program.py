"""The power plugin on the display test plugin's canvas (:class:`~tests.display.canvas.CanvasServer`):
"on" goes on from the slide shown before "off", and collectors run while the display is off."""
from __future__ import annotations

import pytest
from websockets.sync.client import connect

from svc_display.testing.upstream import wait_for
from tests.display.canvas import PREVIEW_WIDTH, CanvasServer, canvas_env, colour_fraction, decode
from tests.power.helpers import power

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def programmed(tmp_path_factory):
    server = CanvasServer(canvas_env(tmp_path_factory.mktemp("power-program") / "data",
                                     SVC_DISPLAY_POWER_BACKEND="none")).start().seeded()
    yield server
    server.stop()


COLOURS = {"p0": (255, 0, 0), "p1": (0, 255, 0), "p2": (0, 0, 255)}
SLIDE_BOX = (0, 0, PREVIEW_WIDTH, PREVIEW_WIDTH * 9 // 16 * 9 // 10)  # above the ticker


def showing(frame) -> str | None:
    return next((slide for slide, colour in COLOURS.items()
                 if colour_fraction(frame, colour, 90, SLIDE_BOX) > 0.8), None)


def black(frame) -> bool:
    return max(high for _low, high in frame.getextrema()) < 20


def test_on_goes_on_from_the_slide_shown_before_off(programmed):
    key = programmed.admin
    programmed.put_program(key, screens=[
        {"id": slide, "screen_type": "message", "enabled": True, "dwell_seconds": 600, "frequency_weight": 1,
         "config_json": {"body": slide, "backgroundColor": "#%02x%02x%02x" % colour}}
        for slide, colour in COLOURS.items()])
    programmed.wait_until_showing(key, "p0")
    answer = programmed.request("POST", "/v1/display/navigation", key=key,
                                json={"surface": "screen", "direction": "forward"})
    assert answer.status_code == 202, answer.text
    wait_for(lambda: programmed.current_slide(key) not in (None, "p0"), timeout=30)
    second = programmed.current_slide(key)
    with connect(programmed.ws_url(programmed.ticket(key)), additional_headers={"Authorization": f"Bearer {key}"},
                 open_timeout=10, max_size=None) as ws:
        wait_for(lambda: showing(decode(ws.recv(timeout=30))) == second, timeout=60)  # the crossfade is over
        power(programmed, state="off")
        wait_for(lambda: black(decode(ws.recv(timeout=30))), timeout=60)
        power(programmed, state="on")
        while black(frame := decode(ws.recv(timeout=30))):
            pass  # black until the canvas is lit
        assert showing(frame) == second  # the first frame lit again shows the slide shown before off
    assert programmed.current_slide(key) == second
    power(programmed, state="auto")


def test_collectors_run_while_the_display_is_off(programmed, upstream):
    """Off darkens the canvas and the panel only: a collector run still reaches its (loopback)
    upstream and stores what it collected."""
    key = programmed.admin
    upstream.json("/api/quotes", [{"q": "Dark screens still learn.", "a": "Display", "h": ""}])
    assert power(programmed, state="off")["state"] == "off"
    wait_for(lambda: programmed.get("/v1/health").json()["display_power"] == "off", timeout=60)
    answer = programmed.request("PATCH", "/v1/integrations/quote_zenquotes", key=key,
                                json={"enabled": True, "base_url": upstream.url})
    assert answer.status_code == 200, answer.text
    run = programmed.request("POST", "/v1/integrations/quote_zenquotes/run", key=key, timeout=90)
    assert run.status_code == 200 and run.json()["status"] == "ok", run.text
    assert upstream.requests_to("/api/quotes")
    assert "1 new" in run.json()["message"]
    assert programmed.get("/v1/health").json()["display_power"] == "off"  # still off: nothing lit it
    power(programmed, state="auto")
