"""The window on a real X server without a window manager (Xvfb): fullscreen is not honoured
there, so the window itself must be the screen's size."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from svc_display.testing.xserver import xvfb
from tests import REPO

pytestmark = pytest.mark.slow

CHILD = """
import sys
from svc_host.config import load_settings
from svc_host.display import MODE_WINDOW, start_kivy
from svc_host.host import build_host

host = build_host(load_settings({"SVC_DISPLAY_DATA_DIR": sys.argv[1], "SVC_DISPLAY_HEADLESS": ""}), with_routes=False)
window = start_kivy(host, MODE_WINDOW)
from kivy.base import EventLoop
for _ in range(5):
    EventLoop.idle()
print("KIVY", *window.size, flush=True)
input()  # the test reads the X window's geometry meanwhile
host.close()
"""


@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xwininfo")), reason="needs Xvfb and xwininfo")
def test_without_a_window_manager_the_window_is_the_screens_size(tmp_path):
    with xvfb("1024x576x24") as display:  # the number Xvfb chose (-displayfd), not a guess
        env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
        env.pop("SDL_VIDEODRIVER", None)
        env.pop("SVC_DISPLAY_WINDOW_SIZE", None)
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "data")], env=env, cwd=str(REPO),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = child.stdout.readline()
            assert line.startswith("KIVY"), child.stderr.read() if child.poll() is not None else line
            tree = subprocess.run(["xwininfo", "-root", "-children"], env=env, capture_output=True, text=True).stdout
        finally:
            child.communicate("\n", timeout=30)
    assert line.split()[1:] == ["1024", "576"]
    windows = [entry for entry in tree.splitlines() if "python" in entry.lower()]
    assert windows and all("1024x576+0+0" in entry for entry in windows), tree  # not Kivy's 800x600, cropped
