"""The one-voice rule: one voice per fact.

A widget that says a fact (its ``says``: ``"time"``, ``"qr"``...) yields (is hidden, its place
kept) while a layer under it says the same, so the screen never shows the time twice or two QR
codes side by side (the clock panel over a clock slide, the QR panel while the slide has its own
code). Two voices a viewer can tell apart may stand together: a widget's ``told_apart`` (a
captioned QR code's payload) lets it stay beside another of its fact told apart otherwise (the
"Rate your visit" panel beside the Wi-Fi slide's captioned code). The compositor applies it
bottom to top, in z order, after every content change
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
    said: dict[str, list[str | None]] = {}  # fact -> how each voice saying it is told apart
    for entry in sorted((e for e in entries if e.mounted), key=lambda e: e.spec.z):
        says: dict[str, list[str | None]] = {}
        for widget in voices(entry.layer.widget):
            facts = {widget.says} if isinstance(widget.says, str) else set(widget.says)
            apart = getattr(widget, "told_apart", None) or None
            quiet = any(_clash(apart, other) for fact in facts for other in said.get(fact, ()))
            if quiet != getattr(widget, "yielded", False):
                if quiet:
                    widget.voice_opacity, widget.opacity = widget.opacity, 0.0
                else:
                    widget.opacity = getattr(widget, "voice_opacity", 1.0)
                widget.yielded = quiet
            if not quiet:
                for fact in facts:
                    says.setdefault(fact, []).append(apart)
        for fact, aparts in says.items():
            said.setdefault(fact, []).extend(aparts)


def _clash(apart: str | None, other: str | None) -> bool:
    """Two voices of one fact clash unless each can be told apart from the other: both captioned
    codes (``told_apart``: their payloads), of different payloads. A code without a caption beside
    any other, or the same code twice, is one too many."""
    return not (apart and other and apart != other)
