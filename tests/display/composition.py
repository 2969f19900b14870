"""Driven-canvas scenarios of the composition rule (docs/display.md, "Composition: the rule"), run by
``tests/display/test_layout.py`` through :func:`tests.display.driven.run` as ``module:function``.

Each scenario draws several slides in one child process and reads back only the boxes it judges."""
from __future__ import annotations

import hashlib
import time
from typing import Any

from tests.display.driven import Canvas, window_rect


def api(canvas: Canvas) -> Any:
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient

    return ApiClient(canvas.host, issue_key(canvas.host, "admin"))


def raise_alert(canvas: Canvas, client: Any, alert: dict, frames: int) -> list:
    """``alert`` posted over REST, the canvas settled and ``frames`` frames of 0.25 s drawn; the
    alerts layer's cards."""
    answer = client.post("/v1/alerts", json=alert)
    assert answer.status_code < 300, answer.text
    canvas.settle()
    for _ in range(frames):
        canvas.frame(0.25)
    return [card for stack in canvas.layer("alerts").widget.children for card in stack.children]


def overlay_row(overlay_id: str, overlay_type: str, config: dict) -> dict:
    today = time.gmtime()
    return {"id": overlay_id, "enabled": True, "overlay_type": overlay_type, "config_json": config,
            "start_month": today.tm_mon, "start_day": today.tm_mday}


def store(client: Any, method: str, path: str, body: dict | None = None) -> None:
    answer = client.request(method, path, json=body)
    assert answer.status_code < 300, (method, path, answer.status_code, answer.text)


def show(canvas: Canvas, client: Any, row: dict, previous: dict | None, frames: int = 6) -> None:
    """``row`` the only slide of the program, on screen, its fade done."""
    store(client, "POST", "/v1/screens", row)
    if previous is not None:
        store(client, "DELETE", f"/v1/screens/{previous['id']}")
    canvas.settle()
    for _ in range(frames):
        canvas.frame(0.25)
    current = canvas.layer("slides").current
    assert current is not None and current["row"]["id"] == row["id"], current and current["row"]


def crops(canvas: Canvas, boxes: list[list[float]]) -> list[str]:
    """A digest of the window's pixels inside each box (``[x, y, width, height]``, window pixels)."""
    from kivy.core.window import Window

    data = canvas.pixels()
    width, height = Window.size
    digests = []
    for x, y, w, h in boxes:
        x0, y0 = max(0, int(x)), max(0, int(y))
        x1, y1 = min(width, int(x + w)), min(height, int(y + h))
        digest = hashlib.sha256()
        for row in range(y0, y1):  # rows bottom-up, as the window's buffer
            digest.update(data[(row * width + x0) * 4:(row * width + x1) * 4])
        digests.append(digest.hexdigest())
    return digests


def judged_boxes(canvas: Canvas, panels: tuple[str, ...]) -> list[dict]:
    """The slide's texts and images, and the overlay panels named: ``{"what", "rect", "yielded"}``
    (``yielded``: the panel gave way to the slide saying the same fact, one voice per fact)."""
    slide = canvas.layer("slides").current["widget"]
    boxes = [{"what": "slide", "rect": window_rect(w)} for w in slide.walk(restrict=True)
             if {k.__name__ for k in type(w).__mro__} & {"Image", "ImageFill"}
             or (getattr(w, "text", "") and w.opacity > 0)]
    overlays = canvas.layer("overlays").overlays
    for overlay_id in panels:
        widget = overlays[overlay_id]["widget"]
        boxes.append({"what": overlay_id, "rect": window_rect(widget),
                      "yielded": any(getattr(w, "yielded", False) for w in widget.walk(restrict=True))})
    return boxes


def decoration(canvas: Canvas, job: dict) -> dict:
    """For each of ``slides`` with the overlays of ``job["overlays"]`` up: whether every judged box
    (the slide's texts and images, the panels ``judged`` names) is the same without and with each of the
    ``effects`` (full-screen overlays without a message, so the layout stays as it is), and how much
    of the window the effect changed outside them (it is drawn at all)."""
    client = api(canvas)
    for row in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", row)
    panels = tuple(job["judged"])
    seen, previous = [], None
    for slide in job["slides"]:
        show(canvas, client, slide, previous)
        previous = slide
        boxes = judged_boxes(canvas, panels)
        before = crops(canvas, [b["rect"] for b in boxes])
        whole_before = canvas.pixels()
        for effect in job["effects"]:
            store(client, "POST", "/v1/display/overlays", effect)
            canvas.settle()
            for _ in range(3):
                canvas.frame(0.25)
            after = crops(canvas, [b["rect"] for b in boxes])
            if job.get("png"):
                canvas.png(f"{job['png']}-{slide['id']}-{effect['overlay_type']}.png")
            changed = sum(a != b for a, b in zip(whole_before[::4096], canvas.pixels()[::4096]))
            seen.append({"slide": slide["id"], "effect": effect["overlay_type"],
                         "boxes": [{**box, "same": b == a} for box, b, a in zip(boxes, before, after)],
                         "changed": changed, "moved": judged_boxes(canvas, panels) != boxes})
            store(client, "DELETE", f"/v1/display/overlays/{effect['id']}")
            canvas.settle()
            canvas.frame(0.25)
    return {"seen": seen}


def texts(widget: Any) -> list[list[float]]:
    """The window rectangles of the labels with text under ``widget``."""
    return [window_rect(w) for w in widget.walk(restrict=True) if getattr(w, "text", "") and w.opacity > 0]


def alert_band(canvas: Canvas, job: dict) -> dict:
    """The slide of ``slide`` with the ``overlays`` up, then each alert of ``alerts`` raised in turn
    (the previous one dismissed): the cards' rectangles, the slide's text, the overlay panels, whether
    the slides and overlays layers are shown, and whether the cards' pixels stay the same when the
    first overlay (the clock) is removed from under them."""
    client = api(canvas)
    for row in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", row)
    show(canvas, client, job["slide"], None)
    seen, previous = [], None
    for alert in job["alerts"]:
        if previous is not None:
            store(client, "DELETE", f"/v1/alerts/{previous}")
        answer = client.post("/v1/alerts", json=alert)
        assert answer.status_code < 300, answer.text
        previous = answer.json["id"]
        canvas.settle()
        for _ in range(4):
            canvas.frame(0.25)
        layer = canvas.layer("alerts").widget
        cards = [window_rect(card) for stack in layer.children for card in stack.children]
        overlays = canvas.layer("overlays")
        step = {"severity": alert["severity"], "cards": cards, "card_texts": texts(layer),
                "slide_texts": texts(canvas.layer("slides").widget),
                "panels": [window_rect(e["widget"]) for e in overlays.overlays.values() if e.get("widget")],
                "slides_shown": canvas.layer("slides").widget.opacity > 0,
                "overlays_shown": overlays.widget.opacity > 0}
        with_clock = crops(canvas, cards)
        if job.get("png"):
            canvas.png(f"{job['png']}-alert-{alert['severity']}.png")
        clock = job["overlays"][0]
        store(client, "DELETE", f"/v1/display/overlays/{clock['id']}")
        canvas.settle()
        for _ in range(2):
            canvas.frame(0.25)
        step["same_without_clock"] = crops(canvas, cards) == with_clock
        store(client, "POST", "/v1/display/overlays", clock)
        canvas.settle()
        for _ in range(2):
            canvas.frame(0.25)
        seen.append(step)
    return {"seen": seen}


def drawn_lines(label: Any) -> list[str]:
    """The lines Kivy drew ``label``'s text in (after its last texture update)."""
    label.texture_update()
    return ["".join(word.text for word in line.words) for line in label._label._cached_lines]


def composed(canvas: Canvas, job: dict) -> dict:
    """``slide`` with ``overlays`` up (corner panels, a celebration): the layout's areas, the slide's
    marked text, the panels, each celebration message as drawn (lines, font size, box, texture) and,
    with ``png``, a picture."""
    client = api(canvas)
    for row in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", row)
    show(canvas, client, job["slide"], None, frames=8)
    layout = canvas.compositor.layout
    overlays = canvas.layer("overlays")
    messages = []
    for entry in overlays.overlays.values():
        caption = getattr(entry.get("widget"), "celebration", None)
        if caption is not None:
            messages.append({"text": caption.text, "lines": drawn_lines(caption), "font_px": caption.font_size,
                             "rect": window_rect(caption), "texture": list(caption.texture_size),
                             "shorten": bool(caption.shorten)})
    if job.get("png"):
        canvas.png(f"{job['png']}-composed-{job['size'][0]}x{job['size'][1]}.png")
    slides = canvas.layer("slides")
    return {"free": [layout.free.x, layout.free.y, layout.free.width, layout.free.height],
            "content": [layout.content.x, layout.content.y, layout.content.width, layout.content.height],
            "ticker": [layout.ticker.x, layout.ticker.y, layout.ticker.width, layout.ticker.height],
            "marked": [{"role": w.role, "rect": window_rect(w), "font_px": w.font_size,
                        "lines": drawn_lines(w), "text": w.text}
                       for w in slides.widget.walk(restrict=True) if getattr(w, "role", None) in ("title", "primary")],
            "panels": [{"zone": e["zone"], "rect": window_rect(e["widget"])} for e in overlays.overlays.values()
                       if e.get("widget") is not None and e["zone"] != "fullscreen"],
            "messages": messages}


def scrolling(canvas: Canvas, job: dict) -> dict:
    """``slide`` with ``overlays`` up, then ``frames`` frames of ``dt`` s: each celebration message's
    text, drawn lines, font size, box, whether it scrolls, how far it can move (``travel``), and per
    frame its ``offset`` and a digest of the pixels of the part of it drawn."""
    client = api(canvas)
    for row in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", row)
    show(canvas, client, job["slide"], None, frames=4)
    overlays = canvas.layer("overlays")
    (caption,) = [getattr(e.get("widget"), "celebration") for e in overlays.overlays.values()
                  if getattr(e.get("widget"), "celebration", None) is not None]
    x, y, width, height = caption.window()
    wx, wy = caption.to_window(x, y)
    window = [wx, wy, width, height]
    seen = {"text": caption.text, "lines": drawn_lines(caption), "font_px": caption.font_size,
            "minimum": caption.minimum, "rect": window_rect(caption), "window": window,
            "scrolls": caption.scrolls, "travel": caption.travel(), "frames": []}
    for _ in range(job["frames"]):
        canvas.frame(job["dt"])
        seen["frames"].append({"offset": caption.offset, "pixels": crops(canvas, [window])[0],
                               "text": caption.text})
    if job.get("png"):
        canvas.png(f"{job['png']}-scrolling-{job['size'][0]}x{job['size'][1]}.png")
    return seen


def panels_under_alert(canvas: Canvas, job: dict) -> dict:
    """``slide`` with the ``overlays`` up, before and after ``alert`` is raised: per overlay panel its
    window rectangle and its labels (:func:`tests.display.text_rule.labels`: text, lines, font size,
    box, texture), and the alert cards' rectangles."""
    from tests.display.text_rule import labels

    client = api(canvas)
    for row in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", row)
    show(canvas, client, job["slide"], None)

    def panels() -> dict:
        overlays = canvas.layer("overlays").overlays
        return {overlay_id: {"rect": window_rect(entry["widget"]), "labels": labels(entry["widget"])}
                for overlay_id, entry in overlays.items() if entry.get("widget") is not None}

    seen = {"before": panels()}
    cards = raise_alert(canvas, client, job["alert"], 4)
    seen["after"] = panels()
    seen["cards"] = [window_rect(card) for card in cards]
    if job.get("png"):
        canvas.png(f"{job['png']}-panels-under-alert.png")
    return seen
