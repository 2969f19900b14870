"""The done-when check of issue 11 for ``basic``: with only ``screens`` and ``basic`` enabled (and
what the test needs to reach and watch the display: API keys, live-preview frames), a message
slide created through REST shows on a real offscreen canvas in the colours it asked for."""
from __future__ import annotations

from tests.display.canvas import (
    CANVAS_SIZE, PREVIEW_WIDTH, WATCHING, ServeCanvas, canvas_env, colour_fraction,
    only_plugins, running_plugins,
)
from tests.integrations.upstream import wait_for

MAGENTA = (255, 0, 255)
BOX = (0, 0, PREVIEW_WIDTH, PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0])


def test_a_message_slide_works_with_only_screens_and_basic(tmp_path):
    server = ServeCanvas(canvas_env(tmp_path / "data", **only_plugins("screens", "basic"))).start(timeout=60)
    try:
        admin = server.key("admin")
        assert running_plugins(server) == {"screens", "basic", *WATCHING}
        assert colour_fraction(server.frame(admin), MAGENTA, box=BOX) < 0.01
        r = server.request("POST", "/v1/screens", key=admin, json={
            "id": "hello", "screen_type": "message",
            "config_json": {"title": "Lobby", "body": "Only basic", "backgroundColor": "#ff00ff"}})
        assert r.status_code == 201, r.text
        wait_for(lambda: colour_fraction(server.frame(admin), MAGENTA, box=BOX) > 0.6, timeout=30,
                 interval=0.3)
        assert "renderer 'message'" not in server.log and "Traceback" not in server.log
    finally:
        server.stop()
