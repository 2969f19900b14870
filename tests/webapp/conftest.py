"""The controller web app in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright for Python) against a real ``svc-controller serve`` and real ``svc-display serve``
processes. One browser per module; servers are module-scoped.

Screenshots of the main pages are taken at phone (390x844) and desktop (1440x900) sizes into a
temporary folder (its path printed at the end of the run), or ``SVC_SCREENSHOTS_DIR``; with
``SVC_REFRESH_SCREENSHOTS=1`` into ``docs/screenshots/``, which the README shows (docs/testing.md).

Without Chromium the suite is skipped on a developer's machine, but fails where a browser is
required: under CI (``CI`` set, as CI services do) or with ``SVC_REQUIRE_BROWSER=1``
(``.ci/run`` sets it), so a CI run without a browser cannot pass by skipping.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from svc_display.testing import ServerProcess
from tests import REPO

CHROMIUM = os.environ.get("SVC_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENSHOTS = REPO / "docs" / "screenshots"  # the tracked ones: refreshed only on request
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


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes")


_taken: list[Path] = []  # this run's temporary folder, once made
_written: set[Path] = set()  # the folders screenshots went to, named at the end of the run


def screenshots_dir(env: dict[str, str] = os.environ) -> Path:
    """Where screenshots go: ``docs/screenshots`` with ``SVC_REFRESH_SCREENSHOTS=1`` (the tracked
    files change only when asked), else ``SVC_SCREENSHOTS_DIR``, else one temporary folder per run."""
    if _flag(env.get("SVC_REFRESH_SCREENSHOTS")):
        return SCREENSHOTS
    if env.get("SVC_SCREENSHOTS_DIR"):
        return Path(env["SVC_SCREENSHOTS_DIR"])
    if not _taken:
        _taken.append(Path(tempfile.mkdtemp(prefix="svc-screenshots-")))
    return _taken[0]


def screenshot(page: Any, name: str, focus: Any = None) -> Path:
    """The viewport, scrolled to the top or to ``focus`` (a locator) in the middle, as
    ``<screenshots_dir()>/<name>.png``; its path."""
    out = screenshots_dir()
    out.mkdir(parents=True, exist_ok=True)
    if focus is None:
        page.evaluate("window.scrollTo(0, 0)")
    else:
        focus.evaluate("el => el.scrollIntoView({block: 'center'})")
    path = out / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    _written.add(out)
    return path


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for folder in sorted(_written):
        terminalreporter.write_line(f"web app screenshots: {folder} (SVC_REFRESH_SCREENSHOTS=1 refreshes "
                                    "docs/screenshots)")


UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => el.type !== 'hidden' && !el.closest('[hidden]'))
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                    && !el.getAttribute('aria-labelledby') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 120))"""


def unlabelled(page: Any) -> list[str]:
    """Controls a screen reader could not name (no label, aria-label or text)."""
    return page.evaluate(UNLABELLED)


# WCAG 2.x contrast of every piece of text on the page, from the computed styles: the text's
# colour (and its ::before content, and the value of a form control) against the background it
# is drawn on (the backgrounds of the element and its ancestors, composited). Hidden, clipped
# (screen-reader only) and disabled elements are left out (WCAG exempts inactive controls), and so
# is sample text inside a picture (``data-contrast="picture"``: the theme previews, drawn in the
# display theme's own colours); text over a background image cannot be judged from styles and is
# counted apart.
LOW_CONTRAST = """(minimum) => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {  // top composited over an opaque bottom
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => { const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); };
  const background = (el) => {  // the opaque colour behind el, or null over an image
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.backgroundImage !== 'none') return null;
      const c = parse(cs.backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
    let out = canvas && canvas[3] >= 1 ? canvas : (matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1]);
    for (const layer of layers.reverse()) out = over(layer, out);
    return out;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const shown = (el) => {
    if (!el.getClientRects().length || el.closest(':disabled, [data-contrast=picture]')) return false;
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden' || cs.clip !== 'auto' || cs.clipPath !== 'none') return false;
    }
    return true;
  };
  const found = { checked: 0, overImages: 0, low: [] };
  const judge = (el, colour, text) => {
    const fg = parse(colour), bg = background(el);
    if (!bg) { found.overImages++; return; }
    if (!fg) { found.low.push(`${text.trim().slice(0, 40)}: colour ${colour} not understood`); return; }
    fg[3] *= opacity(el);
    const r = ratio(over(fg, bg), bg);
    found.checked++;
    if (r < minimum) found.low.push(`${text.trim().slice(0, 40)} (${el.tagName.toLowerCase()}.${el.className}): ${colour} on rgb(${bg.slice(0, 3).map(Math.round)}) = ${r.toFixed(2)}`);
  };
  const elements = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.data.trim() && n.parentElement) elements.add(n.parentElement);
  for (const el of elements) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'OPTION', 'TEXTAREA'].includes(el.tagName) || !shown(el)) continue;
    judge(el, getComputedStyle(el).color, el.textContent);
  }
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (!shown(el) || ['checkbox', 'radio', 'color', 'file', 'hidden', 'range'].includes(el.type)) continue;
    if (el.value) judge(el, getComputedStyle(el).color, el.value);
    else if (el.placeholder) judge(el, getComputedStyle(el, '::placeholder').color, el.placeholder);
  }
  for (const el of document.querySelectorAll('body *')) {
    const before = getComputedStyle(el, '::before');
    if (!['none', 'normal', '""', "''"].includes(before.content) && shown(el)) judge(el, before.color, before.content);
  }
  return found;
}"""


def low_contrast(page: Any, minimum: float = 4.5) -> dict:
    """{checked, overImages, low: [...]} for the page as it is (``low`` lists the text below ``minimum``:1)."""
    return page.evaluate(LOW_CONTRAST, minimum)


def shoot(page: Page, name: str, focus: Any = None) -> None:
    """``<name>-desktop.png`` and ``<name>-phone.png`` of the page as it is; every control
    on it must have a name, and its text must meet 4.5:1 contrast at both sizes in the light
    and the dark colour scheme."""
    p = page.page
    assert unlabelled(p) == [], unlabelled(p)
    screenshot(p, f"{name}-desktop", focus)
    for viewport in (PHONE, DESKTOP):
        p.set_viewport_size(viewport)
        for scheme in ("dark", "light"):
            p.emulate_media(color_scheme=scheme)
            found = low_contrast(p)
            assert found["checked"] > 0 and found["low"] == [], (name, viewport, scheme, found)
        if viewport is PHONE:
            screenshot(p, f"{name}-phone", focus)
