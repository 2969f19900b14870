"""Driven-canvas scenario of the safe area (``"tests.display.safe_area:texts"``): the café's kinds of
layers at once (slides, corner panels, a celebration, an alert, the ticker) and, at rest between
slide changes, where every visible text is drawn (window pixels) by layer, with the layout's safe
area and screen."""
from __future__ import annotations

from typing import Any

from tests.display.driven import Canvas


def drawn(root: Any) -> list[dict]:
    """Where each visible label under ``root`` draws its text, as window ``[x, y, width, height]``:
    the kit's scrolling labels where they draw (``window()``), a plain label's texture centred in its box."""
    from tests.display.driven import window_rect
    from tests.display.text_rule import shown_labels

    boxes = []
    for widget in shown_labels(root):
        widget.texture_update()
        if hasattr(widget, "window"):  # the kit's ScrollBox family: drawn in a window of its box
            x, y, width, height = widget.window()
            left, bottom = widget.to_window(x, y)
            box = [left, bottom, width, height]
        else:
            x, y, width, height = window_rect(widget)
            tw, th = widget.texture_size
            box = [x + (width - tw) / 2, y + (height - th) / 2, tw, th]
        boxes.append({"text": widget.text[:40], "role": getattr(widget, "role", ""), "box": box})
    return boxes


def texts(canvas: Canvas, job: dict) -> dict:
    compositor, slides = canvas.compositor, canvas.layer("slides")
    seen = []
    for index in range(int(job["seconds"] / job["dt"])):
        canvas.frame(job["dt"])
        if index < 6 or slides.current is None or slides._change is not None:  # noqa: SLF001  at rest
            continue
        layers = {entry.spec.id: drawn(entry.layer.widget) for entry in compositor.live() if entry.mounted
                  and entry.layer.widget.opacity > 0}
        seen.append({"slide": slides.current["row"]["id"], "layers": layers})
    layout = compositor.layout
    rect = lambda r: [r.x, r.y, r.width, r.height]  # noqa: E731
    return {"seen": seen, "free": rect(layout.free), "safe": rect(layout.safe), "screen": rect(layout.screen), "ticker": rect(layout.ticker),
            "window": list(canvas.root.size)}
