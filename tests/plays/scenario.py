"""The driven canvas scenario of ``test_canvas_plays.py`` (run in the child of :func:`tests.display.driven.run`)."""
from __future__ import annotations

import time
from typing import Any

DT = 0.25


def plays(canvas: Any, job: dict) -> dict:
    """Three 2 s slides for 5 s of frame time; then an alert and an overlay come (t = 5 s), the alert
    is dismissed (t = 7 s) and the slide on screen is moved on by navigation (t = 7 s); 1 s more. The
    host is closed after it (the plays on screen end there). Returns the frame clock's start."""
    from hookspecs.services import PLAYS

    def run(seconds: float) -> None:
        for _ in range(round(seconds / DT)):
            canvas.frame(DT)

    def ok(answer: Any) -> Any:
        assert answer.status_code < 300, answer.text
        return answer

    run(5.0)
    today = time.gmtime(canvas.host.clock.now_ms() / 1000)
    ok(canvas.api.post("/v1/display/overlays", json={
        "id": "sponsor", "enabled": True, "overlay_type": "bouncing_message", "label": "Thanks to our sponsor",
        "config_json": {"messages": ["Coffee by Bean & Co"]}, "start_month": today.tm_mon, "start_day": today.tm_mday}))
    alert = ok(canvas.api.post("/v1/alerts", json={"title": "Fire drill at 3", "severity": "warning"})).json["id"]
    canvas.settle()
    run(2.0)
    ok(canvas.api.delete(f"/v1/alerts/{alert}"))
    canvas.host.display_bus.post("navigate", surface="screen", direction="forward")
    canvas.settle()
    run(1.0)
    return {"start_ms": canvas.host.clock.start_ms, "alert": alert,
            "open": canvas.host.services[PLAYS].open_plays()}
