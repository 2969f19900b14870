"""The web app tests' fleet: a headless display and a controller (real processes), and a
Chromium page on the controller with the display paired through the code on its screen.
Module-scoped fixtures: a test module that imports them gets a fleet of its own."""
from __future__ import annotations

import pytest

from tests.controllers import ControllerProcess, running, start_display
from tests.webapp.conftest import Page, challenge_code


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("webapp")
    display = start_display(root / "lobby")
    controller = ControllerProcess(root / "ctl" / "data")
    with running(display, controller):
        controller.start()
        yield {"display": display, "ctl": controller, "admin": display.key("admin", "test-admin")}


@pytest.fixture(scope="module")
def app(browser, fleet):
    """A page on the controller with the display paired through the on-screen code."""
    page = Page(browser, fleet["ctl"].url)
    p = page.page
    p.goto("/")
    p.get_by_role("heading", name="Displays").wait_for()
    p.get_by_label("Name").fill("Lobby")
    p.get_by_label("Address").fill(fleet["display"].url)
    p.get_by_label("Role to request").select_option("admin")
    p.get_by_role("button", name="Request a code").click()
    code_box = p.get_by_label("Code shown on the display")
    code_box.wait_for()
    identifier, code = challenge_code(fleet["display"], "svc-controller-lobby-")
    code_box.fill(code.lower())  # typed as a person might: lower case is fine
    p.get_by_role("button", name="Pair").click()
    p.get_by_text("Lobby is paired (role admin).").wait_for()
    page.identifier = identifier
    yield page
    page.close()
