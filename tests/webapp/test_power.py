"""The Power section and the display list's power line in Chromium, against real processes
(a fleet of its own, tests/webapp/fleet.py: a headless display paired through its code)."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from tests.webapp.conftest import shoot
from tests.webapp.fleet import app, fleet  # noqa: F401  module-scoped fixtures, a fleet of this module's own

pytestmark = pytest.mark.slow


def at_the_display(display, admin, weekday: int, hour: int) -> dt.datetime:
    """The next ``weekday`` (0 = Monday) at ``hour``:00 in the display's zone: the browser's clock
    is set there, as the web app reads the time of day from it."""
    zone = ZoneInfo(display.get("/v1/display/settings", key=admin).json().get("display_timezone") or "UTC")
    now = dt.datetime.now(zone)
    day = now.date() + dt.timedelta(days=(weekday - now.weekday()) % 7)
    return dt.datetime(day.year, day.month, day.day, hour, tzinfo=zone)


def test_saving_a_schedule_that_turns_the_panel_off_at_once_asks_first(app, fleet):  # noqa: F811
    """Mon-Fri 07:00-19:00 saved on a Sunday evening turned the panel off on the click, unsaid."""
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    assert display.request("PUT", "/v1/display/power/schedule", key=admin, json={"schedule": []}).status_code == 200
    display.request("POST", "/v1/display/power", key=admin, json={"state": "auto"})
    p.clock.set_fixed_time(at_the_display(display, admin, 6, 20))  # Sunday 20:00 at the display
    p.goto("/#/settings")
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.get_by_text("On, no schedule").wait_for()
    power.get_by_role("button", name="Add a window").click()
    window = power.locator("fieldset.power-window").first
    on_box, off_box = window.get_by_label("On at").bounding_box(), window.get_by_label("Off at").bounding_box()
    assert on_box["y"] == off_box["y"] and on_box["height"] == off_box["height"] >= 40  # aligned, full height
    power.get_by_role("button", name="Save schedule").click()
    dialog = p.get_by_role("dialog", name="Turn the display off now?")
    dialog.get_by_text("It is Sunday 20:00 at the display").wait_for()
    shoot(app, "power-confirm", dialog)
    dialog.get_by_role("button", name="Cancel").click()
    p.get_by_text("Not saved: the display stays on.").wait_for()
    assert display.get("/v1/display/power", key=admin).json()["schedule"] == []
    power.get_by_role("button", name="Save schedule").click()
    p.get_by_role("dialog", name="Turn the display off now?").get_by_role("button", name="Save and turn off").click()
    p.get_by_text("Power schedule saved.").wait_for()
    assert display.get("/v1/display/power", key=admin).json()["schedule"] == [
        {"days": ["mon", "tue", "wed", "thu", "fri"], "on": "07:00", "off": "19:00"}]
    # inside a window (Monday 10:00), saving asks nothing
    p.clock.set_fixed_time(at_the_display(display, admin, 0, 10))
    p.reload()
    power = p.locator("section", has=p.get_by_role("heading", name="Power"))
    power.locator("fieldset.power-window").first.get_by_label("Off at").fill("18:00")
    power.get_by_role("button", name="Save schedule").click()
    p.get_by_text("Power schedule saved.").wait_for()
    assert p.get_by_role("dialog").count() == 0
    assert display.request("PUT", "/v1/display/power/schedule", key=admin, json={"schedule": []}).status_code == 200
    p.goto("/#/displays")  # the next test opens the settings page afresh
    assert not app.errors, app.errors


def test_schedule_edited_and_the_display_turned_off_and_back(app, fleet):  # noqa: F811
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    p.clock.set_fixed_time(at_the_display(display, admin, 0, 10))  # inside the window it saves: nothing to confirm
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
