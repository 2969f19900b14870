"""The Power section and the display list's power line in Chromium, against real processes
(the fleet of tests/webapp/test_webapp.py: a headless display paired through its code)."""
from __future__ import annotations

import pytest

from tests.webapp.conftest import shoot
from tests.webapp.test_webapp import app, fleet  # noqa: F401  module-scoped fixtures, a fleet of this module's own

pytestmark = pytest.mark.slow


def test_schedule_edited_and_the_display_turned_off_and_back(app, fleet):  # noqa: F811
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    p.goto("/#/settings")
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.get_by_text("On, no schedule").wait_for()
    # a window on weekdays, then a second that overlaps it: refused next to that window
    power.get_by_role("button", name="Add a window").click()
    power.get_by_role("button", name="Save schedule").click()
    p.get_by_text("Power schedule saved.").wait_for()
    body = display.get("/v1/display/power", key=admin).json()
    assert body["schedule"] == [{"days": ["mon", "tue", "wed", "thu", "fri"], "on": "07:00", "off": "19:00"}]
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.get_by_role("button", name="Add a window").click()
    second = power.locator("fieldset.power-window").nth(1)
    second.get_by_label("On at").fill("18:00")
    second.get_by_label("Off at").fill("02:00")
    power.get_by_role("button", name="Save schedule").click()
    second.get_by_text("overlaps window 0").wait_for()
    assert display.get("/v1/display/power", key=admin).json()["schedule"] == body["schedule"]  # unchanged
    second.get_by_role("button", name="Remove window").click()
    # the other state now (the schedule's state depends on the day and hour the test runs):
    # the display list says so, then back to the schedule
    flip = "off" if display.get("/v1/display/power", key=admin).json()["state"] == "on" else "on"
    power.get_by_role("button", name=f"Turn {flip} now").click()
    p.get_by_text(f"The display is turning {flip}.").wait_for()
    state = display.get("/v1/display/power", key=admin).json()
    assert (state["state"], state["reason"]) == (flip, "manual")
    p.goto("/#/displays")
    card = p.locator("li.display", has_text="Lobby")
    card.get_by_text(f"{flip.capitalize()}, turned {flip} by hand until").wait_for()
    p.goto("/#/settings")
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.get_by_role("button", name="Back to schedule").click()
    p.get_by_text("The display follows its schedule again.").wait_for()
    assert display.get("/v1/display/power", key=admin).json()["override"] is None
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.get_by_text(", by schedule").wait_for()
    shoot(app, "power", power)
    assert not app.errors, app.errors
