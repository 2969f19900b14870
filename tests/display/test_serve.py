"""``svc-display serve`` as a real process: canvas offscreen, canvas unavailable, headless."""
from __future__ import annotations

import time

from svc_display.testing import ServerProcess
from svc_display.testing.xserver import unserved_display
from tests.display.canvas import canvas_env


def serve(tmp_path, **extra) -> ServerProcess:
    return ServerProcess(canvas_env(tmp_path / "data", **extra)).start(timeout=60)


def test_serve_runs_the_canvas_offscreen_next_to_the_api(tmp_path):
    server = serve(tmp_path, SVC_DISPLAY_LIVE_PREVIEW_ENABLED="0")
    try:
        key = server.key("admin")
        r = server.get("/v1/display/live-preview", key=key)
        assert r.json() == {"configured": True, "enabled": False, "fps": 10, "width": 320, "quality": 80}
        r = server.request("POST", "/v1/display/live-preview/session", key=key)
        assert r.status_code == 503 and r.json()["code"] == "live_preview_unavailable"
        r = server.request("POST", "/v1/display/navigation", key=key, json={"surface": "screen",
                                                                            "direction": "forward"})
        assert r.status_code == 202
    finally:
        assert server.stop() == 0
    assert "display: offscreen canvas 640x360 (multisamples 0)" in server.log


def test_serve_keeps_serving_headless_when_the_canvas_cannot_start(tmp_path):
    server = serve(tmp_path, SDL_VIDEODRIVER="no-such-driver")
    try:
        key = server.key("admin")
        r = server.request("POST", "/v1/display/navigation", key=key, json={"surface": "screen",
                                                                            "direction": "forward"})
        assert r.status_code == 503 and r.json()["code"] == "navigation_unavailable"
        assert server.get("/v1/display/live-preview", key=key).json()["configured"] is False
    finally:
        server.stop()  # uvicorn re-raises SIGTERM after a clean shutdown on the main thread
    lines = [line for line in server.log.splitlines() if "canvas unavailable" in line]
    assert len(lines) == 1 and "serving headless" in lines[0]
    assert "Traceback" not in server.log


def test_a_window_whose_x_server_does_not_answer_is_said_unavailable_not_drawn_offscreen(tmp_path):
    """DISPLAY names the screen meant: SDL falling back to its offscreen driver drew a 1024x768
    "window" nobody saw while the log said a window canvas ran (beside X servers coming and going,
    6 starts in 84 under a reachable Xvfb)."""
    with unserved_display() as display:
        server = serve(tmp_path, SDL_VIDEODRIVER="", SVC_DISPLAY_WINDOW_SIZE="", DISPLAY=display)
        try:
            key = server.key("admin")
            r = server.request("POST", "/v1/display/navigation", key=key, json={"surface": "screen",
                                                                                "direction": "forward"})
            assert r.status_code == 503 and r.json()["code"] == "navigation_unavailable"
        finally:
            server.stop()
    lines = [line for line in server.log.splitlines() if "canvas unavailable" in line]
    assert len(lines) == 1 and "serving headless" in lines[0] and f"DISPLAY={display} did not answer" in lines[0]
    assert "window canvas" not in server.log and "offscreen canvas" not in server.log


def test_serve_headless_has_no_canvas(tmp_path):
    server = serve(tmp_path, SVC_DISPLAY_HEADLESS="1")
    try:
        key = server.key("admin")
        assert server.get("/v1/display/live-preview", key=key).json()["configured"] is False
    finally:
        server.stop()
    assert "display: headless" in server.log
    assert "kivy" not in server.log.lower()


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_offscreen_frames_are_drawn_before_the_next_one_is_issued(tmp_path):
    """Offscreen nothing paces the UI thread: unless each frame is waited for, the frames it issues
    faster than llvmpipe draws them pile up in memory (a full-screen slide under 300 confetti
    pieces, uncapped, grew by gigabytes). Drawn one at a time, the process stays the same size."""
    server = serve(tmp_path, SVC_DISPLAY_WINDOW_SIZE="1920x1080", SVC_DISPLAY_MAX_FPS="0",
                   SVC_DISPLAY_LOG_LEVEL="WARNING")
    try:
        key = server.key("admin")
        r = server.request("POST", "/v1/screens", key=key, json={
            "id": "slide", "screen_type": "message", "dwell_seconds": 3600,
            "config_json": {"title": "Memory", "body": "under confetti", "backgroundColor": "#1f4e79"}})
        assert r.status_code == 201, r.text
        r = server.request("POST", "/v1/display/overlays", key=key, json={
            "id": "confetti", "overlay_type": "birthday_confetti", "start_month": 1, "start_day": 1,
            "end_month": 12, "end_day": 31, "config_json": {"density": 1.5, "shapes": ["mix"]}})
        assert r.status_code in (200, 201), r.text
        time.sleep(5)  # the slide and the overlay built, a few hundred frames drawn
        before = rss_mb(server.process.pid)
        time.sleep(15)
        after = rss_mb(server.process.pid)
    finally:
        assert server.stop() == 0
    assert after - before < 150, (before, after)
