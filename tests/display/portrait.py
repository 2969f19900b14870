"""Driven-canvas scenario of "portrait designed for portrait" (``"tests.display.portrait:stacked"``):
the café's corner panels and celebration up (the scene gallery's; with ``alert`` its warning alert
too), then each slide type of the job
shown alone; per slide the free area it got and where its parts were drawn (window pixels, origin
bottom left): its pictures (``ImageFill``: a photo or a QR code), its icons, its texts (role and
box) and the items of its columns."""
from __future__ import annotations

from typing import Any

from tests.display.composition import api, show, store
from tests.display.driven import Canvas, window_rect


def parts(widget: Any) -> dict:
    from kivy.uix.label import Label

    from svc_host.kit.display.column import Column
    from svc_host.kit.display.pictures import ImageFill

    seen: dict = {"pictures": [], "icons": [], "texts": [], "columns": []}
    for child in widget.walk(restrict=True):
        if not child.get_root_window() or child.opacity <= 0:
            continue
        if isinstance(child, ImageFill):
            seen["pictures"].append(window_rect(child))
        elif isinstance(child, Label) and getattr(child, "icon_name", ""):
            seen["icons"].append(window_rect(child))
        elif isinstance(child, Label) and child.text.strip():
            seen["texts"].append({"text": child.text, "role": getattr(child, "role", ""),
                                  "rect": window_rect(child)})
        elif isinstance(child, Column):
            seen["columns"].append([window_rect(item) for item in child.entries if item.opacity > 0])
    return seen


def stacked(canvas: Canvas, job: dict) -> dict:
    from svc_host.display.scenes import ALERT, OVERLAYS, WHOLE_YEAR

    client = api(canvas)
    for row in OVERLAYS:
        store(client, "POST", "/v1/display/overlays", {**row, **WHOLE_YEAR})
    if job.get("alert"):  # the scene gallery's warning alert: its card takes the top of the content area
        store(client, "POST", "/v1/alerts", ALERT)
    answers, previous = {}, None
    for type_id, config in job["slides"]:
        type_def = canvas.host.registries.screen_types.get(type_id)
        row = {"id": f"portrait-{type_id.replace('_', '-')}", "screen_type": type_id, "dwell_seconds": 600,
               "frequency_weight": 1, "enabled": True,
               "config_json": {**dict(type_def.example_config), **config}}
        show(canvas, client, row, previous, frames=8)
        free = canvas.compositor.layout.free
        widget = canvas.layer("slides").current["widget"]
        answers[type_id] = {"free": [free.x, free.y, free.width, free.height], "slide": window_rect(widget),
                            **parts(widget)}
        if job.get("png"):
            canvas.png(f"{job['png']}/{type_id}.png")
        previous = row
    return {"slides": answers}
