"""The controller web app in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright for Python) against a real ``svc-controller serve`` and real ``svc-display serve``
processes. One browser per module; servers are module-scoped.

Screenshots of the main pages go to ``docs/screenshots/`` at phone (390x844) and desktop
(1440x900) sizes: the README shows them.

Without Chromium the suite is skipped on a developer's machine, but fails where a browser is
required: under CI (``CI`` set, as CI services do) or with ``SVC_REQUIRE_BROWSER=1``
(``.ci/run`` sets it), so a CI run without a browser cannot pass by skipping.
"""
from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.conftest import REPO, ServerProcess

CHROMIUM = os.environ.get("SVC_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENSHOTS = REPO / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
CODE = re.compile(r'adoption challenge for identifier "([^"]+)" role \w+: ([0-9A-Z]{4}-[0-9A-Z]{4})')


def browser_required(env: dict[str, str] = os.environ) -> bool:
    """True under CI or with SVC_REQUIRE_BROWSER=1: a missing browser fails instead of skipping."""
    flag = env.get("SVC_REQUIRE_BROWSER", "").strip().lower()
    ci = env.get("CI", "").strip().lower()
    return flag in ("1", "true", "yes") or ci not in ("", "0", "false", "no")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
        if browser_required():
            pytest.fail(f"{missing}, and CI or SVC_REQUIRE_BROWSER=1 requires the browser tests to run",
                        pytrace=False)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


class Page:
    """A browser page on the controller, collecting console errors (a test fails on any)."""

    def __init__(self, browser: Any, base_url: str, viewport: dict = DESKTOP):
        self.context = browser.new_context(ignore_https_errors=True, viewport=viewport, base_url=base_url)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        # Refused requests the app handles are logged by Chromium as "Failed to load resource": not errors of the app.
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.set_default_timeout(30_000)  # a shared 2-core machine: generous, never a sleep

    def close(self) -> None:
        self.context.close()


def challenge_code(display: ServerProcess, identifier_prefix: str, timeout: float = 20) -> tuple[str, str]:
    """(identifier, code) of the newest challenge line the headless display printed on stderr."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in CODE.finditer(display.log) if m.group(1).startswith(identifier_prefix)]
        if found:
            return found[-1].group(1), found[-1].group(2)
        time.sleep(0.2)
    raise AssertionError(f"no adoption challenge in the display's log:\n{display.log[-2000:]}")


def screenshot(page: Any, name: str, focus: Any = None) -> None:
    """The viewport, scrolled to the top or to ``focus`` (a locator) in the middle."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if focus is None:
        page.evaluate("window.scrollTo(0, 0)")
    else:
        focus.evaluate("el => el.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => el.type !== 'hidden' && !el.closest('[hidden]'))
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                    && !el.getAttribute('aria-labelledby') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 120))"""


def unlabelled(page: Any) -> list[str]:
    """Controls a screen reader could not name (no label, aria-label or text)."""
    return page.evaluate(UNLABELLED)


def shoot(page: Page, name: str, focus: Any = None) -> None:
    """``<name>-desktop.png`` and ``<name>-phone.png`` of the page as it is; every control
    on it must have a name."""
    p = page.page
    assert unlabelled(p) == [], unlabelled(p)
    screenshot(p, f"{name}-desktop", focus)
    p.set_viewport_size(PHONE)
    screenshot(p, f"{name}-phone", focus)
    p.set_viewport_size(DESKTOP)
