"""Driven-canvas scenario of the celebration line (``"tests.display.celebration:line"``): a message
slide under a confetti overlay with a message; after some frames, where the message is drawn and in
what style, the layout's content area, and every confetti piece against the content boxes the
decoration keeps off (drawn whole or not at all)."""
from __future__ import annotations

from typing import Any

from tests.display.driven import Canvas, window_rect


def line(canvas: Canvas, job: dict) -> dict:
    from svc_host.kit.display.motion import Shapes

    compositor = canvas.compositor
    frames = []
    for index in range(int(job["frames"])):
        canvas.frame(job["dt"])
        if index < job.get("after", 8):
            continue
        boxes = compositor.content_boxes()
        pieces = []
        for entry in compositor.live():
            if not entry.decorated:
                continue
            for shapes in entry.layer.decoration.walk(restrict=True):
                if not isinstance(shapes, Shapes):
                    continue
                for item in shapes.items:
                    batch, slot = item["batch"], item["slot"]
                    xs, ys = batch.vertices[slot:slot + 16:4], batch.vertices[slot + 1:slot + 16:4]
                    left, bottom = shapes.to_window(min(xs), min(ys))
                    pieces.append([left, bottom, max(xs) - min(xs), max(ys) - min(ys)])
        frames.append({"boxes": [[b.x, b.y, b.width, b.height] for b in boxes], "pieces": pieces})
    messages = []
    for widget in canvas.layer("overlays").widget.walk(restrict=True):
        if getattr(widget, "role", None) == "celebration" and getattr(widget, "text", ""):
            widget.texture_update()
            messages.append({"rect": window_rect(widget), "text": widget.text, "cls": type(widget).__name__, "font": float(widget.font_size), "texture": list(widget.texture_size),
                             "color": list(widget.color), "outline_width": widget.outline_width,
                             "outline_color": list(widget.outline_color or ())})
    c = compositor.layout.content
    theme = compositor.preferences.theme
    return {"messages": messages, "content": [c.x, c.y, c.width, c.height], "frames": frames,
            "theme": {"accent": list(theme.accents[0]), "background": [list(b) for b in theme.background]},
            "unit": compositor.layout.unit}


