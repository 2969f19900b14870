"""The analog clock slide on the driven canvas (:mod:`tests.display.driven`): a scenario run by
reference (``"tests.clock.faces:analog_faces"``) in the canvas's child process.

The job stores two slides through REST (the analog ``clock`` and a ``notice``); the scenario
puts the clock on screen and writes pictures of the clock slide's widget drawn on its own in a
window-sized picture (black where it draws nothing), so a face running past its widget shows:

- ``full``: the clock on screen, no overlay (the whole screen is its area);
- with ``overlay`` (a row): ``fading``: the program moves on to the notice, and while the clock
  fades out over it the overlay comes: the fading clock is laid out in the free area the overlay
  leaves, not built again (only the slide on screen is); ``zone``: the clock on screen again,
  in the free area.

It answers each picture's path with the clock widget's window rectangle, the free area, the
window size and the theme's text colour (the face's ring). :func:`analog_overlay` does the same for
the ``overlay`` row alone (an analog_clock overlay): ``panel``, its panel drawn on its own."""
from __future__ import annotations

from typing import Any

from tests.display.driven import Canvas, window_rect


def _alone(canvas: Canvas, widget: Any, path: str) -> None:
    """``widget`` drawn on its own at its place in a window-sized picture (PNG, rows top down)."""
    from PIL import Image
    from kivy.core.window import Window
    from kivy.graphics import ClearBuffers, ClearColor, Fbo

    fbo = Fbo(size=Window.size, with_stencilbuffer=True)
    with fbo:
        ClearColor(0, 0, 0, 1)
        ClearBuffers()
    _fbo, data = canvas.widget_pixels(widget, fbo)
    Image.frombuffer("RGBA", tuple(Window.size), data, "raw", "RGBA", 0, -1).convert("RGB").save(path)


def _answer(canvas: Canvas, pictures: dict[str, dict]) -> dict:
    from kivy.core.window import Window

    theme = canvas.compositor.preferences.theme
    return {"pictures": pictures, "window": list(Window.size), "text": [round(v * 255) for v in theme.text[:3]]}


def _api(canvas: Canvas) -> Any:
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient

    return ApiClient(canvas.host, issue_key(canvas.host, "admin"))


def _picture(canvas: Canvas, job: dict, pictures: dict[str, dict], name: str, widget: Any) -> None:
    path = f"{job['out']}/{name}.png"
    _alone(canvas, widget, path)
    free = canvas.compositor.layout.free
    pictures[name] = {"png": path, "rect": window_rect(widget), "free": [free.x, free.y, free.width, free.height]}
    if job.get("window"):  # the whole window too, to look at
        canvas.png(f"{job['out']}/{name}-window.png")


def _frames(canvas: Canvas) -> None:
    for _ in range(4):  # a crossfade (0.6 s) done, an overlay built
        canvas.frame(0.25)


def analog_faces(canvas: Canvas, job: dict) -> dict:
    api = _api(canvas)
    slides = canvas.layer("slides")
    pictures: dict[str, dict] = {}

    def on_screen() -> str | None:
        return slides.current["row"]["id"] if slides.current else None

    def show(slide_id: str) -> Any:
        for _ in range(4):
            if on_screen() == slide_id:
                break
            slides.navigate("forward")
            canvas.settle()
        assert on_screen() == slide_id, on_screen()
        return slides.current["widget"]

    clock = show("clock")
    _frames(canvas)
    _picture(canvas, job, pictures, "full", clock)
    overlay = job.get("overlay")
    if overlay:
        show("notice")  # the clock fades out over the notice: no frame has run, it is still opaque
        assert clock.parent is not None and clock.opacity == 1, (clock.parent, clock.opacity)
        answer = api.post("/v1/display/overlays", json=overlay)
        assert answer.status_code < 300, answer.text
        canvas.settle()
        assert canvas.compositor.layout.free != canvas.compositor.layout.content, "the overlay took no room"
        _picture(canvas, job, pictures, "fading", clock)
        _frames(canvas)
        clock = show("clock")
        _frames(canvas)
        _picture(canvas, job, pictures, "zone", clock)
    return _answer(canvas, pictures)


def analog_overlay(canvas: Canvas, job: dict) -> dict:
    overlay = job["overlay"]
    answer = _api(canvas).post("/v1/display/overlays", json=overlay)
    assert answer.status_code < 300, answer.text
    canvas.settle()
    _frames(canvas)
    widget = canvas.layer("overlays").overlays[overlay["id"]]["widget"]
    assert widget is not None, "the overlay was not built"
    pictures: dict[str, dict] = {}
    _picture(canvas, job, pictures, "panel", widget)
    return _answer(canvas, pictures)
