"""Collectors never run on the canvas's UI thread: while a collector is stuck on its upstream
(a loopback server that holds the request until the test lets it go), the real ``svc-display
serve`` canvas keeps drawing frames and its ticker keeps moving (issue 29: a player that also
collects feeds must not freeze its screen on a slow feed).

The evidence is ordering, not timing: the live-preview viewer connects only after the upstream
holds the collector's request, and capture starts with the first viewer, so every frame it gets
was drawn while the collector was blocked; the request is still held when the frames are in."""
from __future__ import annotations

import threading

from svc_display.testing.upstream import Reply
from tests.display.canvas import CANVAS_SIZE, PREVIEW_WIDTH, ServeCanvas, canvas_env, changed_fraction
from tests.integrations.upstream import wait_for

PREVIEW_HEIGHT = PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0]
TICKER_BOX = (0, int(PREVIEW_HEIGHT * 0.93), PREVIEW_WIDTH, PREVIEW_HEIGHT)


def test_the_canvas_draws_on_while_a_collector_is_blocked(tmp_path, upstream):
    held, release, answered = threading.Event(), threading.Event(), threading.Event()

    def hold(_request):
        held.set()
        release.wait(120)
        answered.set()
        return Reply(200, {"Content-Type": "application/json"}, b'[{"q": "Held.", "a": "Test", "h": ""}]')

    upstream.handle("/api/quotes", hold)
    device = ServeCanvas(canvas_env(tmp_path / "data", SVC_DISPLAY_REFRESH_SECONDS="3600")).start(timeout=60)
    try:
        key = device.key("admin")
        tape = {"id": "moving", "ticker_type": "text",
                "config_json": {"text": "A ticker that moves while a feed is stuck " * 3}}
        assert device.request("POST", "/v1/ticker/tapes", key=key, json=tape).status_code == 201
        r = device.request("PATCH", "/v1/integrations/quote_zenquotes", key=key,
                           json={"enabled": True, "base_url": upstream.url})
        assert r.status_code == 200, r.text
        assert held.wait(60), "the collector never reached the upstream"

        frames = device.frames(key, count=4, skip=0, timeout=60)  # capture starts now: all drawn while held
        assert not answered.is_set()  # the collector is still blocked on the upstream
        moved = [changed_fraction(a, b, TICKER_BOX) for a, b in zip(frames, frames[1:])]
        assert max(moved) > 0.01, moved  # the band scrolled between frames
        assert device.get("/v1/health").status_code == 200

        release.set()
        wait_for(lambda: [line for line in device.get("/v1/telemetry/integrations", key=key).json()["items"]
                          if line.get("integration_type") == "quote_zenquotes"
                          and line["message"].startswith("collected")], timeout=60)
    finally:
        release.set()
        device.stop()
