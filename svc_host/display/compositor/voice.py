"""The one-voice rule: one voice per fact.

A widget that says a fact (its ``says``: ``"time"``, ``"qr"``...) yields (is hidden, its place
kept) while a layer under it says the same, so the screen never shows the time twice or two QR
codes side by side (the clock panel over a clock slide, the QR panel while the slide has its own
code). The compositor applies it bottom to top, in z order, after every content change
(:meth:`svc_host.display.compositor.Compositor.content_changed`)."""
from __future__ import annotations

from typing import Any, Iterable


def voices(root: Any) -> list[Any]:
    """The widgets under ``root`` (itself left out) that say a fact (``says``), outermost only."""
    found: list[Any] = []
    pending = list(root.children)
    while pending:
        widget = pending.pop()
        if getattr(widget, "says", None):
            found.append(widget)
        else:
            pending.extend(widget.children)
    return found


def one_voice(entries: Iterable[Any]) -> None:
    """Apply the rule to the mounted layers of ``entries`` (``LayerEntry``), bottom to top by ``z``."""
    said: set[str] = set()
    for entry in sorted((e for e in entries if e.mounted), key=lambda e: e.spec.z):
        says = set()
        for widget in voices(entry.layer.widget):
            facts = {widget.says} if isinstance(widget.says, str) else set(widget.says)
            quiet = bool(facts & said)
            if quiet != getattr(widget, "yielded", False):
                if quiet:
                    widget.voice_opacity, widget.opacity = widget.opacity, 0.0
                else:
                    widget.opacity = getattr(widget, "voice_opacity", 1.0)
                widget.yielded = quiet
            if not quiet:
                says |= facts
        said |= says
