"""Colour (the rules of :mod:`svc_host.kit.contrast`, no Kivy): a semantic colour made legible where it
is drawn (:func:`on_background`, :func:`on_panel`); ``qr_colours`` keeps a code dark on light."""
from __future__ import annotations

from svc_host.kit.contrast import BLACK, PANEL_ALPHA, WHITE, composite, legible
from hookspecs.render import RenderContext, Theme

RGBA = tuple[float, float, float, float]


RED: RGBA = (0.9, 0.25, 0.25, 1.0)  # falling prices, the alerts slide's accent
GREEN: RGBA = (0.2, 0.8, 0.4, 1.0)  # rising prices, a right answer


def panel_backgrounds(theme: Theme) -> list[RGBA]:
    """What an overlay panel's fill can look like: over black and over white."""
    return [composite(theme.primary_bg, under, PANEL_ALPHA) for under in (BLACK, WHITE)]


def on_background(context: RenderContext, color: RGBA) -> RGBA:
    """``color`` (a rising price's green ...) made legible on the theme's slide background."""
    return legible(color, [composite(c, BLACK) for c in context.theme.background])


def on_panel(context: RenderContext, color: RGBA) -> RGBA:
    """``color`` made legible on an overlay panel (:func:`add_backdrop`)."""
    return legible(color, panel_backgrounds(context.theme))
