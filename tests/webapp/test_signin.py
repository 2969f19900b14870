"""With the controller's sign-in on: the sign-in page, a refused password shown in words, the
app after signing in (writes through it carry the CSRF header and succeed; the same write
without the header is refused), and signing out."""
from __future__ import annotations

import pytest

from tests.controllers import CSRF, ControllerProcess, running, start_display
from tests.webapp.conftest import Page, shoot

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("webapp-auth")
    display = start_display(root / "hall")
    ctl = ControllerProcess(root / "ctl" / "data", {"SVC_CONTROLLER_AUTH_ENABLED": "1",
                                                    "SVC_CONTROLLER_SESSION_SECRET": "s" * 40})
    ctl.data_dir.parent.mkdir(parents=True)
    out = ctl.cli("users", "create", "--username", "ann", input=PASSWORD + "\n")
    assert out.returncode == 0, out.stderr
    with running(display, ctl):
        ctl.start()
        yield {"ctl": ctl, "display": display, "key": display.key("admin", "pasted-admin")}


def test_sign_in_work_and_sign_out(browser, fleet):
    controller, display = fleet["ctl"], fleet["display"]
    page = Page(browser, controller.url)
    p = page.page
    try:
        p.goto("/#/backups")
        p.get_by_role("heading", name="Sign in").wait_for()
        assert p.locator("#nav").is_hidden()
        shoot(page, "signin")
        # by keyboard alone: the username field has the focus, Tab moves on, Enter submits
        assert p.evaluate("document.activeElement.name") == "username"
        p.keyboard.type("ann")
        p.keyboard.press("Tab")
        p.keyboard.type("wrong password here")
        p.keyboard.press("Enter")
        p.get_by_text("Wrong username or password.").wait_for()
        assert p.evaluate("document.activeElement.name") == "password"  # back where the fix is typed
        p.keyboard.type(PASSWORD)
        p.keyboard.press("Enter")
        p.get_by_role("heading", name="Displays").wait_for()
        # the first Tab reaches the skip link, which takes the focus to the page's content
        p.reload()
        p.get_by_role("heading", name="Displays").wait_for()
        p.keyboard.press("Tab")
        assert p.evaluate("document.activeElement.textContent") == "Skip to content"
        p.keyboard.press("Enter")
        assert p.evaluate("document.activeElement.id") == "main" and p.url.endswith("#/displays")
        p.get_by_text("ann", exact=True).wait_for()
        cookies = {c["name"]: c for c in page.context.cookies()}
        session = cookies["svc_controller_session"]
        assert session["httpOnly"] and session["secure"] and session["sameSite"] == "Strict"
        jar = {"svc_controller_session": session["value"]}
        # writes through the app carry the CSRF header: a display added by its pasted key (through
        # the proxy), then its backup target saved on the controller
        p.goto("/#/backups")
        p.get_by_text("Add a display first.").first.wait_for()
        p.goto("/#/displays")
        p.get_by_label("Name").fill("Hall")
        p.get_by_label("Address").fill(display.url)
        p.get_by_label("Paste an API key").check()
        p.get_by_label("API key", exact=True).fill(fleet["key"])
        p.get_by_role("button", name="Add display").click()
        p.get_by_text("Hall is paired (role admin).").wait_for()
        p.goto("/#/backups")
        p.get_by_role("button", name="Save target").click()
        p.get_by_text("Backups of Hall scheduled.").wait_for()
        p.locator("li.target", has_text="hall").wait_for()
        targets = controller.get("/bff/v1/backup-targets", cookies=jar).json()["items"]
        assert [(t["displayId"], t["baseUrl"], t["apiKeyConfigured"]) for t in targets] == [
            ("hall", display.url, True)]
        # the same write without the header is refused and changes nothing; with it, it passes
        body = {"displayId": "hall", "baseUrl": display.url, "retentionCount": 3}
        refused = controller.request("PUT", "/bff/v1/backup-targets", cookies=jar, json=body)
        assert refused.status_code == 403 and refused.json()["code"] == "csrf_required", refused.text
        assert controller.get("/bff/v1/backup-targets", cookies=jar).json()["items"] == targets
        allowed = controller.request("PUT", "/bff/v1/backup-targets", cookies=jar, json=body, headers=CSRF)
        assert allowed.status_code == 200 and allowed.json()["retentionCount"] == 3, allowed.text
        p.get_by_role("button", name="Sign out").click()
        p.get_by_role("heading", name="Sign in").wait_for()
        assert controller.get("/bff/v1/auth/session", cookies={"svc_controller_session": session["value"]}
                              ).status_code == 401
        assert not page.errors, page.errors
    finally:
        page.close()
