"""Every file of the web app is shipped: an installed package carries what the repository runs."""
from __future__ import annotations

import tomllib

from tests import REPO

WEB = REPO / "svc_controller" / "web"


def test_package_data_lists_every_web_file():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["svc_controller"]
    package = REPO / "svc_controller"
    shipped = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    files = {p for p in WEB.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files and files == shipped, sorted(str(p.relative_to(package)) for p in files ^ shipped)


def test_the_app_loads_nothing_from_another_host():
    """Offline on a LAN: the only absolute URLs in the app are the example of a display's
    address and the one it builds from what a person typed; everything else is relative."""
    import re

    allowed = {"https://192.168.1.20:8787", "https://${value}"}
    for path in WEB.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            urls = set(re.findall(r"[a-z]+://[^\s\"'`)]+", path.read_text()))
            assert {u.rstrip(".") for u in urls} <= allowed, (path, urls)
            assert "@import" not in path.read_text(), path


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(tmp_path):
    """Run in a pytest of its own with no Chromium: skipped on a developer's machine, an error
    (not a skip) under CI or with SVC_REQUIRE_BROWSER=1."""
    import os
    import subprocess
    import sys

    from tests.webapp.conftest import browser_required

    (tmp_path / "test_needs_browser.py").write_text(
        "from tests.webapp.conftest import browser  # noqa: F401\n\n\ndef test_page(browser):\n    pass\n")
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SVC_REQUIRE_BROWSER")}
    base.update(SVC_TEST_CHROMIUM=str(tmp_path / "no-chromium"), PYTHONPATH=str(REPO))
    outcomes = {}
    cases = {"developer": {}, "ci": {"CI": "true"}, "required": {"SVC_REQUIRE_BROWSER": "1"}}
    for name, extra in cases.items():
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "no:xdist", str(tmp_path / "test_needs_browser.py")], cwd=tmp_path,
                             env={**base, **extra}, capture_output=True, text=True, timeout=120)
        outcomes[name] = (run.returncode, run.stdout)
    assert outcomes["developer"][0] == 0 and "1 skipped" in outcomes["developer"][1], outcomes["developer"]
    for name in ("ci", "required"):
        code, out = outcomes[name]
        assert code == 1 and "1 error" in out and "requires the browser tests to run" in out, (name, out)
    assert not browser_required({}) and not browser_required({"CI": "false", "SVC_REQUIRE_BROWSER": "0"})
    assert browser_required({"CI": "1"}) and browser_required({"SVC_REQUIRE_BROWSER": "yes"})


def test_screenshots_refresh_the_tracked_ones_only_when_asked(tmp_path):
    """docs/testing.md: screenshots go to a folder of the run, or SVC_SCREENSHOTS_DIR; the tracked
    docs/screenshots only with SVC_REFRESH_SCREENSHOTS=1."""
    from tests.webapp.conftest import SCREENSHOTS, screenshots_dir

    assert SCREENSHOTS == REPO / "docs" / "screenshots"
    assert screenshots_dir({"SVC_REFRESH_SCREENSHOTS": "1"}) == SCREENSHOTS
    assert screenshots_dir({"SVC_SCREENSHOTS_DIR": str(tmp_path)}) == tmp_path
    for env in ({}, {"SVC_REFRESH_SCREENSHOTS": "0"}, {"SVC_REFRESH_SCREENSHOTS": ""}):
        default = screenshots_dir(env)
        assert default != SCREENSHOTS and REPO not in default.parents and default.is_dir()
