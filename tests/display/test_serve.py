"""``svc-display serve`` as a real process: canvas offscreen, canvas unavailable, headless."""
from __future__ import annotations

from svc_display.testing import ServerProcess
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


def test_serve_headless_has_no_canvas(tmp_path):
    server = serve(tmp_path, SVC_DISPLAY_HEADLESS="1")
    try:
        key = server.key("admin")
        assert server.get("/v1/display/live-preview", key=key).json()["configured"] is False
    finally:
        server.stop()
    assert "display: headless" in server.log
    assert "kivy" not in server.log.lower()
