"""Live preview in the page: a display drawing its canvas offscreen, added by pasting an API
key, streams JPEG frames through the controller's proxy WebSocket into the page's canvas;
the navigation buttons reach the display. The display also runs a third-party plugin whose
renderers fail (tests/display/failing_plugin.py): the Program page marks its slide (issue 34)."""
from __future__ import annotations

import re

import time

import pytest

from svc_display.testing.waiting import wait_for
from tests import REPO
from tests.controllers import ControllerProcess, running
from tests.display.canvas import ServeCanvas, canvas_env
from tests.distributions import write_distribution
from tests.webapp.conftest import Page, shoot

# an installed third-party plugin (an entry point) whose renderers fail
FAILING = "from tests.display.failing_plugin import register_overlay_types, register_screen_types, register_ticker_types\n"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("webapp-preview")
    controller = ControllerProcess(root / "ctl" / "data")
    plugin = write_distribution(root / "site", "failing", FAILING)
    controller.start()  # first: its address (a port the OS chose) is the display's allowed origin
    # The key is pasted, not paired here, so the display learns the controller's origin from its env.
    display = ServeCanvas(canvas_env(root / "screen" / "data", SVC_DISPLAY_HTTP_CORS_ORIGINS=controller.url),
                          extra_pythonpath=[plugin, str(REPO)])
    with running(display, controller):  # (the controller stops first: it holds connections to the display)
        display.start(timeout=90)
        admin = display.key("admin", "pasted-admin")
        r = display.request("POST", "/v1/screens", key=admin, json={
            "id": "welcome", "screen_type": "message", "dwell_seconds": 30,
            "config_json": {"title": "Welcome", "body": "Lunch is served in the atrium at noon.", "textAlign": "center"}})
        assert r.status_code == 201, r.text
        yield {"display": display, "ctl": controller, "admin": admin}


@pytest.fixture(scope="module")
def app(browser, fleet):
    """A page on the controller with the display added by pasting its admin key (the controller
    keeps the fleet, this browser the key: one page for the module's tests)."""
    page = Page(browser, fleet["ctl"].url)
    p = page.page
    p.goto("/")
    p.get_by_label("Name").fill("Canvas")
    p.get_by_label("Address").fill(fleet["display"].url)
    p.get_by_label("Paste an API key").check()
    p.get_by_label("API key", exact=True).fill(fleet["admin"])
    p.get_by_role("button", name="Add display").click()
    p.get_by_text("Canvas is paired (role admin).").wait_for()
    yield page
    page.close()


def test_live_preview_frames_are_drawn_in_the_page(app, fleet):
    page = app
    p = page.page
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


def test_the_program_page_marks_a_slide_whose_renderer_fails(app, fleet):
    """Issue 34: a slide of the plugin whose renderer raises is skipped by the canvas; the Program
    page marks its row with the display's reason (GET /v1/display/screen) and it can be deleted."""
    display, admin = fleet["display"], fleet["admin"]
    r = display.request("POST", "/v1/screens", key=admin, json={
        "id": "broken", "screen_type": "breaks_at_build", "dwell_seconds": 5, "config_json": {}})
    assert r.status_code == 201, r.text
    wait_for(lambda: [s for s in display.get("/v1/display/screen", key=admin).json()["skipped"]
                      if s["screen_id"] == "broken"], timeout=60, what="the broken slide skipped")
    page = app
    p = page.page
    p.goto("/#/program")
    row = p.locator("#program-screens tr[data-id='broken']")
    row.get_by_text("Not shown: ZeroDivisionError: division by zero").wait_for()
    assert p.locator("#program-screens tr.problem").count() == 1  # the working slide is not marked
    row.get_by_role("button", name=re.compile("^Delete ")).click()  # named after its type (issue 38: no ids as names)
    p.get_by_role("dialog").get_by_role("button", name="Delete").click()
    p.locator("#status", has_text=" deleted.").wait_for()
    assert display.get("/v1/screens/broken", key=admin).status_code == 404
    wait_for(lambda: not display.get("/v1/display/screen", key=admin).json()["skipped"], timeout=60,
             what="the report clearing once the slide is gone")
    assert not page.errors, page.errors
