"""Proof of play on ``svc-display serve`` with its canvas (offscreen): nothing plays while the
display is off (the power plugin darkens the canvas), and the slide shown before goes on playing
once it is lit again, as a new play."""
from __future__ import annotations

import pytest

from svc_display.testing.upstream import wait_for
from tests.display.canvas import ServeCanvas, canvas_env

pytestmark = pytest.mark.slow


def plays(server, key: str) -> list[dict]:
    answer = server.get("/v1/telemetry/plays?kind=slide", key=key)
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def test_a_dark_display_ends_the_play_and_lit_again_starts_a_new_one(tmp_path):
    server = ServeCanvas(canvas_env(tmp_path / "data", SVC_DISPLAY_POWER_BACKEND="none")).start(timeout=90)
    try:
        key = server.key("admin")
        answer = server.request("POST", "/v1/screens", key=key, json={
            "id": "lobby", "name": "Lobby welcome", "screen_type": "message", "dwell_seconds": 600,
            "config_json": {"title": "Welcome", "body": "Lobby"}})
        assert answer.status_code == 201, answer.text
        server.wait_until_showing(key, "lobby", timeout=60)
        assert plays(server, key) == []  # on screen: written when it ends
        assert server.request("POST", "/v1/display/power", key=key, json={"state": "off"}).status_code == 200
        wait_for(lambda: len(plays(server, key)) == 1, timeout=60)
        assert server.request("POST", "/v1/display/power", key=key, json={"state": "on"}).status_code == 200
        # moved on by navigation (its only slide again): the play since the display was lit ends. The
        # display bus runs its commands in order: the power change's comes first (posted before the
        # answer above), so the canvas is lit when the navigation is handled
        answer = server.request("POST", "/v1/display/navigation", key=key,
                                json={"surface": "screen", "direction": "forward"})
        assert answer.status_code == 202, answer.text
        wait_for(lambda: len(plays(server, key)) == 2, timeout=60)
        dark, lit = plays(server, key)[:2]
        assert (dark["screen_id"], dark["label"], dark["complete"]) == ("lobby", "Lobby welcome", False)
        assert (lit["screen_id"], lit["complete"]) == ("lobby", False)
        assert dark["started_ms"] < dark["ended_ms"] < lit["started_ms"] < lit["ended_ms"]  # nothing played while dark
    finally:
        server.stop()
