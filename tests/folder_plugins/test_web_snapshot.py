"""The web snapshot helper with the real browser (Debian's chromium; `.ci/run` installs it)
against a real loopback web server."""
from __future__ import annotations

import io
import logging
import tempfile
import time

import pytest
from PIL import Image

from builtin_plugins.folder_plugins.web_snapshot import (
    BROWSER_ENV,
    MIN_REFRESH_SECONDS,
    PeriodicSnapshot,
    find_browser,
    snapshot,
)
from tests.display.web_page import ColourPage, closed_port, live_processes

TEAL, VIOLET = (0, 200, 200), (120, 0, 255)
LOGGER = "builtin_plugins.folder_plugins.web"


@pytest.fixture(scope="module")
def page():
    assert find_browser(), f"no browser: install chromium (.ci/run does) or set {BROWSER_ENV}"
    server = ColourPage(TEAL).start()
    yield server
    server.close()


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """The browser's temporary profiles under ``tmp_path``: its processes name that path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return str(tmp_path)


def centre(png: bytes) -> tuple[tuple[int, int], tuple[int, ...]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.size, image.getpixel((image.width // 2, image.height // 2))


def near(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 6) -> bool:
    return sum(abs(x - y) for x, y in zip(a, b)) <= tolerance


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


def test_the_browser_comes_from_the_plugins_setting_or_the_path(tmp_path):
    """SVC_DISPLAY_BROWSER is the folder_plugins plugin's declared setting (register_settings),
    read with the host's rules, not straight from os.environ."""
    from svc_host.config import load_settings, read_plugin_settings
    from svc_host.plugins import load_plugins

    assert find_browser()
    assert find_browser("  ") == find_browser()
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path), BROWSER_ENV: "/opt/some/chrome"}
    values = read_plugin_settings(load_settings(env), load_plugins()).plugin_values("folder_plugins")
    assert find_browser(values.browser) == "/opt/some/chrome"
    values = read_plugin_settings(load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path)}),
                                  load_plugins()).plugin_values("folder_plugins")
    assert values.browser is None and find_browser(values.browser)


# The hard limit of a browser run in the tests that expect a picture: the product's 30 s is a
# display's budget; a headless Chromium on a machine loaded by the rest of the suite once took longer.
LOADED_SECONDS = 120


@pytest.mark.parametrize("size", [(320, 180), (97, 61)])
def test_a_snapshot_is_a_png_of_the_requested_size_showing_the_page(page, own_tmp, size):
    png = snapshot(page.url, size, timeout=LOADED_SECONDS)
    assert png is not None and png.startswith(b"\x89PNG")
    got_size, pixel = centre(png)
    assert got_size == size
    assert near(pixel, TEAL), pixel
    assert live_processes(own_tmp) == []


def test_an_unreachable_page_gives_none_and_one_log_line(caplog):
    url = f"http://127.0.0.1:{closed_port()}/status?token=s3cret"
    assert snapshot(url, (200, 100)) is None
    lines = warnings(caplog)
    assert len(lines) == 1, lines
    assert "ERR_CONNECTION_REFUSED" in lines[0] and url.split("?")[0] in lines[0]
    assert "s3cret" not in lines[0]  # query strings may carry tokens: never logged


def test_a_browser_that_does_not_exist_gives_none(page, caplog):
    assert snapshot(page.url, (200, 100), browser="/nonexistent/chromium") is None
    lines = warnings(caplog)
    assert len(lines) == 1 and "cannot run /nonexistent/chromium" in lines[0], lines


def test_only_http_urls_are_opened(caplog):
    started = time.monotonic()
    assert snapshot("file:///etc/passwd", (200, 100)) is None
    assert time.monotonic() - started < 0.5  # refused before any browser starts
    assert "not an http(s) URL" in warnings(caplog)[0]


def test_a_page_that_never_answers_is_given_up_and_the_browser_stopped(page, own_tmp, caplog):
    started = time.monotonic()
    assert snapshot(page.base + "/hang", (200, 100), timeout=4) is None
    assert time.monotonic() - started < 4 + 3
    assert "took more than 4 s" in warnings(caplog)[0]
    assert live_processes(own_tmp) == [] and live_processes(page.base + "/hang") == []


def next_snapshot(refresh: PeriodicSnapshot, timeout: float = LOADED_SECONDS + 5) -> bytes | None:
    """Tick like the display does (every 50 ms) until a snapshot is handed over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = refresh.tick(0.05)
        if data is not None:
            return data
        time.sleep(0.05)
    return None


def test_periodic_snapshots_follow_the_page_one_browser_at_a_time(page, own_tmp):
    page.colour = TEAL
    refresh = PeriodicSnapshot(page.url, (160, 90), period=1, timeout=LOADED_SECONDS)
    assert refresh.period == MIN_REFRESH_SECONDS  # a tiny period cannot start a browser every frame
    try:
        assert refresh.tick(MIN_REFRESH_SECONDS / 2) is None and not refresh.busy
        served = page.served
        refresh.tick(MIN_REFRESH_SECONDS / 2)
        assert refresh.busy
        assert refresh.tick(MIN_REFRESH_SECONDS * 5) is None  # however late the frame: one browser at a time
        first = next_snapshot(refresh)
        assert first is not None and near(centre(first)[1], TEAL)
        assert page.served == served + 1
        assert refresh.tick(0) is None  # handed over once
        page.colour = VIOLET
        refresh.tick(MIN_REFRESH_SECONDS)
        second = next_snapshot(refresh)
        assert second is not None and near(centre(second)[1], VIOLET)
    finally:
        refresh.dispose()
    assert live_processes(own_tmp) == []


def test_dispose_stops_a_snapshot_in_flight(page, own_tmp):
    url = page.base + "/hang"
    refresh = PeriodicSnapshot(url, (160, 90), period=MIN_REFRESH_SECONDS)
    refresh.tick(MIN_REFRESH_SECONDS)
    deadline = time.monotonic() + 20
    browser = []
    while not browser and time.monotonic() < deadline:
        browser = live_processes(url)
        time.sleep(0.05)
    assert browser, "the browser did not start"
    while len(live_processes(group=browser[0])) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)  # its helper processes (zygotes, renderer, network service) are up
    started = time.monotonic()
    refresh.dispose()
    assert time.monotonic() - started < 5
    assert not refresh.busy
    # SIGKILL is delivered at once, but on a loaded machine the killed helpers may take a moment
    # to leave the process table (reparented to init and reaped there): wait for it, boundedly.
    gone_by = time.monotonic() + 10
    while (live_processes(group=browser[0]) or live_processes(own_tmp)) and time.monotonic() < gone_by:
        time.sleep(0.05)
    assert live_processes(group=browser[0]) == [] and live_processes(own_tmp) == []
    assert refresh.tick(MIN_REFRESH_SECONDS * 2) is None and not refresh.busy  # disposed: no new browser


def test_an_immediate_one_shot_takes_one_snapshot_at_once(page, own_tmp):
    """``plugin_web`` without ``refresh_seconds``: the first snapshot starts on the first
    tick (off the display's loader thread), and no other follows."""
    page.colour = TEAL
    refresh = PeriodicSnapshot(page.url, (160, 90), period=None, immediately=True, timeout=LOADED_SECONDS)
    try:
        served = page.served
        assert refresh.tick(0) is None and refresh.busy
        first = next_snapshot(refresh)
        assert first is not None and near(centre(first)[1], TEAL)
        assert refresh.tick(MIN_REFRESH_SECONDS * 100) is None and not refresh.busy
        assert page.served == served + 1
    finally:
        refresh.dispose()
    assert live_processes(own_tmp) == []
