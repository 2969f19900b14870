"""The done-when check of issue 11 for ``content``: with only ``screens``, ``content`` and the
curator (whose categories a manual joke must name) enabled, plus what the test needs to reach and
watch the display (API keys, live-preview frames), a joke entered through REST shows on a real
offscreen canvas: the joke slide is skipped while there is no joke and drawn once there is one."""
from __future__ import annotations

import time

from tests.display.canvas import (
    CANVAS_SIZE, PREVIEW_WIDTH, WATCHING, ServeCanvas, canvas_env, changed_fraction, colour_fraction,
    only_plugins, running_plugins,
)
from tests.integrations.upstream import wait_for

BOX = (0, 0, PREVIEW_WIDTH, PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0])
CORAL = (255, 111, 97)  # the default theme's first accent: the slide's title bar and the punchline


def drawn(frame) -> bool:
    return colour_fraction(frame, CORAL, 60, BOX) > 0.0005


def test_a_manual_joke_shows_with_only_screens_and_content(tmp_path):
    server = ServeCanvas(canvas_env(tmp_path / "data", **only_plugins("screens", "content", "curator")))
    server.start(timeout=60)
    try:
        admin = server.key("admin")
        assert running_plugins(server) == {"screens", "content", "curator", *WATCHING}
        r = server.request("POST", "/v1/screens", key=admin, json={
            "id": "jokes", "screen_type": "joke",
            "config_json": {"categoryId": "jokes", "revealDelaySeconds": 0}})
        assert r.status_code == 201, r.text
        time.sleep(2)  # the slides layer loads the screen: no joke yet, so the slide is skipped
        empty = server.frame(admin)
        time.sleep(1)
        assert not drawn(empty) and not drawn(server.frame(admin)), "a slide without content was drawn"
        assert changed_fraction(empty, server.frame(admin), BOX) < 0.005
        r = server.request("POST", "/v1/curator/manual/jokes", key=admin, json={
            "category_id": "jokes", "setup": "Why did the canvas blush?", "punchline": "It saw the Fbo."})
        assert r.status_code == 201, r.text
        wait_for(lambda: drawn(server.frame(admin)), timeout=30, interval=0.3)
        assert changed_fraction(empty, server.frame(admin), BOX) > 0.01  # the joke's text
        assert "renderer 'joke'" not in server.log and "Traceback" not in server.log
    finally:
        server.stop()
