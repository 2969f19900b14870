"""Driven-canvas scenarios of the alerts layer (run by :func:`tests.display.driven.run` as
``"tests.alerts.screens:<name>"``)."""
from __future__ import annotations

from typing import Any


def long_body(canvas: Any, job: dict) -> dict:
    """``alert`` raised over REST and drawn as a card; then ``frames`` frames of ``dt`` s. What the
    card's body shows: its text and the lines Kivy laid it out in, its font size and minimum, its box
    and the part of its text drawn (window pixels), whether it scrolls and how far; per frame its
    ``offset`` (how far it has moved up)."""
    from svc_host.kit.display.scrolling import ScrollText
    from tests.display.composition import api, raise_alert
    from tests.display.driven import window_rect

    cards = raise_alert(canvas, api(canvas), job["alert"], 3)
    (body,) = [w for card in cards for w in card.walk(restrict=True)
               if getattr(w, "text", "").startswith(job["alert"]["body"][:40])]
    body.texture_update()
    x, y, width, height = body.window() if isinstance(body, ScrollText) else (*body.pos, *body.texture_size)
    wx, wy = body.to_window(x, y)
    seen = {"card": window_rect(cards[0]), "text": body.text,
            "lines": [" ".join(word.text for word in line.words) for line in body._label._cached_lines],
            "font_px": float(body.font_size), "minimum": float(getattr(body, "minimum", 0)), "box": window_rect(body),
            "window": [wx, wy, width, height], "texture": list(body.texture_size),
            "scrolls": getattr(body, "scrolls", False), "travel": body.travel() if hasattr(body, "travel") else 0,
            "offsets": []}
    for _ in range(job.get("frames", 0)):
        canvas.frame(job["dt"])
        seen["offsets"].append(getattr(body, "offset", 0.0))
    if job.get("png"):
        canvas.png(job["png"])
    return seen


def band(canvas: Any, job: dict) -> dict:
    """``alert`` raised over REST and drawn: the card's fill colour, its icon and its texts (font size,
    colour), read from the widgets."""
    from svc_host.kit.display.backdrop import Backdrop
    from tests.display.composition import api, raise_alert

    (card,) = raise_alert(canvas, api(canvas), job["alert"], 3)
    fills = [list(w.colors[0]) for w in card.children if isinstance(w, Backdrop)]
    icons = [w.icon_name for w in card.walk(restrict=True) if hasattr(w, "icon_name")]
    texts = [{"text": w.text, "font_px": float(w.font_size), "color": list(w.color)} for w in card.walk(restrict=True)
             if getattr(w, "text", "") and not hasattr(w, "icon_name") and w is not card]
    return {"fills": fills, "icons": icons, "texts": texts}
