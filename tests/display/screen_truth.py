"""Driven-canvas scenarios of issue 34 ("the screen tells the truth"), run in the child process of
:mod:`tests.display.driven` with :mod:`tests.display.failing_plugin` loaded: the frames, the screen's
report as ``GET /v1/display/screen`` answers it and the plugins as ``GET /v1/plugins`` lists them."""
from __future__ import annotations

from typing import Any

from tests.display.driven import Canvas, shown


def store_unregistered(canvas: Canvas, rows: list[dict]) -> None:
    """Slides of types no loaded plugin registers (REST refuses them: they were stored while their
    plugin ran), written straight to the table, then the ``screens`` change event."""
    from pony import orm

    from svc_host.kit.services import publish

    now = canvas.host.clock.now_ms()
    with orm.db_session:
        for row in rows:
            canvas.host.db.Screen(created_at_ms=now, updated_at_ms=now, **row)
    publish(canvas.host, "screens")
    canvas.settle()


def seen(canvas: Canvas) -> dict[str, Any]:
    """The screen's report and the plugins' states, through the REST routes."""
    screen = canvas.api.get("/v1/display/screen")
    plugins = canvas.api.get("/v1/plugins")
    assert screen.status_code == 200 and plugins.status_code == 200, (screen.text, plugins.text)
    return {"screen": screen.json, "plugins": {row["id"]: [row["state"], row["reason"]]
                                                 for row in plugins.json["items"]}}


def run_for(canvas: Canvas, seconds: float, dt: float) -> None:
    for _ in range(int(round(seconds / dt))):
        canvas.frame(dt)


def modes(canvas: Canvas, job: dict) -> dict:
    """Every failure mode at once: ``cycle`` seconds of frames, the report; then the fix (the
    plugin's renderers work again), ``cycle`` more seconds, the report again. With ``png``, the
    window after the first cycle."""
    from tests.display import failing_plugin

    store_unregistered(canvas, job.get("unregistered", []))
    run_for(canvas, job["cycle"], job["dt"])
    wait_for(canvas, job.get("until"), job["dt"])
    broken = seen(canvas)
    broken["card"] = card_lines(canvas)
    broken["layers"] = drawn(canvas)
    if job.get("png"):
        canvas.png(job["png"])
    for key in failing_plugin.BROKEN:
        failing_plugin.BROKEN[key] = False
    run_for(canvas, job.get("fixed_seconds", job["cycle"]), job["dt"])
    wait_for(canvas, job.get("until"), job["dt"])
    fixed = seen(canvas)
    fixed["card"] = card_lines(canvas)
    fixed["layers"] = drawn(canvas)
    return {"broken": broken, "fixed": fixed, "shown": shown(canvas.host)}


def wait_for(canvas: Canvas, slide_id: str | None, dt: float, frames: int = 400) -> None:
    """Frames until ``slide_id`` is the slide on screen (a moment of the cycle to look at)."""
    for _ in range(frames if slide_id else 0):
        current = canvas.compositor.truth.current
        if current is not None and current["screen_id"] == slide_id:
            return
        canvas.frame(dt)
    assert not slide_id, f"{slide_id} never came on screen"


def drawn(canvas: Canvas) -> dict[str, Any]:
    """What the overlays and the marquee draw now: the overlays with a widget, the tapes in the band."""
    overlays = canvas.layer("overlays")
    marquee = canvas.layer("marquee")
    return {"overlays": sorted(str(i) for i, e in overlays.overlays.items() if e.get("widget") is not None),
            "tapes": sorted({segment.tape.get("id") for run in marquee.runs for segment in run.row.segments})}


def card_lines(canvas: Canvas) -> list[str] | None:
    slides = canvas.layer("slides")
    return list(slides._card_lines) if slides._card is not None and slides._card.parent is not None else None


def frames(canvas: Canvas, job: dict) -> dict:
    """``cycles`` cycles of ``cycle`` seconds in frames of ``dt``: after each frame, the colour of a
    corner of the content area (the message slides leave it their background) and the report."""
    store_unregistered(canvas, job.get("unregistered", []))
    content = canvas.compositor.layout.content
    width = int(canvas.root.width)
    corners, states = [], []
    for _ in range(int(round(job["cycles"] * job["cycle"] / job["dt"]))):
        canvas.frame(job["dt"])
        picture = canvas.pixels()
        at = (int(content.top - 4) * width + int(content.right - 4)) * 4
        corners.append(list(picture[at:at + 3]))
        states.append(canvas.compositor.truth.snapshot()["state"])
    return {"corners": corners, "states": states, "shown": shown(canvas.host), "report": seen(canvas)}


def restart(canvas: Canvas, job: dict) -> dict:
    """``seconds`` of frames, then the report and the card."""
    run_for(canvas, job["seconds"], job["dt"])
    answer = seen(canvas)
    answer["card"] = card_lines(canvas)
    answer["shown"] = shown(canvas.host)
    return answer
