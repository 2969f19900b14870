"""Driven-canvas scenario of the one-voice rule (``"tests.display.voices:program"``): the program's
slides in turn, and for each the overlay panels that say a fact (``says``), shown or yielded."""
from __future__ import annotations

from typing import Any


def program(canvas: Any, job: dict) -> dict:
    from svc_host.display.compositor import voices

    slides, overlays = canvas.layer("slides"), canvas.layer("overlays")
    seen: list[dict] = []
    for _ in range(int(job["seconds"] / job["dt"])):
        canvas.frame(job["dt"])
        if slides.current is None or slides._change is not None:  # noqa: SLF001  at rest between changes
            continue
        panels = {":".join(filter(None, (str(w.says), getattr(w, "told_apart", None)))): round(w.opacity, 2)
                  for w in voices(overlays.widget)}
        seen.append({"slide": slides.current["row"]["id"], "panels": panels})
    return {"seen": seen}


def times(canvas: Any, job: dict) -> dict:
    """After some frames: the texts of the panel that says the time, the time tape's items, and the
    display's own time now (its zone, ``HH:MM``) by the host clock."""
    import datetime as dt
    import re

    from kivy.uix.label import Label

    from svc_host.kit import formatting
    from svc_host.display.compositor import voices

    for _ in range(int(job["frames"])):
        canvas.frame(job["dt"])
    clock = [w for w in voices(canvas.layer("overlays").widget) if w.says == "time"]
    panel = [label.text for widget in clock for label in widget.walk(restrict=True)
             if isinstance(label, Label) and label.text.strip()]
    tape = [item.text for row in canvas.layer("marquee")._rows() for segment in row.segments  # noqa: SLF001
            if segment.kind == "time" for item in segment.items]
    zone = canvas.compositor.preferences.timezone
    now = dt.datetime.fromtimestamp(canvas.host.clock.now_ms() / 1000, formatting.zone_or_utc(zone))
    pattern = re.compile(r"\b(\d{1,2}:\d{2})")
    before = now - dt.timedelta(seconds=job["dt"] * 4)  # a minute that turned over during the last frames
    return {"zone": zone, "now": now.strftime("%H:%M"), "before": before.strftime("%H:%M"),
            "utc": now.astimezone(dt.timezone.utc).strftime("%H:%M"),
            "panel": sorted({m for text in panel for m in pattern.findall(text)}),
            "tape": sorted({m for text in tape for m in pattern.findall(text)})}
