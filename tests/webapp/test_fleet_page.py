"""The Displays page renders the controller's fleet and follows its events (CONTRACT "The fleet"):
a display that stops answering shows as unreachable and, when it answers again, as online, with
no reload; displays an older release kept in localStorage are offered, once, to the controller.

Real processes: ``svc-controller serve`` polling every second, fake displays on loopback
(tests/controller/fakedisplay.py), headless Chromium.
"""
from __future__ import annotations

import csv
import io
import time

import pytest

from svc_display.testing import wait_for
from tests.controllers import ControllerProcess, display_with_plays, running, start_display
from tests.controller.fakedisplay import FakeDisplay
from tests.webapp.conftest import DESKTOP, PHONE, Page, screenshot, shoot

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ctl(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet-page")
    controller = ControllerProcess(root / "ctl" / "data", {"SVC_CONTROLLER_FLEET_POLL_SECONDS": "1"})
    with running(controller):
        controller.start()
        yield controller


@pytest.fixture
def page(browser, ctl):
    """A browser page on the controller; the fleet emptied after the test."""
    made = Page(browser, ctl.url)
    yield made
    made.close()
    for item in ctl.get("/bff/v1/displays").json()["items"]:
        ctl.request("DELETE", f"/bff/v1/displays/{item['id']}")


def register(ctl, display_id, display, **extra):
    r = ctl.request("PUT", f"/bff/v1/displays/{display_id}", json={
        "name": display_id.capitalize(), "baseUrl": display.url, **extra})
    assert r.status_code == 201, r.text


def group_form(page, name, group):
    """The form ``name`` of the Displays page's group section, ``group`` chosen."""
    page.page.goto("/#/displays")
    form = page.page.get_by_role("form", name=name)
    form.get_by_label("Group").select_option(group)
    return form


def test_a_display_going_down_and_coming_back_shows_without_a_reload(page, ctl):
    with FakeDisplay() as fake, FakeDisplay() as other:
        register(ctl, "entrance", fake)
        register(ctl, "bar", other)
        p = page.page
        p.goto("/#/displays")
        card = p.locator("li.display", has_text="Entrance")
        card.locator(".badge[data-state='online']", has_text="Online").wait_for()
        p.evaluate("window.__sameDocument = true")
        fake.stop()
        card.locator(".badge[data-state='unreachable']", has_text="Unreachable").wait_for()
        card.locator(".problems li[data-code='unreachable']").wait_for()
        # the other display was never held up
        assert p.locator("li.display", has_text="Bar").locator(".badge").inner_text() == "Online"
        fake.start()
        card.locator(".badge[data-state='online']", has_text="Online").wait_for()
        assert card.locator(".problems").count() == 0
        assert p.evaluate("window.__sameDocument === true")  # never reloaded
        assert not page.errors, page.errors


def test_displays_held_in_the_browser_are_offered_once_to_the_controller(page, ctl):
    with FakeDisplay() as fake:
        p = page.page
        p.goto("/")
        p.get_by_role("heading", name="Displays").wait_for()
        held = {"displays": [{"id": "old-lobby", "name": "Old lobby", "url": fake.url, "apiKey": "svc_local_key_1",
                              "role": "admin", "identifier": "svc-controller-old-lobby-abc"}], "current": "old-lobby"}
        p.evaluate("(held) => localStorage.setItem('svc-controller.displays', JSON.stringify(held))", held)
        p.reload()
        offer = p.get_by_role("region", name="Move displays into the controller")
        offer.get_by_text("Old lobby").wait_for()
        offer.get_by_role("button", name="Move 1 display").click()
        p.get_by_text("1 display moved into the controller.").wait_for()
        moved = wait_for(lambda: ctl.get("/bff/v1/displays/old-lobby").json(), what="the moved display")
        assert (moved["name"], moved["baseUrl"], moved["apiKeyConfigured"]) == ("Old lobby", fake.url, True)
        p.locator("li.display", has_text="Old lobby").locator(".badge[data-state='online']").wait_for()
        # once: not offered again, even when the controller forgets the display
        assert ctl.request("DELETE", "/bff/v1/displays/old-lobby").status_code == 204
        p.reload()
        p.get_by_role("heading", name="Add a display").wait_for()
        assert p.get_by_role("region", name="Move displays into the controller").count() == 0
        assert not page.errors, page.errors


def test_an_alert_raised_on_a_group_lists_each_displays_result(page, ctl):
    with FakeDisplay() as first, FakeDisplay() as second, FakeDisplay() as elsewhere:
        second.mode = "close"  # refuses: failed, with the reason
        for display_id, display, group in (("front", first, "shop"), ("back", second, "shop"),
                                           ("office", elsewhere, "staff")):
            register(ctl, display_id, display, apiKey="svc_fake_key", group=group)
        form = group_form(page, "Act on a group", "shop")
        form.get_by_label("Action").select_option("raise_alert")
        form.get_by_label("Alert title").fill("Closing in 10 minutes")
        form.get_by_role("button", name="Apply to the group").click()
        results = form.get_by_role("list", name="Result per display")
        results.wait_for()
        assert results.locator("li[data-display='front'][data-result='done']").count() == 1
        failed = results.locator("li[data-display='back'][data-result='failed']")
        assert "cannot be reached" in failed.inner_text()
        assert results.locator("li").count() == 2  # the group, not the office
        assert [a["title"] for a in first.alerts] == ["Closing in 10 minutes"] and elsewhere.alerts == []
        assert not page.errors, page.errors


def test_the_plays_of_a_group_download_as_one_csv_naming_the_display_that_did_not_answer(page, ctl, tmp_path):
    display = display_with_plays(tmp_path / "real", int(time.time() * 1000) - 86_400_000, 12, ["Welcome", "Menu"])
    with running(display), FakeDisplay() as gone:
        gone.mode = "close"  # takes connections and closes them without a word
        register(ctl, "window", display, apiKey=display.key("viewer"), group="shop")
        register(ctl, "gone", gone, apiKey="svc_fake_key", group="shop")
        form = group_form(page, "Export the plays of a group", "shop")

        def download(first: str, last: str) -> None:
            form.get_by_label("From").fill(first)
            form.get_by_label("To").fill(last)
            form.get_by_role("button", name="Download CSV").click()

        # a range that ends before it starts is refused by the page, before any request
        download("2026-03-10", "2026-03-01")
        form.get_by_text("The last day cannot be before the first.").wait_for()
        with page.page.expect_download() as download_info:
            download(time.strftime("%Y-%m-%d", time.localtime(time.time() - 6 * 86_400)),
                     time.strftime("%Y-%m-%d", time.localtime()))
        download = download_info.value
        assert download.suggested_filename.startswith("plays-shop-") and download.suggested_filename.endswith(".csv")
        text = open(download.path(), encoding="utf-8", newline="").read()
        rows = list(csv.reader(io.StringIO(text, newline="")))
        blank = rows.index([])
        table, summary = rows[:blank], rows[blank + 1:]
        assert [(r[0], r[4], r[8]) for r in table[1:]][:2] == [("window", "Welcome", "slide"), ("window", "Menu", "slide")]
        assert len(table) - 1 == 12 + 1  # the slides and the alert
        results = {r[0]: r[2] for r in summary[2:]}
        assert results == {"gone": "failed", "window": "exported"}
        form.get_by_text(f"13 plays saved as {download.suggested_filename}.").wait_for()
        missing = form.locator("p.incomplete[data-displays='gone']")
        assert "Gone" in missing.inner_text()
        assert not page.errors, page.errors


def test_a_fresh_browser_programs_a_registered_display_with_the_key_the_controller_holds(page, ctl, tmp_path):
    """Another operator's browser (a new context: empty localStorage, no key) picks a display
    registered with its key and opens its Program page: the proxy reaches it by id with the
    controller's key (docs/webapp.md), and the key never reaches the browser."""
    display = start_display(tmp_path / "hall")
    with running(display):
        key = display.key("admin")
        r = display.request("POST", "/v1/screens", key=key, json={
            "id": "welcome-by-id", "screen_type": "message", "name": "Welcome through the controller",
            "config_json": {"title": "Welcome", "body": "Held by the controller"}})
        assert r.status_code == 201, r.text
        register(ctl, "hall", display, apiKey=key)
        p = page.page
        p.goto("/#/displays")
        assert p.evaluate("localStorage.length") == 0
        card = p.locator("li.display", has_text="Hall")
        card.get_by_text("Key held by the controller").wait_for()
        card.get_by_role("button", name="Use this display").click()
        p.locator("li.display", has_text="Hall").locator(".badge", has_text="current").wait_for()
        p.goto("/#/program")
        p.locator("#program-screens").get_by_text("Welcome through the controller").wait_for()
        held = p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays")
        assert held == [{"id": "hall", "name": "Hall", "url": display.url, "viaController": True}]
        assert key not in p.evaluate("JSON.stringify(Object.entries(localStorage))")
        assert not page.errors, page.errors


def test_a_sync_group_whose_programs_differ_is_marked_and_each_member_shows_its_clock(browser, ctl):
    """Displays in step (docs/controller.md): the Displays page names each display's sync group
    and clock offset, and marks a group whose members run different programs until they agree;
    at desktop and phone sizes."""
    def in_group(fake: FakeDisplay, group: str, program_hash: str) -> FakeDisplay:
        fake.screen = {**fake.screen, "sync": {"group": group, "program_hash": program_hash, "cycle_ms": 30_000}}
        return fake

    with FakeDisplay() as left, FakeDisplay() as right, FakeDisplay() as window:
        in_group(left, "lobby", "a1" * 32)
        in_group(right, "lobby", "b2" * 32)
        in_group(window, "shop-window", "c3" * 32)
        right.clock_offset_s = 4  # its Date says 4 s ahead
        for display_id, display in (("left", left), ("right", right), ("window", window)):
            register(ctl, display_id, display)
        for viewport in (DESKTOP, PHONE):
            page = Page(browser, ctl.url, viewport)
            try:
                p = page.page
                p.goto("/#/displays")
                box = p.get_by_role("region", name="Displays in step")
                lobby = box.locator("li[data-sync-group='lobby'][data-programs-differ='true']")
                lobby.wait_for()
                assert lobby.inner_text().startswith("Programs differ")
                assert "Programs differ in group lobby: Left runs a1a1a1a1; Right runs b2b2b2b2." in lobby.inner_text()
                assert "In step" in box.locator("li[data-sync-group='shop-window']").inner_text()
                card = p.locator("li.display[data-display='right']")
                sync = card.locator("p.sync")
                sync.get_by_text("Sync group: lobby · program b2b2b2b2").wait_for()
                clock = ctl.get("/bff/v1/displays/right").json()["status"]["clock"]
                assert abs(clock["offset_ms"] - 4000) <= clock["error_ms"]
                assert "Clock: +" in sync.inner_text() and " ms from the controller (±" in sync.inner_text()
                card.locator(".problems li[data-code='programs_differ']",
                             has_text="programs differ in sync group lobby").wait_for()
                if viewport is DESKTOP:
                    shoot(page, "displays-in-step", box)
                    # right takes the group's program: the mark clears without a reload
                    in_group(right, "lobby", "a1" * 32)
                    box.locator("li[data-sync-group='lobby'][data-programs-differ='false']",
                                has_text="In step").wait_for()
                    card.locator(".problems li[data-code='programs_differ']").wait_for(state="detached")
                    in_group(right, "lobby", "b2" * 32)
                else:
                    screenshot(p, "displays-in-step-card-phone", card)
                assert not page.errors, page.errors
            finally:
                page.close()
