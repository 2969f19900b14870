"""The layout rule (no Kivy): where each layer, overlay and celebration message goes.

The contract (:class:`hookspecs.render.Layout`) is the read-only result: the rectangles of the
screen, the ticker band, the alert band, the content area, the zones the overlays occupy and the
free area the slides go in. This module computes it (docs/display.md, "Layout and zones"):

- :func:`layout_of` divides a screen by the layers' claims (the ticker's band at the bottom, the
  alert band at the top, the content area between);
- an overlay type declares its zone (``OverlayType.zone``; a positioned type takes the zone its
  row's ``position`` names). A corner overlay is a panel whose ``size_hint`` (the fraction of the
  content area its renderer's widget wants) :func:`arrange` puts in that corner, :data:`MARGIN`
  from the edges (:func:`zone_rect`). A second overlay in a taken corner, and a ``center``
  overlay, move to a free corner (the slide's middle is its primary text);
- ``fullscreen`` overlays are decoration (confetti, rain, a frame) drawn over the whole content
  area; a message one shows goes in the celebration band
  (:data:`hookspecs.render.CELEBRATION_ZONE`, :data:`BAND` high), which its root names with a
  ``celebration`` attribute (:func:`place_celebration` puts it there);
- :func:`with_occupied` makes ``free``: for each corner panel it cuts a side column or a
  top/bottom band (every combination is tried) and for a band it cuts the band; of the rectangles
  left it keeps those at least :data:`MIN_FREE_SHARE` of the content area wide and high (when any
  is) and of them the one of the largest area times the fourth root of its share of the width: a
  band wider than a column wins when their areas are close, since a slide's lines wrap less in it;
- on a portrait screen (:attr:`hookspecs.render.Layout.portrait`) panel hints and bands are
  fractions of the landscape :attr:`~hookspecs.render.Layout.reference` (the panel turned), so a
  panel keeps its landscape size, at most :data:`PANEL_MAX_SHARE` of the width, and the bands
  stack; the celebration message is a footer beside the bottom panels, as high as their row
  (above them across the width when they leave it less than :data:`FOOTER_MIN_SHARE`). The slides
  layer draws in ``free``, so no overlay covers a slide's title or primary text: the widgets
  holding those carry a ``role`` attribute (:data:`hookspecs.render.ROLE_TITLE`,
  :data:`~hookspecs.render.ROLE_PRIMARY`), which the layout tests check against every overlay
  rectangle.
"""
from __future__ import annotations

import itertools
import logging
from dataclasses import replace
from typing import Any, Mapping, Sequence

from hookspecs.render import CELEBRATION_ZONE, CORNERS, TITLE_BOX, ZONES, Layout, Rect

BAND = 0.15
"""The height of the ``top_band`` and ``bottom_band`` zones, a fraction of the content area's height."""

MIN_FREE_SHARE = (0.5, 0.4)
"""The narrowest and lowest free area :func:`with_occupied` leaves the slides, as shares of the
content area's width and height, while any choice of cuts leaves one at least that wide and high."""

PANEL_MAX_SHARE = 0.45
"""The widest a corner panel is on a portrait screen, a share of the content area's width (it shrinks to it)."""

FOOTER_MIN_SHARE = 0.4
"""On a portrait screen the celebration message goes beside the bottom panels (a footer as high as
their row) when that leaves it at least this share of the content area's width; else above them."""

MARGIN = (0.02, 0.03)
"""The gap between a corner panel and the content area's edges, and between a panel and the
free area, as fractions of the content area's width and height."""


def stacked(context: Any) -> bool:
    """Whether a slide lays out top to bottom (picture above text, lists in one column, a code under
    its heading): on a portrait screen (``context.portrait``) whatever the shape of the free area
    the slide got (between a portrait screen's corner panels it is often wider than high, yet the
    screen is read top to bottom and a side-by-side layout is a landscape band in its middle), and
    on any screen when the slide's box is higher than wide. The one owner of that choice: every
    builtin slide with a side-by-side layout asks it."""
    width, height = context.size
    return bool(getattr(context, "portrait", False)) or height > width


def screen_rect(width: float, height: float, overscan_percent: float = 0.0) -> Rect:
    """The part of a ``width`` x ``height`` window the composition is drawn in: all of it, or for a
    TV that overscans HDMI (``overscan_percent`` of each dimension cropped, 0 to 10) that much less,
    centred, so nothing the composition shows is lost past the panel's edge."""
    share = min(10.0, max(0.0, float(overscan_percent or 0.0))) / 100.0
    dx, dy = float(width) * share / 2, float(height) * share / 2
    return Rect(dx, dy, float(width) - 2 * dx, float(height) - 2 * dy)


def layout_of(width: float, height: float, claims: Mapping[str, float] | None = None,
              overscan_percent: float = 0.0, safe_inset: float = 0.0) -> Layout:
    """The layout of a ``width`` x ``height`` screen given the layers' claims (``{"ticker": px,
    "alert": px}``; an alert claim at least the height above the ticker takes all of it), the
    overscan (:func:`screen_rect`: the composition drawn that much smaller) and the theme's
    title-safe inset (``safe_inset``, a share of each side: ``Layout.safe``). The inset keeps text
    off the edges, not grounds: the content area reaches the screen's edges (a slide's ground and
    pictures are full-bleed, its text inside its own title inset, :func:`inside_safe`) and the alert
    band moves inside it (below the top inset, between the side ones). The ticker's band is the one
    exception: a crawl runs edge to edge along the bottom by design, its text in the middle of its
    band; on a TV that crops the picture the overscan brings it in with everything else."""
    claims = claims or {}
    screen = screen_rect(width, height, overscan_percent)
    inset = min(0.2, max(0.0, float(safe_inset or 0.0)))
    ix = iy = min(screen.width, screen.height) * inset  # the same margin on every side, a portrait screen's too
    safe = Rect(screen.x + ix, screen.y + iy, screen.width - 2 * ix, screen.height - 2 * iy)
    band = max(0.0, min(screen.height, float(claims.get("ticker", 0.0))))
    ticker = Rect(screen.x, screen.y, screen.width, band)
    bottom = ticker.top
    top = screen.top
    alert = max(0.0, min(safe.top - bottom, float(claims.get("alert", 0.0))))
    alert_rect = Rect(safe.x, safe.top - alert, safe.width, alert)
    content_top = alert_rect.y if alert else top
    return Layout(screen=screen, content=Rect(screen.x, bottom, screen.width, max(0.0, content_top - bottom)),
                  ticker=ticker, alert=alert_rect, safe=safe)


def zone_rect(layout: Layout, zone: str, size_hint: tuple[float | None, float | None] = (1.0, 1.0)) -> Rect:
    """Where a widget of ``size_hint`` (fractions of the content area; None counts as 1) goes in
    ``zone``: a corner panel :data:`MARGIN` from the edges, a band, the middle or the whole area."""
    c = layout.content
    if zone == "fullscreen" or zone not in ZONES:
        return c
    ref_w, ref_h = layout.reference
    if zone in ("top_band", "bottom_band"):
        height = min(c.height, ref_h * BAND)
        return Rect(c.x, c.top - height if zone == "top_band" else c.y, c.width, height)
    hint_w, hint_h = (1.0 if v is None else min(1.0, max(0.0, float(v))) for v in size_hint)
    width, height = ref_w * hint_w, ref_h * hint_h
    if zone != "center":  # a corner panel shrinks, keeping its shape, to fit the content area (an
        # alert's band makes it lower) and on a portrait screen to leave the slide room
        most = c.width * (PANEL_MAX_SHARE if layout.portrait else 1.0)
        shrink = min(1.0, most / max(1.0, width), c.height / max(1.0, height))
        width, height = width * shrink, height * shrink
    gap_x, gap_y = c.width * MARGIN[0], c.height * MARGIN[1]
    if zone == "center":
        return Rect(c.x + (c.width - width) / 2, c.y + (c.height - height) / 2, width, height)
    safe = layout.safe  # a panel (its text) sits inside the title-safe area, where it fits there
    left, right = max(c.x + gap_x, safe.x), min(c.right - gap_x, safe.right)
    bottom, top = max(c.y + gap_y, safe.y), min(c.top - gap_y, safe.top)
    x = left if zone.endswith("left") else right - width
    y = top - height if zone.startswith("top") else bottom
    if y + height > top or y < bottom:  # taller than the room an alert leaves: its size kept, in the content area
        y = min(max(c.y, y), c.top - height)
    return Rect(max(c.x, x), max(c.y, y), width, height)


def title_inset(layout: Layout) -> float:
    """How far a line of text that spans the content area stays from its left and right edges: a
    slide's title's inset (:data:`hookspecs.render.TITLE_BOX`, a share of the content area's width).
    The celebration message keeps it, so it lines up with the slides' titles."""
    return layout.content.width * TITLE_BOX[0]


def arrange(layout: Layout, wanted: Sequence[tuple[str, tuple[float | None, float | None], bool]]
            ) -> tuple[list[Rect], list[tuple[str, Rect]], list[Rect | None]]:
    """Where each overlay of ``wanted`` (``(zone, size_hint, celebrates)``, in order) goes, the
    ``(zone, rect)`` they occupy (for :func:`with_occupied`) and, for each one that celebrates,
    where its message goes. Corners are first come first served; a ``center`` overlay or a
    second one in a corner moves to a free corner (stays where it asked when none is free); a
    band as asked; a ``fullscreen`` one covers the content area and occupies nothing but, when
    it ``celebrates`` (shows a message), the celebration band, between the bottom corner panels.
    An unknown zone counts as ``fullscreen``."""
    zones = [zone if zone in ZONES else "fullscreen" for zone, _hint, _celebrates in wanted]
    taken = {zone for zone in zones if zone in CORNERS}
    rects: list[Rect] = []
    used: set[str] = set()
    for index, (_wanted, hint, _celebrates) in enumerate(wanted):
        zone = zones[index]
        if zone == "center" or (zone in CORNERS and zone in used):
            free = [corner for corner in _MOVE_ORDER if corner not in taken]
            if free:
                zone = free[0]
                taken.add(zone)
            elif zone == "center":
                zone = _MOVE_ORDER[0]
        used.add(zone)
        zones[index] = zone
        rects.append(zone_rect(layout, zone, hint))
    band = zone_rect(layout, CELEBRATION_ZONE)
    gap = layout.content.width * MARGIN[0]
    inset = title_inset(layout)  # the message starts where a slide's title does, never at the edge
    left = max([band.x + inset, layout.safe.x] + [r.right + gap for z, r in zip(zones, rects) if z == "bottom_left"])
    right = min([band.right - inset, layout.safe.right] +
                [r.x - gap for z, r in zip(zones, rects) if z == "bottom_right"])
    low = max(band.y, layout.safe.y)  # above the bottom inset (no ticker under it)
    message = Rect(left, low, max(0.0, right - left), max(0.0, band.top - low))
    bottoms = [r.top for z, r in zip(zones, rects) if z in ("bottom_left", "bottom_right")]
    if layout.portrait and bottoms:
        if message.width >= layout.content.width * FOOTER_MIN_SHARE:
            # a footer: the message beside the bottom panel(s), as high as their row, so the slide
            # starts above that row rather than above a band stacked on it
            message = Rect(message.x, message.y, message.width, max(band.top, max(bottoms)) - message.y)
        else:  # both bottom corners taken: the bands stack, the message across the width above the panels
            message = Rect(band.x + inset, max(bottoms) + layout.content.height * MARGIN[1] / 2,
                           band.width - 2 * inset, band.height)
        band = Rect(band.x, band.y, band.width, message.top - band.y)
    occupied = [(zone, rect) for zone, rect in zip(zones, rects) if zone != "fullscreen"]
    messages = [message if zone == "fullscreen" and celebrates else None
                for zone, (_z, _hint, celebrates) in zip(zones, wanted)]
    if any(messages):
        occupied.append((CELEBRATION_ZONE, band))
    return rects, occupied, messages


def with_occupied(layout: Layout, occupied: Sequence[tuple[str, Rect]]) -> Layout:
    """``layout`` with ``zones`` (each zone's bounding rectangle of what occupies it) and
    ``free`` (the content area minus the corner panels and bands; see the module doc)."""
    c = layout.content
    gap_x, gap_y = c.width * MARGIN[0], c.height * MARGIN[1]
    zones: dict[str, Rect] = {}
    for zone, rect in occupied:
        known = zones.get(zone)
        zones[zone] = rect if known is None else _bounds(known, rect)
    # each cut bounds one edge of the free area: 0 left, 1 bottom (raised), 2 right, 3 top (lowered)
    fixed: list[tuple[int, float]] = []
    choices: list[tuple[tuple[int, float], tuple[int, float]]] = []
    for zone, rect in zones.items():
        if zone == "top_band":
            fixed.append((3, rect.y))
        elif zone == "bottom_band":
            fixed.append((1, rect.top))
        elif zone in CORNERS:
            column = (0, rect.right + gap_x) if zone.endswith("left") else (2, rect.x - gap_x)
            band = (3, rect.y - gap_y) if zone.startswith("top") else (1, rect.top + gap_y)
            choices.append((column, band))
    candidates = []
    for picks in itertools.product(*choices):
        edges = [c.x, c.y, c.right, c.top]
        for side, value in (*fixed, *picks):
            edges[side] = max(edges[side], value) if side < 2 else min(edges[side], value)
        candidates.append(Rect(edges[0], edges[1], max(0.0, edges[2] - edges[0]),
                               max(0.0, edges[3] - edges[1])))
    roomy = [rect for rect in candidates if rect.width >= c.width * MIN_FREE_SHARE[0]
             and rect.height >= c.height * MIN_FREE_SHARE[1]]
    best = max(roomy or candidates, key=lambda rect: rect.area * (rect.width / max(1.0, c.width)) ** 0.25)
    return replace(layout, zones=zones, free=inside_safe(best, layout.safe, layout.screen))


SLIDE_TEXT_INSET = (TITLE_BOX[0], 1 - TITLE_BOX[0] - TITLE_BOX[2], TITLE_BOX[1], 0.06)
"""How far a builtin slide's text stays from its left, right, top and bottom (shares of the slide's
width and height): its title box's insets, its body column's bottom (``kit.column.body_column``)."""


def inside_safe(free: Rect, safe: Rect, screen: Rect) -> Rect:
    """``free`` with each edge that lies on the screen's edge moved in as far as the slide's own text
    inset (:data:`SLIDE_TEXT_INSET`) falls short of the title-safe area there: a narrow slide at the
    screen's edge keeps its text inside ``safe`` (the backdrop shows in what it gives up, seamless)."""
    left_share, right_share, sy, bottom_share = SLIDE_TEXT_INSET
    left = max(0.0, safe.x - free.x - free.width * left_share) if free.x <= screen.x + 0.5 else 0.0
    right = max(0.0, free.right - safe.right - free.width * right_share) if free.right >= screen.right - 0.5 else 0.0
    low = max(0.0, safe.y - free.y - free.height * bottom_share) if free.y <= screen.y + 0.5 else 0.0
    high = max(0.0, free.top - safe.top - free.height * sy) if free.top >= screen.top - 0.5 else 0.0
    if not (left or right or low or high):
        return free
    return Rect(free.x + left, free.y + low, max(0.0, free.width - left - right), max(0.0, free.height - low - high))


_MOVE_ORDER = ("bottom_right", "bottom_left", "top_right", "top_left")
"""The free corner an overlay moves to: the bottom ones first (a slide's title is at its top)."""


def _bounds(a: Rect, b: Rect) -> Rect:
    x, y = min(a.x, b.x), min(a.y, b.y)
    return Rect(x, y, max(a.right, b.right) - x, max(a.top, b.top) - y)


def layer_box(refit: Any = None, fill: bool = False) -> Any:
    """A layer's widget: a FloatLayout the compositor places and sizes (``size_hint`` None).
    With ``fill``, each child is given the box's place and size whenever the box moves or is
    resized (a layer that shows one thing at a time, stacked); then ``refit`` is called."""
    from kivy.uix.floatlayout import FloatLayout

    box = FloatLayout(size_hint=(None, None))

    def follow(*args: Any) -> None:
        if fill:
            for child in box.children:
                child.pos, child.size = box.pos, box.size
        if refit is not None:
            refit(*args)

    box.bind(pos=follow, size=follow)
    return box


def drop_widget(widget: Any, detach: bool = False) -> None:
    """A renderer's widget is done with: out of its parent (``detach``) and its ``dispose()``
    called (:class:`hookspecs.render.Widget`), a failure there logged, never raised."""
    if detach and widget.parent is not None:
        widget.parent.remove_widget(widget)
    dispose = getattr(widget, "dispose", None)
    if dispose is not None:
        try:
            dispose()
        except Exception:  # noqa: BLE001  a renderer's failure: the layer goes on
            logging.getLogger("svc_host.display").exception("display: dispose failed")


def place_celebration(root: Any, rect: Any, band: Any) -> None:
    """Put the celebration message of the full-screen overlay ``root`` (drawn in ``rect``, window
    pixels) in ``band`` (window pixels; :func:`arrange` says where). A
    message that moves itself (``moves`` true: the bouncing message) keeps its own course."""
    caption = getattr(root, "celebration", None)
    if caption is None or getattr(caption, "moves", False):
        return
    caption.size_hint, caption.pos_hint = (None, None), {}
    caption.pos, caption.size = (band.x - rect.x, band.y - rect.y), band.size  # root coordinates


def overlay_bands(widget: Any, rect: Rect) -> list[tuple[str, Rect]]:
    """The bands a full-screen overlay's widget says it takes (``widget.bands``: ``(zone, top,
    bottom)`` as fractions of ``rect`` from its top; a folder plugin's template overlay sets it)."""
    bands = []
    for zone, top, bottom in getattr(widget, "bands", None) or ():
        if zone in ("top_band", "bottom_band") and 0 <= top < bottom <= 1:
            bands.append((zone, Rect(rect.x, rect.top - bottom * rect.height, rect.width,
                                     (bottom - top) * rect.height)))
    return bands
