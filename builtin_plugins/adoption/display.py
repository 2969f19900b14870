"""The adoption layer (Kivy-only, loaded when a canvas starts): the panel of the pending requests.

``load`` (loader thread) asks the adoption service for the pending challenges (newest first);
the first :data:`MAX_SHOWN` are drawn on one panel in a corner of the content area (spec 5's
security alert), each on its own rows: who asks (the identifier), for which role, and its code
as ``XXXX-XXXX`` under them, large, the request just made on top. So two people pairing at once
each read their own code. The panel is a corner zone of the layout (:meth:`AdoptionLayer.arrange`):
the slide re-fits in the free area beside it, so a stranger's request never covers the program. Every text is one line that shrinks to its box (the kit's
``fit_label``): a long identifier or a portrait screen never wraps or cuts a code; a text too
long for its box even at its minimum scrolls along its line (the layer ticks it).

The challenge reaches only this card (and the console without a window), never an HTTP
response. The adoption alert (``display_only["drawn_by"] == "adoption"``) gets no card of its
own in the alerts layer: this card is its picture. The layer is loaded again when a challenge
expires and at every ``adoption`` change event (a request, a confirm, the restart's drop).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from hookspecs.render import CORNERS, Layout, Rect, RenderContext, Stage
from hookspecs.services import ADOPTION, service
from svc_host.kit.display import widgets as _w
from svc_host.kit.display.layout import MARGIN, zone_rect

SECURITY = (0.95, 0.2, 0.3, 1)
AMBER = (1, 0.85, 0.3, 1)
WHITE = (1, 1, 1, 1)
MUTED = (0.8, 0.8, 0.86, 1)
MAX_SHOWN = 3  # requests on the card at once (the newest); the rest wait for a row to free
CODE_PX = 76  # a code's size at 1080 lines: about 20 mm high on a 55" panel, read from 2 m and more
PANEL_WIDTH = 0.34  # the panel's width, a share of the landscape area above the ticker
ROW_HEIGHT = 0.17  # a request's row, a share of that area's height
CORNER_ORDER = ("top_left", "bottom_left", "top_right", "bottom_right")
ROLE_CODE = "challenge"  # the role of a code's label (tests read the codes from the card by it)
ROLE_REQUESTER = "requester"  # the role of the label naming who asks


def format_challenge(code: str) -> str:
    code = "".join(ch for ch in str(code) if ch.isalnum()).upper()
    return f"{code[:4]}-{code[4:8]}" if len(code) == 8 else code


@dataclass
class AdoptionState:
    pending: list[dict] = field(default_factory=list)  # newest first

    def due_ms(self) -> int | None:
        expiries = [p["expires_at_ms"] for p in self.pending if isinstance(p.get("expires_at_ms"), int)]
        return min(expiries) if expiries else None

    def shown(self) -> list[dict]:
        return [{k: p.get(k) for k in ("identifier", "role", "challenge")} for p in self.pending[:MAX_SHOWN]]


def font(context: RenderContext, px_at_1080: float) -> float:
    """``context.font``, at most ``px_at_1080`` per 1080 px of the area's short side (times the text
    scale): on a portrait screen the texts are as large as on a landscape screen of 1080 lines,
    whatever height the type scale follows there (the nominal size; a line still shrinks to its box)."""
    per_px = min(context.font(1080.0), min(context.size) * (context.text_scale or 1.0)) / 1080.0
    return max(6.0, px_at_1080 * per_px)


def fit(context: RenderContext, text: str, px: float, color: Any, role: str = "", **kwargs: Any) -> Any:
    """A kit ``fit_label`` (one line, shrunk to its box) at ``px`` (short side), with ``role``."""
    widget = _w().fit_label(text, font(context, px), color, **kwargs)
    if role:
        widget.role = role
    return widget


def request_row(context: RenderContext, pending: dict) -> Any:
    """One request, stacked: who asks (bold), for which role, and its code, large, under them."""
    from kivy.uix.boxlayout import BoxLayout

    row = BoxLayout(orientation="vertical", spacing=font(context, 4))
    row.add_widget(fit(context, str(pending.get("identifier", "")), 44, WHITE, ROLE_REQUESTER, bold=True,
                       halign="left", size_hint_y=0.85))
    row.add_widget(fit(context, f"asks for the role {pending.get('role', '')}", 30, MUTED, halign="left",
                       size_hint_y=0.6))
    row.add_widget(fit(context, format_challenge(pending.get("challenge", "")), CODE_PX, AMBER, ROLE_CODE,
                       bold=True, halign="left", samples=("WWWW-WWWW",), size_hint_y=1.45))
    return row


def panel_hint(count: int) -> tuple[float, float]:
    """The corner panel's size for ``count`` shown requests, as fractions of :attr:`Layout.reference`
    (the landscape area above the ticker): a third of the width, a header and a hint, then a row per
    request (a code :data:`CODE_PX` high at 1080 lines)."""
    rows = max(1, min(MAX_SHOWN, count))
    return PANEL_WIDTH, min(0.9, 0.15 + ROW_HEIGHT * rows)


def adoption_card(context: RenderContext, pending: list[dict]) -> Any:
    """The corner panel of ``pending`` (newest first, at most :data:`MAX_SHOWN`); the layer's
    :meth:`AdoptionLayer.arrange` puts it in its corner (its hints are set there)."""
    from kivy.uix.boxlayout import BoxLayout

    w = _w()
    rows = pending[:MAX_SHOWN]
    card = w.Slide(size_hint=(0.34, 0.4), pos_hint={"x": 0, "top": 1})
    card.reserve = True  # a panel: decoration keeps out of it
    card.add_widget(w.Backdrop([(0.08, 0.08, 0.1, 1)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    card.add_widget(w.Backdrop([SECURITY], size_hint=(0.018, 1), pos_hint={"x": 0, "y": 0}))
    pad = font(context, 22)
    column = BoxLayout(orientation="vertical", padding=(pad * 1.6, pad, pad, pad), spacing=pad * 0.5,
                       size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    header = BoxLayout(orientation="horizontal", spacing=pad * 0.5, size_hint_y=0.9)
    header.add_widget(w.icon("shield", font(context, 42), SECURITY, size_hint_x=0.1))
    title = "Pairing request" if len(pending) == 1 else f"{len(pending)} pairing requests"
    header.add_widget(fit(context, title, 44, WHITE, bold=True, halign="left"))
    column.add_widget(header)
    hint = "Type the code on your device." + (f" Newest {len(rows)} shown." if len(pending) > len(rows) else "")
    column.add_widget(fit(context, hint, 28, MUTED, halign="left", size_hint_y=0.5))
    for index, item in enumerate(rows):
        if index:
            column.add_widget(w.Backdrop([(1, 1, 1, 0.12)], size_hint_y=None, height=max(1.0, font(context, 2))))
        row = request_row(context, item)
        row.size_hint_y = 2.9
        column.add_widget(row)
    card.add_widget(column)
    return card


def pick_corner(taken: set[str], previous: str | None) -> str:
    """The corner the panel goes to: the one it has, else the first of :data:`CORNER_ORDER` that no
    overlay panel holds (the top left first: the clock and the QR code default to the right), else
    the top left (over whatever is there: a security notice outranks a panel for five minutes)."""
    if previous is not None and previous not in taken:
        return previous
    return next((corner for corner in CORNER_ORDER if corner not in taken), CORNER_ORDER[0])


class OneCardLayer:
    """A layer that shows at most one widget (a card, a slide), filling its area, built again
    only when what it shows changes (or the preferences do): the adoption and welcome layers."""

    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.shown: Any = None
        self.moving: list[Any] = []  # its texts that scroll when even their minimum does not fit

    @cached_property
    def widget(self) -> Any:
        from kivy.uix.floatlayout import FloatLayout

        return FloatLayout(size_hint=(None, None))

    def show(self, key: Any, restyle: bool, build: Callable[[RenderContext], Any] | None) -> None:
        """Show what ``build(context)`` makes (nothing when ``build`` is None) unless ``key`` is
        what is shown already."""
        if key == self.shown and not restyle:
            return
        self.shown = key
        self.widget.clear_widgets()
        self.moving = []
        if build is not None:
            built = build(self.stage.context("screen", {"id": type(self).__name__}))
            self.moving = [w for w in built.walk(restrict=True) if isinstance(w, _w().Scrolling)]
            self.widget.add_widget(built)

    def tick(self, dt: float) -> None:
        """Its one-line texts too long for their box at their minimum scroll (a long identifier)."""
        for widget in self.moving:
            widget.tick(dt)


class AdoptionLayer(OneCardLayer):
    """The pairing panel in a corner of the content area, over the program: the compositor cuts it
    from the free area (:meth:`arrange`), so the slide re-fits beside it and no text is covered."""

    corner: str | None = None
    count = 0

    def arrange(self, layout: Layout) -> list[tuple[str, Rect]]:
        panel = self.widget.children[0] if self.widget.children else None
        if panel is None or layout.content.area <= 0:
            self.corner = None
            return []
        # the corners overlay panels held at the last relayout, but the one this panel held itself
        taken = {zone for zone in self.stage.layout.zones if zone in CORNERS and zone != self.corner}
        content = layout.content
        if layout.portrait:  # a band across the top, as wide as a landscape panel is high: codes as large
            height = min(content.height * 0.6, content.width * (0.12 + 0.19 * self.count))
            gap_x, gap_y = content.width * MARGIN[0], content.height * MARGIN[1]
            self.corner = "top_band"
            rect = Rect(content.x + gap_x, content.top - gap_y - height, content.width - 2 * gap_x, height)
        else:
            self.corner = pick_corner(taken, self.corner)
            rect = zone_rect(layout, self.corner, panel_hint(self.count))
        panel.size_hint = (rect.width / content.width, rect.height / content.height)
        panel.pos_hint = {"x": (rect.x - content.x) / content.width, "y": (rect.y - content.y) / content.height}
        return [(self.corner, rect)]

    def load(self) -> AdoptionState:
        adoption = service(self.host, ADOPTION)
        return AdoptionState(list(adoption.pending_challenges()) if adoption is not None else [])

    def due_ms(self, state: AdoptionState) -> int | None:
        return state.due_ms()

    def apply(self, state: AdoptionState, restyle: bool) -> None:
        self.count = min(MAX_SHOWN, len(state.pending))  # the compositor's relayout after a load places it
        self.show(state.shown() + [{"count": len(state.pending)}], restyle,
                  (lambda context: adoption_card(context, state.pending)) if state.pending else None)
