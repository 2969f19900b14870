"""Driven-canvas scenario of the menu board (run by :func:`tests.display.driven.run` as
``"tests.menu_board.screens:board"``): the job's slide on screen, each item line as drawn."""
from __future__ import annotations

from typing import Any


def board(canvas: Any, job: dict) -> dict:
    """Frames until the slide is on screen; per item row its name, note and price labels (text,
    window rectangle, font size, the width the text needs, whether it scrolls); a PNG for OCR."""
    from svc_host.kit.display.text import text_extent
    from tests.display.driven import window_rect

    slides = canvas.layer("slides")
    for _ in range(8):
        canvas.frame(0.25)
        if slides.current is not None:
            break
    for _ in range(4):
        canvas.frame(0.25)
    slide = slides.current["widget"]
    rows = []
    for widget in slide.walk(restrict=True):
        if getattr(widget, "menu_item", None) is None:
            continue
        parts = {}
        for child in widget.children:
            part = getattr(child, "menu_part", None)
            if part:
                options = {"bold": child.bold}
                one_line = text_extent(options, child.text, child.font_size)
                wrapped = text_extent(options, child.text, child.font_size, child.width)
                parts[part] = {"text": child.text, "rect": window_rect(child), "font_px": round(child.font_size, 1),
                               "needs": round(one_line[0], 1), "lines": wrapped[2], "height": round(wrapped[1], 1),
                               "scrolls": bool(getattr(child, "scrolls", False))}
        rows.append({"item": widget.menu_item, "rect": window_rect(widget), **parts})
    others = [{"part": w.menu_part, "text": w.text, "rect": window_rect(w)} for w in slide.walk(restrict=True)
              if getattr(w, "menu_part", None) in ("section", "more")]
    if job.get("png"):
        canvas.png(job["png"])
    return {"rows": rows, "others": others, "slide_rect": window_rect(slide)}
