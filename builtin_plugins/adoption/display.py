"""The adoption layer (Kivy-only, loaded when a canvas starts): the pending challenge's card.

``load`` (loader thread) asks the adoption service for the pending challenges; the oldest
is drawn as a large centred card over everything in the content area: a shield, "Adoption
request", the identifier and the role it asks for, and the challenge as ``XXXX-XXXX``.
The challenge reaches only this card (and the console without a window), never an HTTP
response. The layer is loaded again when the challenge expires.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from hookspecs.render import RenderContext, Stage
from hookspecs.services import ADOPTION, service
from svc_host.display.kit import widgets as _w

SECURITY = (0.95, 0.2, 0.3, 1)


def format_challenge(code: str) -> str:
    code = "".join(ch for ch in str(code) if ch.isalnum()).upper()
    return f"{code[:4]}-{code[4:8]}" if len(code) == 8 else code


@dataclass
class AdoptionState:
    pending: list[dict] = field(default_factory=list)

    def due_ms(self) -> int | None:
        expiries = [p["expires_at_ms"] for p in self.pending if isinstance(p.get("expires_at_ms"), int)]
        return min(expiries) if expiries else None


def _shield(widget: Any, cx: float, cy: float, size: float, color: Any) -> None:
    from kivy.graphics import Color, Line, Mesh

    w, h = size * 0.8, size
    points = [(cx, cy + h / 2), (cx + w / 2, cy + h * 0.32), (cx + w / 2, cy - h * 0.05),
              (cx, cy - h / 2), (cx - w / 2, cy - h * 0.05), (cx - w / 2, cy + h * 0.32)]
    vertices = [cx, cy, 0, 0]
    for x, y in points:
        vertices += [x, y, 0, 0]
    indices = [0] + list(range(1, len(points) + 1)) + [1]
    with widget.canvas:
        Color(*color)
        Mesh(vertices=vertices, indices=indices, mode="triangle_fan")
        Color(1, 1, 1, 1)
        Line(points=[cx - w * 0.2, cy, cx - w * 0.03, cy - h * 0.17, cx + w * 0.24, cy + h * 0.18],
             width=max(2.0, size * 0.05))


def adoption_card(context: RenderContext, pending: dict) -> Any:
    w = _w()
    width, height = context.size
    card = w.Slide(size_hint=(0.7, 0.6), pos_hint={"center_x": 0.5, "center_y": 0.5})
    card.add_widget(w.Backdrop([(0.08, 0.08, 0.1, 0.96)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    card.add_widget(w.Backdrop([SECURITY], size_hint=(1, 0.04), pos_hint={"x": 0, "top": 1}))
    cw, ch = width * 0.7, height * 0.6
    _shield(card, cw * 0.14, ch * 0.55, ch * 0.42, SECURITY)
    white = (1, 1, 1, 1)
    card.add_widget(w.label("Adoption request", context.font(64), white, bold=True, size_hint=(0.68, 0.18),
                            pos_hint={"x": 0.28, "top": 0.92}))
    card.add_widget(w.label(f"{pending.get('identifier', '')} asks for the role {pending.get('role', '')}",
                            context.font(40), (0.85, 0.85, 0.9, 1), size_hint=(0.68, 0.14),
                            pos_hint={"x": 0.28, "top": 0.72}))
    amber = (1, 0.85, 0.3, 1)
    code = format_challenge(pending.get("challenge", ""))
    card.add_widget(w.label(code, context.font(150), amber, bold=True, size_hint=(0.68, 0.3),
                            pos_hint={"x": 0.28, "top": 0.55}))
    card.add_widget(w.label("Enter this code on the controller to confirm.", context.font(34),
                            (0.75, 0.75, 0.8, 1), size_hint=(0.68, 0.12), pos_hint={"x": 0.28, "y": 0.06}))
    return card


class AdoptionLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.shown: dict | None = None

    @cached_property
    def widget(self) -> Any:
        from kivy.uix.floatlayout import FloatLayout

        return FloatLayout(size_hint=(None, None))

    def load(self) -> AdoptionState:
        adoption = service(self.host, ADOPTION)
        return AdoptionState(list(adoption.pending_challenges()) if adoption is not None else [])

    def due_ms(self, state: AdoptionState) -> int | None:
        return state.due_ms()

    def apply(self, state: AdoptionState, restyle: bool) -> None:
        first = state.pending[0] if state.pending else None
        if first == self.shown and not restyle:
            return
        self.shown = first
        self.widget.clear_widgets()
        if first is not None:
            self.widget.add_widget(adoption_card(self.stage.context("screen", {"id": "adoption"}), first))
