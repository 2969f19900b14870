"""A real canvas in a subprocess (offscreen SDL, llvmpipe) with the display test plugin
(:class:`CanvasServer`) or with only the builtin plugins (:class:`ServeCanvas`, plain
``svc-display serve``), helpers to read their live-preview frames, and to put slides and
overlays on screen (:func:`show_only`, :func:`message`, :func:`overlay`) and wait for a change."""
from __future__ import annotations

import io
import json
import os
import struct
import sys
import time
from pathlib import Path
from typing import Any

from PIL import Image
from websockets.sync.client import connect

from builtin_plugins.screens.display import TRANSITION_SECONDS
from svc_display.testing import ServerProcess
from tests import REPO

CANVAS_SIZE = (640, 360)
PREVIEW_WIDTH = 320
PREVIEW_FPS = 10


def canvas_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {
        "SVC_DISPLAY_DATA_DIR": str(data_dir),
        "SVC_DISPLAY_HEADLESS": "",
        "SDL_VIDEODRIVER": "offscreen",
        "SVC_DISPLAY_HTTP_TLS": "0",
        "SVC_DISPLAY_WINDOW_SIZE": f"{CANVAS_SIZE[0]}x{CANVAS_SIZE[1]}",
        "SVC_DISPLAY_MAX_FPS": "20",
        "SVC_DISPLAY_LIVE_PREVIEW_WIDTH": str(PREVIEW_WIDTH),
        "SVC_DISPLAY_LIVE_PREVIEW_FPS": str(PREVIEW_FPS),
        "SVC_DISPLAY_LIVE_PREVIEW_QUALITY": "80",
        "SVC_DISPLAY_LOG_LEVEL": "INFO",
    }
    env.update(extra)
    return env


# What a canvas test needs besides the plugins under test: API keys (``svc-display keys
# create``) and the live-preview frames it looks at.
WATCHING = ("clients", "live_preview")


def only_plugins(*keep: str) -> dict[str, str]:
    """``SVC_DISPLAY_DISABLE_PLUGINS`` naming every builtin plugin but ``keep`` and :data:`WATCHING`."""
    from importlib import metadata

    builtins = {ep.name for ep in metadata.entry_points(group="svc_display.plugins")
                if ep.dist is not None and ep.dist.name == "svc-display"}
    assert set(keep) <= builtins, sorted(set(keep) - builtins)
    return {"SVC_DISPLAY_DISABLE_PLUGINS": ",".join(sorted(builtins - set(keep) - set(WATCHING)))}


def running_plugins(server: ServerProcess) -> set[str]:
    """The plugins ``svc-display plugins list`` reports running with the server's environment
    (the list also names the disabled ones, with their state)."""
    out = server.cli("plugins", "list", "--json")
    assert out.returncode == 0, out.stderr
    return {row["id"] for row in json.loads(out.stdout) if row["state"] == "running"}


class CanvasClient:
    """Telemetry and live-preview helpers of a server process with a canvas."""

    port: int
    request: Any
    get: Any

    # -- program (display test plugin only) --------------------------------------------
    def put_program(self, key: str, **program: Any) -> None:
        r = self.request("PUT", "/v1/test-display/program", key=key, json=program)
        assert r.status_code == 200, r.text

    def put_settings(self, key: str, **body: Any) -> None:
        r = self.request("PUT", "/v1/test-display/settings", key=key, json=body)
        assert r.status_code == 200, r.text

    def programs(self, key: str, limit: int = 50) -> list[dict]:
        r = self.get(f"/v1/telemetry/programs?limit={limit}", key=key)
        assert r.status_code == 200, r.text
        return r.json()["items"]

    def current_slide(self, key: str) -> str | None:
        for line in self.programs(key):
            if line["reason"] != "program_changed":
                return line["slides"][0]["id"] if line["slides"] else None
        return None

    def wait_until_showing(self, key: str, slide_id: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.current_slide(key) == slide_id:
                return
            time.sleep(0.2)
        raise AssertionError(f"slide {slide_id!r} not showing; telemetry: {self.programs(key)[:5]}")

    def wait_for_slide(self, key: str, slide_id: str, timeout: float = 15, reason: str | None = None,
                       after_ms: int = 0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.programs(key):
                if line["at_ms"] < after_ms or (reason and line["reason"] != reason):
                    continue
                if line["reason"] != "program_changed" and [s["id"] for s in line["slides"]] == [slide_id]:
                    return line
            time.sleep(0.2)
        raise AssertionError(f"slide {slide_id!r} not shown; telemetry: {self.programs(key)[:5]}\n{self.log[-3000:]}")

    # -- live preview ----------------------------------------------------------------
    def ticket(self, key: str) -> str:
        r = self.request("POST", "/v1/display/live-preview/session", key=key)
        assert r.status_code == 200, r.text
        return r.json()["ticket"]

    def ws_url(self, ticket: str) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/display/live-preview/ws?ticket={ticket}"

    def frames(self, key: str, count: int = 1, skip: int = 1, timeout: float = 20) -> list[Image.Image]:
        """``count`` decoded frames after skipping ``skip`` (the first may predate a change)."""
        images = []
        with connect(self.ws_url(self.ticket(key)), additional_headers={"Authorization": f"Bearer {key}"},
                     open_timeout=10, max_size=None) as ws:
            deadline = time.monotonic() + timeout
            while len(images) < count + skip and time.monotonic() < deadline:
                images.append(decode(ws.recv(timeout=10)))
        assert len(images) >= count + skip, "too few frames"
        return images[skip:]

    def frame(self, key: str) -> Image.Image:
        return self.frames(key, 1, skip=2)[0]


class ServeCanvas(CanvasClient, ServerProcess):
    """``svc-display serve`` with its canvas offscreen and only the builtin plugins."""


class CanvasServer(CanvasClient, ServerProcess):
    """``python -m tests.display.harness``: serve + canvas + the display test plugin."""

    admin: str

    def seeded(self) -> "CanvasServer":
        """An admin key as ``admin`` and the display test plugin's content (``/v1/test-display/seed``)."""
        self.admin = self.key("admin")
        r = self.request("POST", "/v1/test-display/seed", key=self.admin)
        assert r.status_code == 200, r.text
        return self

    def start(self, timeout: float = 60) -> "CanvasServer":
        env = dict(self.env)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
        self.launch([sys.executable, "-m", "tests.display.harness"], env=env, cwd=str(REPO), timeout=timeout,
                    what="harness", interval=0.2)
        return self


def decode(message: bytes) -> Image.Image:
    (length,) = struct.unpack(">I", message[:4])
    assert length == len(message) - 4, "length prefix does not match the JPEG"
    assert message[4:6] == b"\xff\xd8", "not a JPEG"
    image = Image.open(io.BytesIO(message[4:]))
    image.load()
    return image.convert("RGB")


def changed_fraction(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int] | None = None,
                     threshold: int = 60) -> float:
    """Share of pixels whose RGB distance (sum of abs differences) exceeds ``threshold``."""
    if box:
        a, b = a.crop(box), b.crop(box)
    pa, pb = a.load(), b.load()
    width, height = a.size
    changed = 0
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            p, q = pa[x, y], pb[x, y]
            if abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > threshold:
                changed += 1
    return changed / (((width + 1) // 2) * ((height + 1) // 2))


def colour_fraction(image: Image.Image, rgb: tuple[int, int, int], tolerance: int = 70,
                    box: tuple[int, int, int, int] | None = None) -> float:
    if box:
        image = image.crop(box)
    px = image.load()
    width, height = image.size
    hits = 0
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            p = px[x, y]
            if abs(p[0] - rgb[0]) + abs(p[1] - rgb[1]) + abs(p[2] - rgb[2]) <= tolerance:
                hits += 1
    return hits / (((width + 1) // 2) * ((height + 1) // 2))


# -- slides and overlays on the display test plugin's canvas, seen in its preview frames --
PREVIEW_HEIGHT = PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0]
# ticker bar: 7.5 % of the height at the bottom; slides and overlays above it
SLIDE_BOX = (0, 0, PREVIEW_WIDTH, int(PREVIEW_HEIGHT * 0.9))
TICKER_BOX = (0, int(PREVIEW_HEIGHT * 0.94), PREVIEW_WIDTH, PREVIEW_HEIGHT)
GREY = "#303030"


def message(screen_id: str, colour: str, dwell: float = 60, **extra) -> dict:
    return {"id": screen_id, "screen_type": "message", "enabled": True, "dwell_seconds": dwell,
            "frequency_weight": 1, "config_json": {"body": screen_id, "backgroundColor": colour}, **extra}


def show_only(canvas: CanvasServer, screen: dict, **program) -> None:
    canvas.put_program(canvas.admin, screens=[screen], **program)
    canvas.wait_until_showing(canvas.admin, screen["id"])  # logged when the slide goes on screen
    # the change runs on frame time (it advances by each frame's dt over TRANSITION_SECONDS), so it has ended
    # in this wall time whatever the frame rate; frames are taken after it (frame() skips two)
    time.sleep(TRANSITION_SECONDS + 0.2)


def overlay(overlay_type: str, config: dict, **extra) -> dict:
    today = time.gmtime()
    return {"id": f"o_{overlay_type}", "enabled": True, "overlay_type": overlay_type, "label": overlay_type,
            "config_json": config, "start_month": today.tm_mon, "start_day": today.tm_mday, **extra}


def wait_for_change(canvas: CanvasServer, baseline, box, minimum: float, timeout: float = 45, colour=None):
    # 45 s: under load (two busy loops beside the suite) a frame request takes up to 1.7 s and an
    # overlay's first build waits for the UI thread; the wait ends at the first changed frame
    deadline = time.monotonic() + timeout
    frame = None
    while time.monotonic() < deadline:
        frame = canvas.frame(canvas.admin)
        if changed_fraction(baseline, frame, box) > minimum and (
                colour is None or colour_fraction(frame, colour, 150, box) > 0.004):
            return frame
        time.sleep(0.2)
    shows = canvas.get("/v1/display/screen", key=canvas.admin).text[:1500]  # what the screen says it shows
    raise AssertionError(f"no visible change (last {changed_fraction(baseline, frame, box):.4f})\n"
                         f"screen: {shows}\n{canvas.log[-2000:]}")


# -- every builtin type's example_config (kept last: it seeds the content the examples name) --
def no_containment_error(canvas: CanvasServer, type_id: str) -> None:
    assert f"renderer '{type_id}' of plugin" not in canvas.log, canvas.log[-3000:]
