"""Placement: where each layer draws, and at which type size.

The compositor asks this module, when the window resizes or a layer asks (``Stage.relayout``: an
overlay came or went), never per frame:

- :func:`lay_out`: the layout of the screen (:class:`hookspecs.render.Layout`, computed by
  :mod:`svc_host.kit.display.layout`) from the layers' claims (the ticker band, the alert band:
  ``Layer.claims``) and the zones their ``arrange`` say they occupy, which leave the ``free`` area
  to the slides;
- :func:`place`: every layer's widget and decoration in the rectangle its spec names
  (``LayerSpec.area``); the content and free areas' layers wait (hidden) while a full-screen
  alert takes all of the screen above the ticker;
- :func:`type_scale`: the type height and panel reference a layer's renderer context gets.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from hookspecs.render import Layout, Rect
from svc_host.kit.display.layout import layout_of, screen_rect, with_occupied

Fail = Callable[[Any, str, BaseException], None]  # (entry, step, exc): the compositor's containment


def lay_out(entries: Iterable[Any], width: float, height: float, fail: Fail, overscan_percent: float = 0.0,
            safe_inset: float = 0.0) -> Layout:
    """The layout of a ``width`` x ``height`` window for the live ``entries`` (``LayerEntry``): the
    bands they claim, then the zones they occupy, inside the overscan and the theme's title-safe
    inset (``kit.layout.layout_of``). A layer whose ``claims`` or ``arrange`` raises is handed to
    ``fail`` and left out."""
    entries = list(entries)
    screen = screen_rect(width, height, overscan_percent)
    claims: dict[str, float] = {}
    for entry in entries:
        claim = getattr(entry.layer, "claims", None)
        if claim is None:
            continue
        try:
            for name, value in (claim(screen) or {}).items():
                claims[name] = max(claims.get(name, 0.0), float(value))
        except Exception as exc:  # noqa: BLE001
            fail(entry, "claims", exc)
    layout = layout_of(width, height, claims, overscan_percent, safe_inset)
    occupied: list = []
    for entry in entries:
        arrange = getattr(entry.layer, "arrange", None)
        if arrange is None or entry.failed:
            continue
        try:
            occupied.extend(arrange(layout) or ())
        except Exception as exc:  # noqa: BLE001
            fail(entry, "arrange", exc)
    return with_occupied(layout, occupied)


def place(entries: Iterable[Any], layout: Layout) -> None:
    """Put every live entry's decoration and widget in its area of ``layout``."""
    for entry in entries:
        if entry.failed:
            continue
        rect = layout.area(entry.spec.area) or layout.content
        if entry.decorated:
            decoration = entry.layer.decoration
            decoration.pos, decoration.size = rect.pos, rect.size
            decoration.opacity = 1.0 if rect.area > 0 else 0.0
        if not entry.mounted:
            continue
        widget = entry.layer.widget
        widget.pos, widget.size = rect.pos, rect.size
        if entry.spec.area in ("content", "free"):  # they wait (hidden) while a full-screen alert is up
            widget.opacity = 1.0 if rect.area > 0 else 0.0


def type_scale(layout: Layout, area: str, kind: str) -> tuple[float | None, tuple[float, float] | None]:
    """``(type_height, reference)`` of a renderer context for a row of ``kind`` drawn by a layer in
    ``area``. The type scale follows the screen above the ticker (portrait: as a landscape screen's),
    not the layer's area: overlays and alerts take room, not type size (the ticker's own band sets
    its type: None). ``reference`` is what an overlay panel's ``size_hint`` is a fraction of (the
    overlays layer places it by the layout); None for other kinds."""
    type_height = layout.type_height if area != "ticker" else None
    reference = layout.reference if kind == "overlay" else None
    return type_height, reference
