"""Driven-canvas scenario of the alert re-fit (``"tests.display.alert_refit:refit"``): each slide of
the job shown alone, then a warning alert raised over it; per slide, before and under the alert,
every item of the slide's columns (its text, drawn or left out) and the "more" line each column
draws, and the alert card's texts (font size, icon) against the type scale's body size."""
from __future__ import annotations

from typing import Any

from tests.display.composition import api, raise_alert, show, store
from tests.display.driven import Canvas, window_rect


def columns(widget: Any) -> list[dict]:
    from svc_host.kit.display.column import Column

    found = []
    for column in widget.walk(restrict=True):
        if not isinstance(column, Column):
            continue
        found.append({"items": [{"text": " / ".join(line.text for line in item.lines), "drawn": item.opacity > 0,
                                 "rect": window_rect(item)} for item in column.entries],
                      "more": column.more.text if column.more.opacity > 0 else None,
                      "more_rect": window_rect(column.more), "more_px": float(column.more.font_size),
                      "rect": window_rect(column)})
    return found


def card_texts(card: Any) -> list[dict]:
    from kivy.uix.label import Label

    return [{"text": w.text, "px": float(w.font_size), "icon": bool(getattr(w, "icon_name", "")),
             "rect": window_rect(w)} for w in card.walk(restrict=True) if isinstance(w, Label) and w.text.strip()]


def refit(canvas: Canvas, job: dict) -> dict:
    client = api(canvas)
    for overlay in job.get("overlays", ()):  # corner panels, a celebration: the slide gets less room
        store(client, "POST", "/v1/display/overlays", overlay)
    answers, previous = [], None
    for row in job["slides"]:
        show(canvas, client, row, previous)
        before = columns(canvas.layer("slides").current["widget"])
        cards = raise_alert(canvas, client, job["alert"], 8)
        raised = [a["id"] for a in client.get("/v1/alerts?active=true").json["items"]]
        slides = canvas.layer("slides")
        context = slides.stage.context("screen", row)
        answers.append({"id": row["id"], "before": before, "after": columns(slides.current["widget"]),
                        "slide_rect": window_rect(slides.current["widget"]),
                        "cards": [card_texts(card) for card in cards], "body_px": context.type_px("body"),
                        "caption_min": context.min_px("caption", min(canvas.root.size)),
                        "body_min": context.min_px("body", min(canvas.root.size))})
        if job.get("png"):
            canvas.png(f"{job['png']}/{row['id']}.png")
        for alert_id in raised:  # dismissed before the next slide is shown
            client.delete(f"/v1/alerts/{alert_id}")
        previous = row
    return {"slides": answers}
