"""The web app end to end: pair a display through the code on its screen, program it,
raise and dismiss an alert, back it up and restore it, all by clicking in Chromium.

Real processes: ``svc-controller serve`` (HTTPS, self-signed) and a headless
``svc-display serve`` (HTTPS, self-signed) whose stderr carries the adoption code.
"""
from __future__ import annotations

import re
import sqlite3
import time
import uuid
from contextlib import closing

import pytest

from svc_display.testing import closed_port
from tests.webapp.conftest import challenge_code, shoot
from tests.webapp.fleet import app, fleet  # noqa: F401  module-scoped fixtures, a fleet of this module's own

pytestmark = pytest.mark.slow


def open_settled(p, path: str, heading: str = "Content of") -> None:
    """Go to ``path`` and wait until its page has every section's answer (its view is no longer
    ``aria-busy``): a page fills its sections in as their answers arrive, and a click aimed at a
    control that moved meanwhile lands elsewhere (Playwright then reports "Clicking the checkbox
    did not change its state", seen under load)."""
    p.goto(path)
    p.locator("main .view[aria-busy='false']", has=p.get_by_role("heading", name=re.compile("^" + heading))).wait_for()


def search_integrations(p, text: str) -> None:
    """Search the Content page's integrations for ``text`` and wait until its answer is drawn: the
    list is drawn again for each search, and a card opened before that closes with it (a "Secrets"
    clicked on the unfiltered list's card was closed by the search's list, seen under load)."""
    p.get_by_label("Find").fill(text)
    p.get_by_role("search").filter(has=p.get_by_label("Find")).get_by_role("button", name="Search").click()
    p.locator("#integration-list[aria-busy='false']").wait_for()


def test_pairing_stores_a_working_key_and_shows_health(app, fleet):
    p = app.page
    card = p.locator("li.display", has_text="Lobby")
    card.get_by_text("Online").wait_for()  # the controller's poller saw it
    assert "version" in card.inner_text()
    # the key the browser holds was issued by the display to this identifier
    stored = p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays[0]")
    assert stored["identifier"] == app.identifier and stored["role"] == "admin"
    r = fleet["display"].get("/v1/adoption/session", key=stored["apiKey"])
    assert r.status_code == 200 and r.json()["identifier"] == app.identifier
    # a wrong code is refused next to the field, and no display is added
    p.get_by_label("Name").fill("Second")
    p.get_by_label("Address").fill(fleet["display"].url)
    p.get_by_role("button", name="Request a code").click()
    p.get_by_label("Code shown on the display").fill("0000-0000")
    p.get_by_role("button", name="Pair").click()
    p.get_by_text("That code is wrong or has expired").first.wait_for()
    assert p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays.length") == 1
    # errors from the proxy read as sentences: a dead address, then a public one
    with closed_port() as dead:
        for address, words in ((f"https://127.0.0.1:{dead}", "The display cannot be reached."),
                               ("https://8.8.8.8:8787", "only talks to displays on the local network")):
            p.goto("/#/displays")
            p.get_by_label("Name").fill("Elsewhere")
            p.get_by_label("Address").fill(address)
            p.get_by_role("button", name="Request a code").click()
            notice = p.locator("#status", has_text=words)
            notice.wait_for()
            assert "{" not in notice.inner_text()
    assert p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays.length") == 1
    p.goto("/#/displays")
    p.locator("li.display", has_text="Lobby").get_by_text("Online").wait_for()
    shoot(app, "displays")
    assert not app.errors, app.errors


def test_removing_a_display_paired_here_revokes_its_key(app, fleet):
    p = app.page
    p.goto("/#/displays")
    p.get_by_label("Name").fill("Spare")
    p.get_by_label("Address").fill(fleet["display"].url)
    p.get_by_label("Role to request").select_option("admin")
    p.get_by_role("button", name="Request a code").click()
    _, code = challenge_code(fleet["display"], "svc-controller-spare-")
    p.get_by_label("Code shown on the display").fill(code)
    p.get_by_role("button", name="Pair").click()
    p.get_by_text("Spare is paired (role admin).").wait_for()
    key = p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays"
                     ".find((d) => d.id === 'spare').apiKey")
    assert fleet["display"].get("/v1/adoption/session", key=key).status_code == 200
    p.get_by_role("button", name="Remove Spare").click()
    p.get_by_role("dialog").get_by_role("button", name="Remove").click()
    p.get_by_text("Spare removed and its key revoked.").wait_for()
    assert fleet["display"].get("/v1/adoption/session", key=key).status_code == 401
    names = p.evaluate("JSON.parse(localStorage.getItem('svc-controller.displays')).displays.map((d) => d.name)")
    assert names == ["Lobby"]
    assert p.locator("#display-picker").input_value() == "lobby"
    assert not app.errors, app.errors


def test_pairing_a_display_that_takes_no_new_requests_says_so_and_how_to_pair(app, fleet):
    """The display's 403 ``adoption_requests_off`` (docs/trust.md) reads as a sentence naming the
    switch and the other way to pair, not the display's raw message."""
    display, admin = fleet["display"], fleet["admin"]
    before = display.get("/v1/display/settings", key=admin).json()["adoption_allowed_roles"]
    r = display.request("PUT", "/v1/display/settings", key=admin, json={"adoption_allowed_roles": []})
    assert r.status_code == 200, r.text
    try:
        p = app.page
        p.goto("/#/displays")
        p.get_by_label("Name").fill("Closed")
        p.get_by_label("Address").fill(display.url)
        p.get_by_role("button", name="Request a code").click()
        notice = p.locator("#status", has_text="The display takes no new pairing requests")
        notice.wait_for()
        assert "adoption_allow_new_requests" in notice.inner_text() and "Paste an API key" in notice.inner_text()
        assert p.get_by_label("Code shown on the display").is_hidden()  # no code was asked for
        assert not app.errors, app.errors
    finally:
        r = display.request("PUT", "/v1/display/settings", key=admin, json={"adoption_allowed_roles": before})
        assert r.status_code == 200, r.text


def test_message_slide_created_through_the_generated_form(app, fleet):
    p = app.page
    p.goto("/#/program")
    screens = p.locator("#program-screens")
    screens.get_by_role("button", name="New screen").click()
    form = p.get_by_role("form", name="New screen")
    form.get_by_label("Type").select_option("message")
    slide = f"hello-{uuid.uuid4().hex[:6]}"
    form.get_by_label("Id").fill(slide)
    form.get_by_label("Name").fill("Hello slide")
    form.get_by_label("Title").fill("Hello")
    form.get_by_label("Text (required)").fill("Welcome to the lobby")
    # a bad colour: the message sits next to its field and nothing is sent
    colour = form.get_by_label("Background colour", exact=True)
    colour.fill("red")
    form.get_by_role("button", name="Create screen").click()
    error = p.locator("[data-field=backgroundColor] .field-error")
    error.wait_for()
    assert "colour" in error.inner_text()
    assert colour.get_attribute("aria-invalid") == "true"
    shoot(app, "program-validation", focus=colour)
    assert fleet["display"].get(f"/v1/screens/{slide}", key=fleet["admin"]).status_code == 404
    colour.fill("#203040")
    form.get_by_role("button", name="Create screen").click()
    screens.get_by_role("row", name=re.compile("Hello slide")).wait_for()
    rows = fleet["display"].get("/v1/screens", key=fleet["admin"]).json()["items"]
    mine = [r for r in rows if r["id"] == slide]
    assert mine and mine[0]["screen_type"] == "message"
    assert mine[0]["config_json"] == {"title": "Hello", "body": "Welcome to the lobby", "textAlign": "center",
                                      "backgroundColor": "#203040"}
    shoot(app, "program")
    assert not app.errors, app.errors


def test_the_new_screen_form_starts_right(app, fleet):
    """It started at "Alerts" with an empty dwell time, showed "Data key" and "Only news with a
    photo" for a Message slide, said "Weight" in jargon and took colours as typed hex only."""
    p = app.page
    p.goto("/#/program")
    p.locator("#program-screens").get_by_role("button", name="New screen").click()
    form = p.get_by_role("form", name="New screen")
    assert form.get_by_label("Type").locator("option:checked").inner_text() == "Message"
    assert form.get_by_label("Dwell time (seconds)").input_value() == "10"
    assert form.get_by_label("Weight").input_value() == "1"
    assert "twice" in form.locator("[data-field=frequency_weight] .hint").inner_text()
    assert form.get_by_label("Data key").count() == 0 and form.get_by_label("Only news with a photo").count() == 0
    picker = form.get_by_label("Background colour: pick a colour")
    assert picker.get_attribute("type") == "color"
    picker.evaluate("e => { e.value = '#336699'; e.dispatchEvent(new Event('input', { bubbles: true })); }")
    assert form.get_by_label("Background colour", exact=True).input_value() == "#336699"
    shoot(app, "program-new-screen", form)
    # a news article reads both row fields: shown for it, the values typed so far kept
    form.get_by_label("Name").fill("Kept name")
    form.get_by_label("Type").select_option("news_article")
    form.get_by_label("Data key").wait_for()
    assert form.get_by_label("Only news with a photo").count() == 1
    assert form.get_by_label("Name").input_value() == "Kept name"
    form.get_by_label("Type").select_option("clock")
    assert form.get_by_label("Data key").count() == 0
    form.get_by_role("button", name="Cancel").click()
    assert not app.errors, app.errors


def test_rows_and_options_are_shown_in_words_with_ids_in_the_details(app, fleet):
    """Rows showed their id beside their name ("Welcome message message-jtuo"), a row without a
    name only its id, the Type column type ids, options their raw values ("top_right", "24h_hm")."""
    display, admin = fleet["display"], fleet["admin"]
    for body in ({"id": "words-named", "name": "Welcome words", "screen_type": "message",
                  "config_json": {"body": "Hi"}},
                 {"id": "words-unnamed", "screen_type": "clock", "config_json": {}}):
        assert display.request("POST", "/v1/screens", key=admin, json=body).status_code == 201
    types = {t["screen_type"]: t["label"] for t in display.get("/v1/meta/screen-types", key=admin).json()["items"]}
    p = app.page
    p.goto("/#/displays")
    p.goto("/#/program")
    named = p.locator("#program-screens tr[data-id='words-named']")
    assert named.locator("th").inner_text().strip() == "Welcome words"
    assert named.locator("td").first.inner_text().strip() == types["message"]
    unnamed = p.locator("#program-screens tr[data-id='words-unnamed']")
    assert unnamed.locator("th").inner_text().strip() == types["clock"]
    assert "words-unnamed" not in p.locator("#program-screens").inner_text()
    unnamed.get_by_role("button", name="Edit").click()
    form = p.get_by_role("form", name=f"Edit {types['clock']}")
    form.get_by_text("words-unnamed", exact=True).wait_for()  # the id, in the details
    form.get_by_role("button", name="Cancel").click()
    # options in words: the display's x-enum-titles (a shared piece: every type with a position)
    p.locator("#program-overlays").get_by_role("button", name="New overlay").click()
    form = p.get_by_role("form", name="New overlay")
    form.get_by_label("Type").select_option("digital_clock")
    position = form.get_by_label("Corner")
    assert "Top right" in position.inner_text() and "top_right" not in position.inner_text()
    assert "24 h (14:05)" in form.get_by_label("Time format").inner_text()
    # field names in words: the type's titles (they were "Time Format Preset", "Show Date" from the keys)
    assert form.get_by_label("Show the date").count() == 1 and form.get_by_label("Time Format Preset").count() == 0
    shoot(app, "program-words", form)
    form.get_by_role("button", name="Cancel").click()
    for screen in ("words-named", "words-unnamed"):
        display.request("DELETE", f"/v1/screens/{screen}", key=admin)
    assert not app.errors, app.errors


def test_the_displays_own_validation_message_lands_next_to_the_field(app, fleet):
    """A value the form cannot judge (a zone that does not exist) is refused by the display;
    its message is shown next to the field, not as raw JSON."""
    p = app.page
    p.goto("/#/program")
    p.locator("#program-screens").get_by_role("button", name="New screen").click()
    form = p.get_by_role("form", name="New screen")
    form.get_by_label("Type").select_option("clock")
    form.get_by_label("Time zone").fill("Mars/Olympus_Mons")
    form.get_by_role("button", name="Create screen").click()
    error = p.locator("[data-field=timeZone] .field-error")
    error.wait_for()
    assert error.inner_text().strip() and "{" not in error.inner_text()
    assert "{" not in p.locator("#status").inner_text()
    form.get_by_role("button", name="Cancel").click()
    assert not app.errors, app.errors


def test_ticker_tape_created_weighted_and_deleted(app, fleet):
    p = app.page
    p.goto("/#/program")
    p.locator("#program-tickers").get_by_role("button", name="New ticker tape").click()
    form = p.get_by_role("form", name="New ticker tape")
    form.get_by_label("Type").select_option("time")
    tape = f"clock-{uuid.uuid4().hex[:6]}"
    form.get_by_label("Id").fill(tape)
    form.get_by_label("Weight").fill("3")
    form.get_by_label("Text before the time").fill("Paris")
    form.get_by_label("Time zone").fill("Europe/Paris")
    form.get_by_role("button", name="Create ticker tape").click()
    row = p.locator(f"#program-tickers tr[data-id='{tape}']")
    row.wait_for()
    got = fleet["display"].get(f"/v1/ticker/tapes/{tape}", key=fleet["admin"]).json()
    assert got["ticker_type"] == "time" and got["frequency_weight"] == 3
    assert got["config_json"]["labelPrefix"] == "Paris" and got["config_json"]["timeZone"] == "Europe/Paris"
    assert got["name"] and got["name"] != tape  # left empty: named after its type, not its id
    row.get_by_role("button", name=f"Delete {got['name']}").click()
    p.get_by_role("dialog").get_by_role("button", name="Delete").click()
    p.get_by_text(f"{got['name']} deleted.").wait_for()
    assert fleet["display"].get(f"/v1/ticker/tapes/{tape}", key=fleet["admin"]).status_code == 404
    assert not app.errors, app.errors


def test_overlay_toggled_from_the_list(app, fleet):
    p = app.page
    p.goto("/#/program")
    overlay = "default_birthday_example_may_13"
    row = p.locator(f"#program-overlays tr[data-id='{overlay}']")
    switch = row.get_by_role("switch")
    switch.wait_for()
    before = fleet["display"].get(f"/v1/display/overlays/{overlay}", key=fleet["admin"]).json()["enabled"]
    assert switch.is_checked() == before
    switch.click()
    p.get_by_text("enabled." if not before else "disabled.").first.wait_for()
    after = fleet["display"].get(f"/v1/display/overlays/{overlay}", key=fleet["admin"]).json()["enabled"]
    assert after is (not before)
    assert not app.errors, app.errors


def test_overlay_window_and_nth_weekday_edited(app, fleet):
    p = app.page
    p.goto("/#/program")
    overlay = "default_birthday_example_may_13"
    p.locator(f"#program-overlays tr[data-id='{overlay}']").get_by_role("button", name="Edit").click()
    form = p.get_by_role("form", name=re.compile("^Edit "))
    form.get_by_text(overlay, exact=True).wait_for()  # the id, in the details
    form.get_by_label("End month").fill("5")
    form.get_by_label("End day").fill("20")
    form.get_by_label("Nth week of the month").fill("2")
    form.get_by_label("Weekday (1 = Monday … 7 = Sunday)").fill("7")
    form.get_by_label("Amount").fill("0.5")
    form.get_by_role("button", name="Save changes").click()
    p.locator(f"#program-overlays tr[data-id='{overlay}']", has_text="May 13 – May 20").wait_for()
    row = fleet["display"].get(f"/v1/display/overlays/{overlay}", key=fleet["admin"]).json()
    assert (row["end_month"], row["end_day"], row["nth_week_of_month"], row["nth_weekday"]) == (5, 20, 2, 7)
    assert row["config_json"]["density"] == 0.5 and row["config_json"]["messages"]  # the rest of the config kept
    assert not app.errors, app.errors


def test_a_new_overlay_shows_all_year_by_default(app, fleet):
    """It defaulted to a one-day window (1 January): created without touching the dates, it never showed."""
    p = app.page
    p.goto("/#/program")
    p.locator("section", has=p.get_by_role("heading", name="Overlays")).get_by_role(
        "button", name="New overlay").click()
    form = p.get_by_role("form", name="New overlay")
    assert [form.get_by_label(name).input_value() for name in
            ("Start month", "Start day", "End month", "End day")] == ["1", "1", "12", "31"]
    assert form.get_by_label("Repeat every year").input_value() == "true"
    overlay = form.get_by_label("Id", exact=True).input_value()
    form.get_by_role("button", name="Create overlay").click()
    p.locator(f"#program-overlays tr[data-id='{overlay}']", has_text="Jan 1 – Dec 31, every year").wait_for()
    row = fleet["display"].get(f"/v1/display/overlays/{overlay}", key=fleet["admin"]).json()
    assert (row["start_month"], row["start_day"], row["end_month"], row["end_day"], row["repeat_annually"]) == \
        (1, 1, 12, 31, True)
    assert fleet["display"].request("DELETE", f"/v1/display/overlays/{overlay}", key=fleet["admin"]).ok
    assert not app.errors, app.errors


def test_photo_upload_and_moderation(app, fleet, tmp_path):
    from PIL import Image

    photo = tmp_path / "tree.png"
    Image.new("RGB", (64, 48), (40, 160, 90)).save(photo)
    p = app.page
    p.goto("/#/content")
    # every integration listed at first ("enabled only" was ticked: a fresh display said
    # "No integration matches.")
    assert not p.get_by_label("enabled only").is_checked()
    p.locator("li.integration").first.wait_for()
    assert p.get_by_text("No integration matches.").count() == 0
    upload = p.get_by_role("form", name="Upload a photo")
    upload.get_by_label("Photo", exact=True).set_input_files(str(photo))
    upload.get_by_label("Description (alt text)").fill("A green tree")
    # the category is chosen by name from the display's categories (it was "A content category id" as text)
    category = upload.get_by_label("Category")
    assert category.evaluate("e => e.tagName") == "SELECT"
    assert category.locator("option:checked").inner_text() == "Photos"
    shoot(app, "content-photo", upload)
    upload.get_by_role("button", name="Upload photo").click()
    p.get_by_text("Photo uploaded.").wait_for()
    p.get_by_label("Catalog").select_option("photos")
    p.get_by_label("Search", exact=True).fill("green tree")
    p.get_by_role("search").filter(has=p.get_by_label("Catalog")).get_by_role("button", name="Search").click()
    row = p.get_by_role("row", name=re.compile("A green tree"))
    row.get_by_role("button", name="Suppress").click()
    p.get_by_text("Hidden from the display.").wait_for()
    items = fleet["display"].get("/v1/catalog/photos?alt_text=green%20tree", key=fleet["admin"]).json()["items"]
    assert len(items) == 1 and items[0]["suppressed"] is True and items[0]["integration_type"] == "manual_entry"
    assert items[0]["category_id"] == "photos"
    p.get_by_role("row", name=re.compile("A green tree")).get_by_role("button", name="Restore").click()
    p.get_by_text("Shown again.").wait_for()
    items = fleet["display"].get("/v1/catalog/photos?alt_text=green%20tree", key=fleet["admin"]).json()["items"]
    assert items[0]["suppressed"] is False
    # a trivia question and a calendar event of one's own
    trivia = p.get_by_role("form", name="Add a trivia question")
    trivia.get_by_label("Question (required)").fill("Which planet is red?")
    for letter, answer in zip("ABCD", ("Venus", "Mars", "Earth", "Jupiter")):
        trivia.get_by_label(f"Answer {letter} (required)").fill(answer)
    trivia.get_by_label("Right answer (required)").select_option("B")
    trivia.get_by_role("button", name="Add trivia question").click()
    p.get_by_text("Trivia question added.").wait_for()
    rows = fleet["display"].get("/v1/catalog/trivia?question=planet%20is%20red", key=fleet["admin"]).json()["items"]
    assert [(r["option_b"], r["correct_option"]) for r in rows] == [("Mars", "B")]
    event = p.get_by_role("form", name="Add a calendar event")
    event.get_by_label("Title (required)").fill("Team lunch")
    event.get_by_label("Starts (required)").fill("2030-05-13T12:00")
    event.get_by_label("Ends (required)").fill("2030-05-13T13:30")
    event.get_by_role("button", name="Add calendar event").click()
    p.get_by_text("Calendar event added.").wait_for()
    rows = fleet["display"].get("/v1/catalog/calendar-events?title=Team%20lunch", key=fleet["admin"]).json()["items"]
    assert len(rows) == 1 and rows[0]["end_ms"] - rows[0]["start_ms"] == 90 * 60_000
    assert not app.errors, app.errors


def test_integration_secret_entered_and_never_shown_back(app, fleet):
    secret = f"token-{uuid.uuid4().hex}"
    p = app.page
    open_settled(p, "/#/content")  # its sections fill in one by one, moving the form down
    p.get_by_label("enabled only").uncheck()
    search_integrations(p, "home_assistant")  # the display strips "_" from q: the page searches "home"
    card = p.locator("li.integration", has=p.get_by_role("heading", name=re.compile(r"^Home Assistant home_assistant\b")))
    card.get_by_text("secrets missing").wait_for()
    card.get_by_text("Secrets", exact=True).click()
    card.get_by_label("token").fill(secret)
    card.get_by_text("Settings", exact=True).click()  # the form generated from the type's schema
    card.get_by_label("Home Assistant address").fill("http://192.168.1.50:8123")  # disabled: never contacted
    card.get_by_role("button", name="Save home_assistant").click()
    p.get_by_text("home_assistant saved.").wait_for()
    card = p.locator("li.integration", has=p.get_by_role("heading", name=re.compile(r"^Home Assistant home_assistant\b")))
    card.get_by_text("secrets set").wait_for()
    assert secret not in p.content()
    assert all(secret not in v for v in p.evaluate("Object.values(localStorage)"))
    rows = fleet["display"].get("/v1/integrations?q=home", key=fleet["admin"])
    assert secret not in rows.text
    mine = [r for r in rows.json()["items"] if r["integration_type"] == "home_assistant"]
    assert [r["secrets_configured"] for r in mine] == [True] and not mine[0]["enabled"]
    assert mine[0]["config_json"]["baseUrl"] == "http://192.168.1.50:8123"
    assert not app.errors, app.errors


def interest_form(p, title: str, one: str):
    """The Content page's section of the interest list ``title``, its "Add a <one>" form opened."""
    box = p.locator("section", has=p.get_by_role("heading", name=title))
    box.get_by_text(f"Add a {one}").click()
    return box


def add_interest(box, one: str, values: dict[str, str]) -> None:
    """Fill the opened form's fields by label and press "Add <one>"."""
    for label, value in values.items():
        box.get_by_label(label).fill(value)
    box.get_by_role("button", name=f"Add {one}").click()


def test_weather_location_added_as_an_interest(app, fleet):
    p = app.page
    p.goto("/#/content")
    box = interest_form(p, "Weather locations", "location")
    add_interest(box, "location", {"Id": "office", "Name (required)": "Office", "Latitude (required)": "91"})
    box.get_by_text("Must be at most 90.").wait_for()
    add_interest(box, "location", {"Latitude (required)": "48.85", "Longitude (required)": "2.35"})
    p.get_by_text("Weather locations: office added.").wait_for()
    items = fleet["display"].get("/v1/interests/weather-locations", key=fleet["admin"]).json()["items"]
    assert [(i["id"], i["name"], i["latitude"]) for i in items] == [("office", "Office", 48.85)]
    assert not app.errors, app.errors


def test_joke_and_trivia_interests_pick_a_category_or_make_one(app, fleet):
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    p.goto("/#/content")
    jokes = interest_form(p, "Joke categories", "category")
    picker = jokes.get_by_label("Category", exact=True)
    # the choices are the display's categories (through the proxy), and a new one
    categories = display.get("/v1/curator/categories", key=admin).json()["items"]
    assert picker.locator("option").all_inner_texts() == [
        f"{c['label']} ({c['id']})" for c in categories] + ["A new category…"]
    assert jokes.get_by_label("New category id (required)").is_hidden()
    picker.select_option("jokes")
    add_interest(jokes, "category", {})
    p.get_by_text("Joke categories: jokes added.").wait_for()
    assert [r["id"] for r in display.get("/v1/interests/joke-categories", key=admin).json()["items"]] == ["jokes"]
    row = jokes.locator("tbody tr", has=p.locator("th", has_text=re.compile("^jokes$")))
    assert "Jokes" in row.inner_text()  # the category's name, not only its id
    jokes.get_by_text("Add a category").click()  # a chosen category is offered no more
    assert "jokes" not in jokes.get_by_label("Category", exact=True).locator("option").evaluate_all(
        "options => options.map((o) => o.value)")
    # a category that does not exist yet is made from the form, then chosen
    trivia = interest_form(p, "Trivia categories", "category")
    trivia.get_by_label("Category", exact=True).select_option(label="A new category…")
    add_interest(trivia, "category", {"New category id (required)": "Local History"})
    trivia.get_by_text("Use lowercase letters, digits").wait_for()
    trivia.get_by_text("This field is required.").wait_for()  # the name
    add_interest(trivia, "category", {"New category id (required)": "local-history",
                                      "New category name (required)": "Local history"})
    p.get_by_text("Trivia categories: local-history added.").wait_for()
    made = display.get("/v1/curator/categories/local-history", key=admin).json()
    assert (made["label"], made["reserved"]) == ("Local history", False)
    chosen = display.get("/v1/interests/trivia-categories/local-history", key=admin).json()
    assert chosen["enabled"] is True
    assert not app.errors, app.errors


def test_a_feed_and_a_stock_symbol_added_as_interests(app, fleet):
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    p.goto("/#/content")
    # loopback and never fetched: the news integration is off
    add_interest(interest_form(p, "News feeds", "feed"), "feed", {
        "Id": "town", "Feed address (URL) (required)": "http://127.0.0.1:9/town.xml",
        "Check every (seconds)": "900"})
    p.get_by_text("News feeds: town added.").wait_for()
    feed = display.get("/v1/interests/rss-feeds/town", key=admin).json()
    assert (feed["url"], feed["poll_seconds"], feed["enabled"]) == ("http://127.0.0.1:9/town.xml", 900, True)
    stocks = interest_form(p, "Stock symbols", "symbol")
    add_interest(stocks, "symbol", {"Id": "acme", "Symbol (required)": "acme", "Name shown": "Acme Corp."})
    p.get_by_text("Stock symbols: acme added.").wait_for()
    symbol = display.get("/v1/interests/stock-symbols/acme", key=admin).json()
    assert (symbol["symbol"], symbol["display_name"], symbol["enabled"]) == ("ACME", "Acme Corp.", True)
    stocks.locator("tbody tr", has_text="ACME · Acme Corp.").wait_for()
    assert not app.errors, app.errors


def test_a_feed_takes_the_poll_interval_the_display_allows(app, fleet):
    """The feed form's limit is the display's (604800 s), read from its /v1/openapi.json: the app
    capped it at 86400 before, refusing what the display takes."""
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    p.goto("/#/content")
    box = interest_form(p, "News feeds", "feed")
    add_interest(box, "feed", {"Id": "weekly", "Feed address (URL) (required)": "http://127.0.0.1:9/weekly.xml",
                               "Check every (seconds)": "604801"})
    box.get_by_text("Must be at most 604800.").wait_for()
    assert display.get("/v1/interests/rss-feeds/weekly", key=admin).status_code == 404  # nothing sent
    add_interest(box, "feed", {"Check every (seconds)": "604800"})
    p.get_by_text("News feeds: weekly added.").wait_for()
    assert display.get("/v1/interests/rss-feeds/weekly", key=admin).json()["poll_seconds"] == 604800
    assert not app.errors, app.errors


def test_the_forms_follow_the_displays_schema_with_no_app_edit(app, fleet):
    """A display whose schema says otherwise (here its /v1/openapi.json as it passes the browser,
    changed: a lower limit and a field the app has never heard of) gets forms that say so."""
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    pattern = "**/bff/v1/proxy/v1/openapi.json"

    def changed(route):
        answer = route.fetch()
        doc = answer.json()
        schemas = doc["components"]["schemas"]
        schemas["RssFeedBody"]["properties"]["poll_seconds"]["maximum"] = 7200
        schemas["StockSymbolBody"]["properties"]["exchange"] = {"type": "string", "maxLength": 8}
        route.fulfill(response=answer, json=doc)

    p.route(pattern, changed)
    try:
        p.goto("/#/content")
        p.reload()  # the app reads a display's document once per page session
        feeds = interest_form(p, "News feeds", "feed")
        assert feeds.get_by_label("Check every (seconds)").get_attribute("max") == "7200"
        add_interest(feeds, "feed", {"Id": "hourly", "Feed address (URL) (required)": "http://127.0.0.1:9/h.xml",
                                     "Check every (seconds)": "7201"})
        feeds.get_by_text("Must be at most 7200.").wait_for()
        stocks = interest_form(p, "Stock symbols", "symbol")
        add_interest(stocks, "symbol", {"Id": "bolt", "Symbol (required)": "BOLT", "Exchange": "NASDAQ-GS1"})
        stocks.get_by_text("At most 8 characters.").wait_for()
        assert display.get("/v1/interests/rss-feeds/hourly", key=admin).status_code == 404
        assert display.get("/v1/interests/stock-symbols/bolt", key=admin).status_code == 404
    finally:
        p.unroute(pattern)
        p.reload()
    # the display's own document again: its limit and no such field
    feeds = interest_form(p, "News feeds", "feed")
    assert feeds.get_by_label("Check every (seconds)").get_attribute("max") == "604800"
    assert interest_form(p, "Stock symbols", "symbol").get_by_label("Exchange").count() == 0
    assert not app.errors, app.errors


def test_an_integrations_poll_interval_changed(app, fleet):
    p = app.page
    open_settled(p, "/#/content")  # its sections fill in one by one, moving the form down
    p.get_by_label("enabled only").uncheck()
    search_integrations(p, "weather")
    # unchecking "enabled only" loaded the list too: the card to fill is the one drawn after both
    p.wait_for_load_state("networkidle")
    # titled with its type's label, its id beside it; no secrets badge for a type without secrets
    # (it showed the raw id as title and "secrets set")
    card = p.locator("li.integration", has=p.get_by_role("heading", name="Open-Meteo current weather weather_openmeteo",
                                                           exact=True))
    card.get_by_label("weather_openmeteo poll interval in seconds").fill("1800")
    assert card.locator(".badge").count() == 0
    card.get_by_role("button", name="Save weather_openmeteo").click()
    p.get_by_text("weather_openmeteo saved.").wait_for()
    row = fleet["display"].get("/v1/integrations/weather_openmeteo", key=fleet["admin"]).json()
    assert row["poll_seconds"] == 1800 and row["enabled"] is False
    assert not app.errors, app.errors


def test_a_catalog_row_deleted(app, fleet):
    display, admin = fleet["display"], fleet["admin"]
    r = display.request("POST", "/v1/curator/manual/jokes", key=admin, json={
        "category_id": "jokes", "setup": "Why did the aardvark cross the road?", "punchline": "Ants."})
    assert r.status_code == 201, r.text
    p = app.page
    p.goto("/#/content")
    p.get_by_label("Catalog").select_option("jokes")
    p.get_by_label("Search", exact=True).fill("aardvark")
    p.get_by_role("search").filter(has=p.get_by_label("Catalog")).get_by_role("button", name="Search").click()
    row = p.get_by_role("row", name=re.compile("aardvark"))
    row.get_by_role("button", name="Delete").click()
    p.get_by_role("dialog").get_by_role("button", name="Delete").click()
    p.locator("#status", has_text="Deleted.").wait_for()
    row.wait_for(state="detached")
    assert display.get("/v1/catalog/jokes?setup=aardvark", key=admin).json()["items"] == []
    assert not app.errors, app.errors


def test_alert_raised_and_dismissed(app, fleet):
    p = app.page
    p.goto("/#/alerts")
    p.get_by_label("Title").fill("Fire drill at 3")
    p.get_by_label("Text").fill("Please use the stairs")
    p.get_by_label("Severity").select_option(label="Warning")
    p.get_by_label("Expires after").select_option(label="4 hours")
    started = int(time.time() * 1000)
    p.get_by_role("button", name="Raise alert").click()
    row = p.get_by_role("row", name=re.compile("Fire drill at 3"))
    row.wait_for()
    alerts = fleet["display"].get("/v1/alerts", key=fleet["admin"]).json()["items"]
    mine = [a for a in alerts if a["title"] == "Fire drill at 3"]
    assert len(mine) == 1 and mine[0]["severity"] == "warning" and mine[0]["dismissed_at"] is None
    assert abs(mine[0]["expires_at"] - (started + 4 * 3600_000)) < 120_000
    shoot(app, "alerts")
    row.get_by_role("button", name="Dismiss Fire drill at 3").click()
    p.get_by_text('Alert "Fire drill at 3" dismissed.').wait_for()
    gone = [a for a in fleet["display"].get("/v1/alerts", key=fleet["admin"]).json()["items"] if a["id"] == mine[0]["id"]]
    assert gone and gone[0]["dismissed_at"] is not None
    assert not app.errors, app.errors


def test_the_alerts_form_starts_right_and_starts_afresh_after_a_raise(app, fleet):
    """Before: Severity started at "(default)", Icon was a free-text icon name, "Expires after"
    sat outside the form's box, the form kept its values after "Raise alert" (a second click
    raised a duplicate) and the new row was out of sight on a phone."""
    from playwright.sync_api import expect

    from tests.webapp.conftest import DESKTOP, PHONE

    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    for n in range(6):  # a list long enough to push the form below a phone's screen
        display.request("POST", "/v1/alerts", key=admin, json={"title": f"Earlier notice {n}", "expires_at": None})
    p.set_viewport_size(PHONE)
    try:
        p.goto("/#/displays")
        p.goto("/#/alerts")
        box = p.get_by_role("group", name="The alert")
        expect(box.get_by_label("Severity")).to_have_value('"info"')
        assert box.get_by_label("Severity").locator("option:checked").inner_text() == "Information"
        assert box.get_by_label("Expires after").count() == 1  # inside the box
        icon = box.get_by_label("Icon")
        assert icon.evaluate("e => e.tagName") == "SELECT"
        icon.select_option(label="Fire")
        box.get_by_label("Title").fill("Smoke in the kitchen")
        shoot(app, "alerts-form", p.get_by_role("form", name="Raise an alert"))
        p.set_viewport_size(PHONE)
        p.get_by_role("button", name="Raise alert").click()
        p.locator("#status", has_text="Alert raised.").wait_for()
        row = p.get_by_role("row", name=re.compile("Smoke in the kitchen"))
        expect(row).to_be_in_viewport()
        expect(p.get_by_role("group", name="The alert").get_by_label("Title")).to_have_value("")
        mine = [a for a in display.get("/v1/alerts", key=admin).json()["items"] if a["title"] == "Smoke in the kitchen"]
        assert len(mine) == 1 and mine[0]["icon"] == "local_fire_department" and mine[0]["severity"] == "info"
        p.get_by_role("button", name="Raise alert").click()  # a second click: the empty form, not a duplicate
        p.get_by_role("group", name="The alert").get_by_text("This field is required.").wait_for()
        assert len([a for a in display.get("/v1/alerts", key=admin).json()["items"]
                    if a["title"] == "Smoke in the kitchen"]) == 1
    finally:
        p.set_viewport_size(DESKTOP)
        for alert in display.get("/v1/alerts", key=admin).json()["items"]:
            display.request("DELETE", f"/v1/alerts/{alert['id']}", key=admin)
    assert not app.errors, app.errors


def test_settings_and_content_pages_work(app, fleet):
    p = app.page
    p.goto("/#/settings")
    p.get_by_label("Temperature unit").select_option("f")
    p.get_by_role("button", name="Save settings").click()
    p.get_by_text("Settings saved.").wait_for()
    assert fleet["display"].get("/v1/display/settings", key=fleet["admin"]).json()[
        "display_weather_temperature_unit"] == "f"
    # a theme of one's own: made with colour pickers, chosen, then deleted
    p.get_by_text("Make a theme").click()
    p.get_by_label("Theme name").fill("Ocean")
    p.get_by_label("Accent 1").fill("#ff9999")
    p.get_by_role("button", name="Create theme").click()
    p.get_by_text("Theme Ocean created.").wait_for()
    custom = [t for t in fleet["display"].get("/v1/display/themes", key=fleet["admin"]).json()["items"]
              if t["label"] == "Ocean"]
    assert len(custom) == 1 and custom[0]["preview"]["accents"][0] == "#ff9999"
    p.get_by_role("radio", name="Ocean").check()
    p.get_by_role("button", name="Save settings").click()
    p.get_by_text("Settings saved.").wait_for()
    assert fleet["display"].get("/v1/display/settings", key=fleet["admin"]).json()["display_theme_id"] == custom[0]["id"]
    shoot(app, "settings")
    p.get_by_role("button", name="Delete theme Ocean").click()
    p.get_by_role("dialog").get_by_role("button", name="Delete").click()
    p.get_by_text("Theme Ocean deleted.").wait_for()
    assert fleet["display"].get("/v1/display/settings", key=fleet["admin"]).json()["display_theme_id"] == "navy_coral"
    p.goto("/#/content")
    p.get_by_role("heading", name="Integrations").wait_for()
    p.get_by_role("heading", name="Catalog").wait_for()
    shoot(app, "content")
    assert not app.errors, app.errors


def test_backup_target_pull_and_restore(app, fleet):
    display, admin = fleet["display"], fleet["admin"]
    p = app.page
    keep = f"keep-{uuid.uuid4().hex[:6]}"
    r = display.request("POST", "/v1/screens", key=admin,
                        json={"id": keep, "screen_type": "message", "config_json": {"body": "in the backup"}})
    assert r.status_code == 201, r.text
    p.goto("/#/backups")
    p.get_by_role("button", name="Save target").click()
    target = p.locator("li.target", has_text="lobby")
    target.wait_for()
    assert "0 2 * * 0" in target.inner_text()
    assert target.get_by_role("heading").inner_text().strip() == "Lobby"  # the display's name (it was "lobby")
    targets = fleet["ctl"].get("/bff/v1/backup-targets").json()["items"]
    assert [t["displayId"] for t in targets] == ["lobby"] and targets[0]["apiKeyConfigured"]
    # the pull is held in the browser until the test has seen its progress bar
    held = []
    p.route("**/pull-now", lambda route: held.append(route))
    pull = target.get_by_role("button", name="Pull a backup now")
    pull.click()
    progress = target.get_by_role("group", name="Progress for lobby")
    progress.get_by_text("Asking the display for a backup…").wait_for()
    assert progress.locator("progress").is_visible() and pull.is_disabled()
    assert progress.locator("progress").evaluate("bar => bar.position") == -1  # indeterminate: it moves
    while not held:
        p.wait_for_timeout(50)
    held[0].continue_()
    p.unroute("**/pull-now")
    p.get_by_text("Backup of lobby stored.").wait_for(timeout=120_000)
    snapshot_row = target.locator("tr[data-snapshot]")
    snapshot_row.first.wait_for()
    assert "manual" in snapshot_row.first.inner_text()
    # download the stored archive, then upload it again as a snapshot of its own
    with p.expect_download() as download:
        snapshot_row.first.get_by_role("link", name="Download").click()
    archive = download.value.path()
    assert download.value.suggested_filename.startswith("svc-display-backup-lobby-")
    target.locator("input[type=file]").set_input_files(str(archive))
    p.get_by_text("Archive stored.").wait_for(timeout=60_000)
    snaps = fleet["ctl"].get(f"/bff/v1/backup-targets/{targets[0]['id']}/snapshots").json()["items"]
    assert sorted(s["source"] for s in snaps) == ["manual", "upload"]
    assert snaps[0]["sha256"] == snaps[1]["sha256"]
    shoot(app, "backups")
    # the screen goes away, then the restore brings it back
    assert display.request("DELETE", f"/v1/screens/{keep}", key=admin).status_code in (200, 204)
    snapshot_row.first.get_by_role("button", name=re.compile("^Restore backup")).click()
    dialog = p.get_by_role("dialog")
    dialog.get_by_role("button", name="Restore now").click()
    # the display exits with 75 for its supervisor (this test) to start it again
    assert display.process.wait(60) == 75
    # while the display is away the page says so, with a moving bar
    restoring = target.get_by_role("group", name="Progress for lobby")
    restoring.get_by_text("The display is restarting on the restored data…").wait_for()
    assert restoring.locator("progress").evaluate("bar => bar.position") == -1
    display.start(timeout=60)
    p.get_by_text("lobby restored.").wait_for(timeout=60_000)
    restoring.get_by_text("Restored; the display is back").wait_for()
    assert display.get(f"/v1/screens/{keep}", key=admin).status_code == 200
    assert not app.errors, app.errors


def test_on_a_phone_every_page_link_shows_whole(app):
    """The navigation was one scrolling row, cut at "Live previe…" on a 390 px phone: it wraps."""
    from tests.webapp.conftest import DESKTOP, PHONE

    p = app.page
    p.set_viewport_size(PHONE)
    try:
        p.goto("/#/displays")
        nav = p.get_by_role("navigation", name="Pages")
        nav.get_by_role("link", name="Backups").wait_for()
        assert nav.evaluate("el => el.scrollWidth <= el.clientWidth")
        # the header stays no more than 15 % of the screen over a form scrolled into view (it
        # was sticky, 232 px: 27 %)
        p.goto("/#/alerts")
        p.get_by_role("button", name="Raise alert").scroll_into_view_if_needed()
        header = p.locator("header.top").bounding_box()
        assert header["y"] + header["height"] <= 0.15 * PHONE["height"], header
        for link in nav.get_by_role("link").all():
            box = link.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (link.inner_text(), box)
    finally:
        p.set_viewport_size(DESKTOP)
    assert not app.errors, app.errors


def test_the_backup_target_forms_inputs_sit_on_one_line(app):
    """Schedule, time zone and backups kept sat at three heights (bottom-aligned over hints of
    different lengths)."""
    p = app.page
    p.goto("/#/backups")
    form = p.get_by_role("form", name="New backup target")
    form.get_by_label("Backups kept").wait_for()
    # the three read in one go: the target cards above may still be filling in (moving the form down)
    boxes = form.evaluate("""form => ["cronExpr", "timezone", "retentionCount"].map((name) => {
        const r = form.querySelector(`[name=${name}]`).getBoundingClientRect();
        return { y: r.y, height: r.height }; })""")
    assert len({round(box["y"]) for box in boxes}) == 1 and len({round(box["height"]) for box in boxes}) == 1, boxes
    assert not app.errors, app.errors


def test_a_type_without_base_url_in_its_schema_gets_a_base_url_field(app, fleet):
    """Every integration takes a base URL (config_json.baseUrl); a type whose schema does not list
    it had no field for it."""
    p = app.page
    open_settled(p, "/#/content")  # its sections fill in one by one, moving the form down
    p.get_by_label("enabled only").uncheck()
    search_integrations(p, "calendar")
    card = p.locator("li.integration", has=p.get_by_role("heading", name=re.compile(r" calendar_ical$")))
    card.get_by_text("Settings", exact=True).click()
    card.get_by_label("calendar_ical base URL").fill("http://127.0.0.1:9/never-fetched")  # disabled: not contacted
    card.get_by_role("button", name="Save calendar_ical").click()
    p.get_by_text("calendar_ical saved.").wait_for()
    row = fleet["display"].get("/v1/integrations/calendar_ical", key=fleet["admin"]).json()
    assert row["config_json"]["baseUrl"] == "http://127.0.0.1:9/never-fetched" and row["enabled"] is False
    assert not app.errors, app.errors


def test_an_integration_whose_plugin_is_missing(app, fleet):
    """Shown as "plugin missing" with no settings to save (it showed an empty type, "This type has
    no settings", and saved with 200)."""
    with closing(sqlite3.connect(fleet["display"].data_dir / "svc_display.sqlite3")) as db, db:
        db.execute("INSERT INTO svc_integration (id, integration_type, enabled, poll_seconds, "
                   "consecutive_failures, created_at_ms) VALUES ('plugin_http.gone', 'plugin_http.gone', 0, 900, 0, 1)")
    p = app.page
    open_settled(p, "/#/content")  # its sections fill in one by one, moving the form down
    p.get_by_label("enabled only").uncheck()
    search_integrations(p, "gone")
    card = p.locator("li.integration", has=p.get_by_role("heading", name="plugin_http.gone plugin_http.gone plugin missing"))
    card.get_by_text("No loaded plugin provides this type").wait_for()
    assert card.locator("input, button, select, textarea").count() == 0
    assert not app.errors, app.errors


def test_a_slide_whose_type_no_plugin_provides_is_marked_and_switched_off(app, fleet):
    """Issue 34: a slide stored while its plugin ran, whose type no loaded plugin provides now, is
    marked on the Program page with why (the display's type list and its GET /v1/display/screen)
    and can be switched off from its row."""
    with closing(sqlite3.connect(fleet["display"].data_dir / "svc_display.sqlite3")) as db, db:
        db.execute("INSERT INTO svc_screen (id, screen_type, name, description, enabled, dwell_seconds, "
                   "frequency_weight, sort_order, config_json, created_at_ms, updated_at_ms) VALUES "
                   "('orphan', 'weather_gone', 'Orphaned weather', '', 1, 10, 1, 0, '{}', 1, 1)")
    p = app.page
    p.goto("/")  # another page first: going to the page already shown would not draw it again
    open_settled(p, "/#/program", heading="Program of")
    row = p.locator("#program-screens tr[data-id='orphan']")
    row.get_by_text("Not shown: no loaded plugin provides the type weather_gone.").wait_for()
    assert "problem" in (row.get_attribute("class") or "")
    assert p.locator("#program-screens tr.problem").count() == 1  # the working slides are not marked
    row.get_by_role("switch").click()
    p.get_by_text("disabled.").first.wait_for()
    stored = fleet["display"].get("/v1/screens/orphan", key=fleet["admin"])
    assert stored.status_code == 200 and stored.json()["enabled"] is False, stored.text
    assert not app.errors, app.errors
