"""Driven-canvas scenario of slide changes (run by :func:`tests.display.driven.run` as
``"tests.display.transitions:changes"``): frames of ``dt`` through several changes, and per frame
the text boxes each slide on the stage shows (in window pixels) with that slide's opacity."""
from __future__ import annotations

from typing import Any


def texts_of(slide: Any) -> list[list[float]]:
    from tests.display.driven import window_rect

    return [window_rect(w) for w in slide.walk(restrict=True)
            if getattr(w, "text", "") and hasattr(w, "texture_size") and w is not slide]


def changes(canvas: Any, job: dict) -> dict:
    slides = canvas.layer("slides")
    frames = []
    for _ in range(int(job["seconds"] / job["dt"])):
        canvas.frame(job["dt"])
        stage = [{"id": id(child), "opacity": round(child.opacity, 3), "x": round(child.x, 1),
                  "texts": texts_of(child)} for child in slides.widget.children]
        frames.append({"stage": stage, "current": slides.current["row"]["id"] if slides.current else None,
                       "ground": list(slides.background or ())})
    return {"frames": frames, "window": list(canvas.root.size)}
