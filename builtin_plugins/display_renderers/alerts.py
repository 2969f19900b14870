"""Alerts drawn above the slides (spec 2.2, 5.3).

Ordinary alerts are cards stacked from the top (severity stripe, title, body, optional QR
of ``qr_payload``). An alert whose ``display_only`` dict carries a ``challenge`` (the
adoption security alert) is a large centred card with a shield icon, the requested role,
the identifier and the challenge as ``XXXX-XXXX``. ``display_only`` is never serialized;
only the canvas sees the challenge.
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.display_renderers.base import RenderContext

SEVERITY_COLORS = {
    "critical": (0.85, 0.1, 0.1, 1), "high": (0.95, 0.35, 0.1, 1), "warning": (1.0, 0.7, 0.1, 1),
    "security": (0.95, 0.2, 0.3, 1), "info": (0.2, 0.6, 1.0, 1),
}


def format_challenge(code: str) -> str:
    code = "".join(ch for ch in str(code) if ch.isalnum()).upper()
    return f"{code[:4]}-{code[4:8]}" if len(code) == 8 else code


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


def adoption_card(context: RenderContext, alert: dict) -> Any:
    from builtin_plugins.display_renderers import widgets as w

    info = alert.get("display_only") or {}
    width, height = context.size
    card = w.Slide(size_hint=(0.7, 0.6), pos_hint={"center_x": 0.5, "center_y": 0.5})
    card.add_widget(w.Backdrop([(0.08, 0.08, 0.1, 0.96)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    card.add_widget(w.Backdrop([SEVERITY_COLORS["security"]], size_hint=(1, 0.04), pos_hint={"x": 0, "top": 1}))
    cw, ch = width * 0.7, height * 0.6
    _shield(card, cw * 0.14, ch * 0.55, ch * 0.42, SEVERITY_COLORS["security"])
    white = (1, 1, 1, 1)
    card.add_widget(w.label("Adoption request", context.font(64), white, bold=True, size_hint=(0.68, 0.18),
                            pos_hint={"x": 0.28, "top": 0.92}))
    card.add_widget(w.label(f"{info.get('identifier', '')} asks for the role {info.get('role', '')}",
                            context.font(40), (0.85, 0.85, 0.9, 1), size_hint=(0.68, 0.14),
                            pos_hint={"x": 0.28, "top": 0.72}))
    card.add_widget(w.label(format_challenge(info.get("challenge", "")), context.font(150), (1, 0.85, 0.3, 1),
                            bold=True, size_hint=(0.68, 0.3), pos_hint={"x": 0.28, "top": 0.55}))
    card.add_widget(w.label("Enter this code on the controller to confirm.", context.font(34),
                            (0.75, 0.75, 0.8, 1), size_hint=(0.68, 0.12), pos_hint={"x": 0.28, "y": 0.06}))
    return card


def alert_card(context: RenderContext, alert: dict, top: float, height_hint: float) -> Any:
    from builtin_plugins.display_renderers import widgets as w

    color = SEVERITY_COLORS.get(str(alert.get("severity", "")).lower(), SEVERITY_COLORS["warning"])
    card = w.Slide(size_hint=(0.9, height_hint), pos_hint={"center_x": 0.5, "top": top})
    card.add_widget(w.Backdrop([(0.1, 0.1, 0.12, 0.94)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    card.add_widget(w.Backdrop([color], size_hint=(0.015, 1), pos_hint={"x": 0, "y": 0}))
    text_width = 0.8 if alert.get("qr_payload") else 0.95
    card.add_widget(w.label(str(alert.get("title", "")), context.font(46), (1, 1, 1, 1), bold=True,
                            size_hint=(text_width - 0.03, 0.45), pos_hint={"x": 0.03, "top": 0.98}))
    card.add_widget(w.label(str(alert.get("body", ""))[:400], context.font(32), (0.88, 0.88, 0.9, 1),
                            valign="top", size_hint=(text_width - 0.03, 0.5), pos_hint={"x": 0.03, "y": 0.04}))
    if alert.get("qr_payload"):
        from builtin_plugins.display_renderers.screens import qr_texture

        card.add_widget(w.ImageFill(qr_texture(str(alert["qr_payload"])), size_hint=(0.16, 0.92),
                                    pos_hint={"right": 0.99, "center_y": 0.5}))
    return card


def alert_stack(context: RenderContext, alerts: list[dict]) -> Any:
    from builtin_plugins.display_renderers import widgets as w

    layer = w.Slide()
    security = [a for a in alerts if (a.get("display_only") or {}).get("challenge")]
    others = [a for a in alerts if a not in security][:3]
    top = 0.97
    for alert in others:
        layer.add_widget(alert_card(context, alert, top, 0.17))
        top -= 0.19
    if security:
        layer.add_widget(adoption_card(context, security[0]))
    return layer
