"""The clock slide on the driven canvas (:mod:`tests.display.driven`): scenarios run by reference
(``"tests.clock.faces:analog_faces"``) in the canvas's child process.

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
the ``overlay`` row alone (an analog_clock overlay): ``panel``, its panel drawn on its own.
:func:`digital_texts` draws the digital clock's time and date labels each on its own."""
from __future__ import annotations

from typing import Any

from tests.display.driven import Canvas, window_rect


def _alone(canvas: Canvas, widget: Any, path: str) -> None:
    """``widget`` drawn on its own at its place in a window-sized picture (PNG, rows top down)."""
    from PIL import Image
    from kivy.core.window import Window
    from kivy.graphics import ClearBuffers, ClearColor, Fbo, Translate

    fbo = Fbo(size=Window.size, with_stencilbuffer=True)
    with fbo:
        ClearColor(0, 0, 0, 1)
        ClearBuffers()
        Translate(*widget.to_window(0, 0), 0)  # its parent's origin (a slide's label: the slide's corner)
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


def _show(canvas: Canvas, slide_id: str) -> Any:
    """Puts the slide ``slide_id`` on screen (the program moved forward); its widget."""
    slides = canvas.layer("slides")

    def on_screen() -> str | None:
        return slides.current["row"]["id"] if slides.current else None

    for _ in range(4):
        if on_screen() == slide_id:
            break
        slides.navigate("forward")
        canvas.settle()
    assert on_screen() == slide_id, on_screen()
    return slides.current["widget"]


def analog_faces(canvas: Canvas, job: dict) -> dict:
    api = _api(canvas)
    pictures: dict[str, dict] = {}
    clock = _show(canvas, "clock")
    _frames(canvas)
    _picture(canvas, job, pictures, "full", clock)
    overlay = job.get("overlay")
    if overlay:
        _show(canvas, "notice")  # the clock fades out over the notice: no frame has run, it is still opaque
        assert clock.parent is not None and clock.opacity == 1, (clock.parent, clock.opacity)
        answer = api.post("/v1/display/overlays", json=overlay)
        assert answer.status_code < 300, answer.text
        canvas.settle()
        assert canvas.compositor.layout.free != canvas.compositor.layout.content, "the overlay took no room"
        _picture(canvas, job, pictures, "fading", clock)
        _frames(canvas)
        clock = _show(canvas, "clock")
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


def _texts(slide: Any) -> dict[str, Any]:
    """The digital clock slide's time label (the ``primary`` one) and date label (the other
    label naming a weekday), found by what they show."""
    from kivy.uix.label import Label

    from svc_host.kit.formatting import WEEKDAYS

    labels = [w for w in slide.walk(restrict=True) if isinstance(w, Label)]
    return {"time": next(w for w in labels if getattr(w, "role", None) == "primary"),
            "date": next(w for w in labels if w.text.split(" ")[0].rstrip(",") in WEEKDAYS)}


def digital_texts(canvas: Canvas, job: dict) -> dict:
    """The digital clock slide (the job's only slide) with each of ``groups`` of overlay rows in
    turn (stored through REST, drawn, deleted; ``[]``: none, the whole screen). Per group the clock
    is set to ``start_ms`` and ``frames`` frames of ``dt`` run (its time changing, e.g. across an
    hour); then its time and date labels are drawn on their own (``{index}-time``,
    ``{index}-date``). Answers each group's pictures with the slide's rectangle, the labels' font
    sizes, and per frame the time label's text and font size."""
    api = _api(canvas)
    groups = []
    for index, group in enumerate(job["groups"]):
        canvas.host.clock.start_ms = job["start_ms"] - int(canvas.compositor.elapsed * 1000)  # the overlays' day
        for row in group:
            answer = api.post("/v1/display/overlays", json=row)
            assert answer.status_code < 300, answer.text
        canvas.settle()
        _frames(canvas)
        slide = _show(canvas, "clock")
        canvas.host.clock.start_ms = job["start_ms"] - int(canvas.compositor.elapsed * 1000)
        labels = _texts(slide)
        ticks = []
        for _ in range(job["frames"]):
            canvas.frame(job["dt"])
            ticks.append([labels["time"].text, labels["time"].font_size])
        pictures: dict[str, dict] = {}
        for name, widget in labels.items():
            _picture(canvas, job, pictures, f"{index}-{name}", widget)
            pictures[f"{index}-{name}"].update(text=widget.text, font_px=widget.font_size)
        groups.append({"pictures": pictures, "slide": window_rect(slide), "ticks": ticks})
        for row in group:
            assert api.delete(f"/v1/display/overlays/{row['id']}").status_code < 300
        canvas.settle()
    return {"groups": groups, "window": list(canvas.root.size)}
