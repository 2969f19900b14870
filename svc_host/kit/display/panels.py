"""Overlay panels (Kivy): a translucent box in the theme's panel colour, placed by the overlays
layer in its zone (:mod:`svc_host.kit.display.layout`)."""
from __future__ import annotations

from kivy.uix.widget import Widget

from svc_host.kit.contrast import PANEL_ALPHA
from hookspecs.render import RenderContext
from svc_host.kit.display.backdrop import Backdrop
from svc_host.kit.display.config import opacity, panel_hint, position
from svc_host.kit.display.slide import Slide


def add_backdrop(context: RenderContext, box: Widget) -> None:
    """A fill of the theme's primary background at :data:`svc_host.kit.contrast.PANEL_ALPHA` behind
    ``box``'s children: the theme's panel text reads on it over any slide."""
    bg = context.theme.primary_bg
    box.add_widget(Backdrop([(bg[0], bg[1], bg[2], PANEL_ALPHA)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))


def boxed_layer(context: RenderContext, size_hint: tuple[float, float], pos_hint: dict,
                backdrop: bool = True) -> tuple[Slide, Slide]:
    """An overlay panel: a box of ``size_hint`` (fractions of the content area; its ``opacity`` from
    the config) with a translucent theme backdrop unless ``backdrop`` is false. Returns
    ``(root, box)``, the same widget: the overlays layer puts the panel in its zone
    (``hookspecs.render.Layout``); ``pos_hint`` places it where it is drawn alone."""
    box = Slide(size_hint=size_hint, pos_hint=pos_hint)
    box.opacity = opacity(context)
    if backdrop:
        add_backdrop(context, box)
    return box, box


def panel(context: RenderContext, size_hint: tuple[float, float], default_pos: str = "top_right",
          scale: float = 1.0) -> tuple[Slide, Slide]:
    """A translucent box in the configured ``position``, ``size_hint`` times ``scale`` (capped at
    the screen)."""
    return boxed_layer(context, panel_hint(size_hint, scale), position(context, default_pos))
