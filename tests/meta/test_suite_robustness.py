"""The suite's own robustness (issue 37 item 3): the tests that take shared resources (an X
display, a loopback port) pass beside other processes taking the same kind of resource at the
same moment, as another worker, another checkout's suite or a developer's session would.

A child pytest runs the window test (its Xvfb) and the server port tests while this test starts
competing X servers of another size (1024x768: a window test on one of them would see it) and a
competing ``svc-display serve``, and keeps loopback ports bound and listening throughout.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading

import pytest

from svc_display.testing import ServerProcess
from svc_display.testing.xserver import xvfb
from tests import REPO

pytestmark = pytest.mark.slow

CHILD_TESTS = [
    "tests/display/test_window.py",
    "tests/host/test_server.py::test_a_taken_port_is_not_announced_and_a_test_server_reads_back_the_port_it_bound",
    "tests/host/test_server.py::test_keys_created_while_serving_work_at_once",
]


@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xwininfo")), reason="needs Xvfb and xwininfo")
def test_window_and_port_tests_pass_beside_competing_x_servers_and_servers(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_XDIST_WORKER"}
    child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "no:xdist", "-W", "ignore", *CHILD_TESTS], cwd=str(REPO), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    displays: list[str] = []
    with contextlib.ExitStack() as stack:
        holders = []
        for _ in range(8):  # loopback ports bound and listening while the child chooses its own
            holder = stack.enter_context(socket.socket())
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            holders.append(holder)

        def compete() -> None:
            for _ in range(3):  # X servers coming and going while the child starts its own
                with xvfb("1024x768x24") as display:
                    displays.append(display)
                    if child.poll() is not None:
                        return
        competitors = [threading.Thread(target=compete) for _ in range(2)]
        for thread in competitors:
            thread.start()
        server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "competitor" / "data"),
                                "SVC_DISPLAY_HEADLESS": "1"})
        stack.callback(server.stop)
        server.start(timeout=120)
        assert server.get("/v1/health").status_code == 200
        out, _ = child.communicate(timeout=600)
        for thread in competitors:
            thread.join(120)
    assert child.returncode == 0, out
    assert "3 passed" in out, out
    assert displays, "no competing X server ran"


def screen_of(display: str) -> str:
    """``WxH`` of the screen on ``display``, or what ``xdpyinfo`` said instead."""
    shown = subprocess.run(["xdpyinfo", "-display", display], capture_output=True, text=True, timeout=30)
    return next((line.split()[1] for line in shown.stdout.splitlines() if "dimensions:" in line),
                f"no screen (xdpyinfo exit {shown.returncode}: {shown.stderr.strip()[:200]})")


@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdpyinfo")), reason="needs Xvfb and xdpyinfo")
def test_two_x_servers_started_together_each_keep_their_own_display():
    """A second Xvfb takes the next free number and leaves the first its screen. With ``-nolisten
    local`` both took ``:0`` (the probe unlinked the live server's socket file and bound its own) and
    the first one's clients reached the second's screen (CI: a 1024x768 window for a 1024x576 Xvfb)."""
    with xvfb("640x480x24") as first, xvfb("800x600x24") as second:
        assert first != second
        assert screen_of(first) == "640x480" and screen_of(second) == "800x600"


@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdpyinfo")), reason="needs Xvfb and xdpyinfo")
def test_an_x_server_whose_screen_cannot_be_read_back_is_replaced_by_another(monkeypatch):
    """An X server the kit cannot reach (its socket taken away by another server's start or stop)
    is stopped and another started, rather than a display nobody can reach handed out."""
    from svc_display.testing import xserver

    real, started = xserver._start, []

    def start(size, timeout):
        server, display = real(size, timeout)
        started.append(server)
        return server, ":65000" if len(started) == 1 else display  # the first one: out of reach

    monkeypatch.setattr(xserver, "_start", start)
    with xvfb("640x480x24") as display:
        assert screen_of(display) == "640x480"
        assert len(started) == 2 and started[0].poll() is not None  # the unreachable one was stopped
    assert started[1].poll() is not None
