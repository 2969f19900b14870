"""The adoption layer (Kivy-only, loaded when a canvas starts): the card of the pending requests.

``load`` (loader thread) asks the adoption service for the pending challenges (newest first);
the first :data:`MAX_SHOWN` are drawn on one card centred in the content area, each on its
own row: who asks (the identifier), for which role, and its code as ``XXXX-XXXX`` beside it
(under it on a portrait screen), the request just made on top. So two people pairing at once
each read their own code. Every text is one line that shrinks to its box (the kit's
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

from hookspecs.render import RenderContext, Stage
from hookspecs.services import ADOPTION, service
from svc_host.display.kit import widgets as _w

SECURITY = (0.95, 0.2, 0.3, 1)
AMBER = (1, 0.85, 0.3, 1)
WHITE = (1, 1, 1, 1)
MUTED = (0.8, 0.8, 0.86, 1)
MAX_SHOWN = 3  # requests on the card at once (the newest); the rest wait for a row to free
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


def request_row(context: RenderContext, pending: dict, portrait: bool) -> Any:
    """One request: who asks and for which role, and the code (beside them, under them in portrait)."""
    from kivy.uix.boxlayout import BoxLayout

    who = BoxLayout(orientation="vertical")
    who.add_widget(fit(context, str(pending.get("identifier", "")), 56, WHITE, ROLE_REQUESTER, bold=True,
                        halign="left", size_hint_y=1.2))
    who.add_widget(fit(context, f"asks for the role {pending.get('role', '')}", 40, MUTED, halign="left"))
    code = fit(context, format_challenge(pending.get("challenge", "")), 130, AMBER, ROLE_CODE, bold=True,
                halign="left" if portrait else "right", samples=("WWWW-WWWW",))
    row = BoxLayout(orientation="vertical" if portrait else "horizontal", spacing=font(context, 12))
    if portrait:
        who.size_hint_y = 1.0
        code.size_hint_y = 1.1
    else:
        who.size_hint_x, code.size_hint_x = 0.52, 0.48
    row.add_widget(who)
    row.add_widget(code)
    return row


def adoption_card(context: RenderContext, pending: list[dict]) -> Any:
    """The card of ``pending`` (newest first, at most :data:`MAX_SHOWN`), centred in ``context.size``."""
    from kivy.uix.boxlayout import BoxLayout

    w = _w()
    width, height = context.size
    portrait = height > width
    rows = pending[:MAX_SHOWN]
    # heights in header units: the header 1, the hint 0.55, a request 1.6 (2.4 stacked in portrait)
    unit_rows = 1.55 + (2.4 if portrait else 1.6) * len(rows)
    card_h = min(0.92, (0.1 + 0.105 * unit_rows) if not portrait else (0.06 + 0.06 * unit_rows))
    card = w.Slide(size_hint=(0.94 if portrait else 0.8, card_h), pos_hint={"center_x": 0.5, "center_y": 0.5})
    card.add_widget(w.Backdrop([(0.08, 0.08, 0.1, 1)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    card.add_widget(w.Backdrop([SECURITY], size_hint=(1, 0.015 if portrait else 0.025), pos_hint={"x": 0, "top": 1}))
    pad = font(context, 28)
    column = BoxLayout(orientation="vertical", padding=(pad * 1.4, pad * 1.2, pad * 1.4, pad), spacing=pad * 0.6,
                       size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    header = BoxLayout(orientation="horizontal", spacing=pad * 0.6, size_hint_y=1.0)
    header.add_widget(w.icon("shield", font(context, 76), SECURITY, size_hint_x=0.12 if portrait else 0.07))
    title = "Pairing request" if len(pending) == 1 else f"{len(pending)} pairing requests"
    header.add_widget(fit(context, title, 64, WHITE, bold=True, halign="left"))
    column.add_widget(header)
    hint = ("Type the code shown beside your device's name."
            + (f" Newest {len(rows)} shown." if len(pending) > len(rows) else ""))
    column.add_widget(fit(context, hint, 36, MUTED, halign="left", size_hint_y=0.55))
    for index, item in enumerate(rows):
        if index:
            column.add_widget(w.Backdrop([(1, 1, 1, 0.12)], size_hint_y=None, height=max(1.0, font(context, 2))))
        row = request_row(context, item, portrait)
        row.size_hint_y = 2.4 if portrait else 1.6
        column.add_widget(row)
    card.add_widget(column)
    return card


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
    def load(self) -> AdoptionState:
        adoption = service(self.host, ADOPTION)
        return AdoptionState(list(adoption.pending_challenges()) if adoption is not None else [])

    def due_ms(self, state: AdoptionState) -> int | None:
        return state.due_ms()

    def apply(self, state: AdoptionState, restyle: bool) -> None:
        self.show(state.shown() + [{"count": len(state.pending)}], restyle,
                  (lambda context: adoption_card(context, state.pending)) if state.pending else None)
