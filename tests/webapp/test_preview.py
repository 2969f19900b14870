"""Live preview in the page: a display drawing its canvas offscreen, added by pasting an API
key, streams JPEG frames through the controller's proxy WebSocket into the page's canvas;
the navigation buttons reach the display."""
from __future__ import annotations

import time

import pytest

from tests.controller.conftest import ControllerProcess, running
from tests.display.canvas import ServeCanvas, canvas_env
from tests.webapp.conftest import Page, shoot

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("webapp-preview")
    controller = ControllerProcess(root / "ctl" / "data")
    # The key is pasted, not paired here, so the display learns the controller's origin from its env.
    display = ServeCanvas(canvas_env(root / "screen" / "data", SVC_DISPLAY_HTTP_CORS_ORIGINS=controller.url))
    with running(display, controller):
        display.start(timeout=90)
        controller.start()
        admin = display.key("admin", "pasted-admin")
        r = display.request("POST", "/v1/screens", key=admin, json={
            "id": "welcome", "screen_type": "message", "dwell_seconds": 30,
            "config_json": {"title": "Welcome", "body": "Lunch is served in the atrium at noon.", "textAlign": "center"}})
        assert r.status_code == 201, r.text
        yield {"display": display, "ctl": controller, "admin": admin}


def test_live_preview_frames_are_drawn_in_the_page(browser, fleet):
    page = Page(browser, fleet["ctl"].url)
    p = page.page
    try:
        p.goto("/")
        p.get_by_label("Name").fill("Canvas")
        p.get_by_label("Address").fill(fleet["display"].url)
        p.get_by_label("Paste an API key").check()
        p.get_by_label("API key", exact=True).fill(fleet["admin"])
        p.get_by_role("button", name="Add display").click()
        p.get_by_text("Canvas is paired (role admin).").wait_for()

        p.goto("/#/preview")
        canvas = p.locator("#preview-canvas")
        deadline = time.monotonic() + 60
        while int(canvas.get_attribute("data-frames") or 0) < 3:
            assert time.monotonic() < deadline, p.locator("#preview-state").inner_text()
            time.sleep(0.3)
        # the picture really is drawn: the canvas holds a frame of the display's size with varied pixels
        drawn = p.evaluate("""() => {
            const c = document.querySelector('#preview-canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] >> 4 << 8 | d[i + 1] >> 4 << 4 | d[i + 2] >> 4);
            return {width: c.width, height: c.height, colours: seen.size};
        }""")
        assert drawn["width"] == 320 and drawn["colours"] > 3, drawn
        assert canvas.get_attribute("aria-label") == "Live picture of Canvas"
        shoot(page, "preview")

        p.get_by_role("button", name="Slide forward").click()
        p.get_by_text("Slide moved forward.").wait_for()
        p.get_by_role("button", name="Stop").click()
        p.get_by_text("Stopped.").wait_for()
        assert not page.errors, page.errors
    finally:
        page.close()
