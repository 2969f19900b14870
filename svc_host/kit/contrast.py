"""Colour contrast (WCAG 2.x), for every plugin that picks or checks colours.

The one place the contrast formula lives: the themes owner (``builtin_plugins.settings.themes``)
checks a theme's text/background pairs with it, renderers pick legible colours with it
(:func:`readable_on`, :func:`legible`), and tests measure rendered pixels with it.

- :func:`relative_luminance` and :func:`contrast_ratio`: WCAG 2.x, sRGB, 1:1 to 21:1;
- :func:`composite`: a translucent colour over another (what a panel of alpha ``a`` shows);
- :func:`readable_on`: black or white, whichever reads better on a background;
- :func:`legible`: a colour moved towards white or black until it reads on every background given;
- :func:`qr_colours`: the colours a QR code is drawn in (dark modules on a light ground, always).

Colours are RGBA tuples of floats 0-1 (:data:`hookspecs.render.RGBA`); alpha is ignored by the
luminance functions (composite first).
"""
from __future__ import annotations

from typing import Iterable, Sequence

RGBA = tuple[float, float, float, float]

MIN_TEXT = 4.5
"""WCAG AA: text against the background it is drawn on."""
MIN_LARGE_TEXT = 3.0
"""WCAG AA for large text and for the parts of a graphic that must be told apart."""
PANEL_ALPHA = 0.94
"""The opacity of an overlay panel's theme fill (:func:`svc_host.kit.display.panels.add_backdrop`):
opaque enough that its text reads over any slide (the themes owner checks the panel over black
and over white)."""
BLACK: RGBA = (0.0, 0.0, 0.0, 1.0)
WHITE: RGBA = (1.0, 1.0, 1.0, 1.0)


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def relative_luminance(color: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour (floats 0-1; alpha ignored): 0 black, 1 white."""
    r, g, b = (min(1.0, max(0.0, float(c))) for c in color[:3])
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def luminance_ratio(a: float, b: float) -> float:
    """The contrast ratio of two relative luminances."""
    high, low = max(a, b), min(a, b)
    return (high + 0.05) / (low + 0.05)


def contrast_ratio(fg: Sequence[float], bg: Sequence[float]) -> float:
    """WCAG contrast ratio of two opaque colours, 1.0 to 21.0 (order does not matter)."""
    return luminance_ratio(relative_luminance(fg), relative_luminance(bg))


def composite(top: Sequence[float], under: Sequence[float], alpha: float | None = None) -> RGBA:
    """``top`` drawn with ``alpha`` (default: its own alpha) over the opaque ``under``."""
    a = float(top[3]) if alpha is None and len(top) > 3 else (1.0 if alpha is None else float(alpha))
    return (top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1.0)


def readable_on(bg: Sequence[float]) -> RGBA:
    """Black or white, whichever contrasts more with ``bg`` (at least 4.58:1 either way)."""
    return BLACK if contrast_ratio(BLACK, bg) >= contrast_ratio(WHITE, bg) else WHITE


def worst_contrast(fg: Sequence[float], backgrounds: Iterable[Sequence[float]]) -> float:
    """The lowest contrast of ``fg`` against any of ``backgrounds`` (21.0 when there is none)."""
    return min((contrast_ratio(fg, bg) for bg in backgrounds), default=21.0)


def legible(fg: Sequence[float], backgrounds: Sequence[Sequence[float]], minimum: float = MIN_TEXT) -> RGBA:
    """``fg`` itself when it reaches ``minimum`` against every background; else ``fg`` mixed
    towards white or black (whichever gets there with less change, or reads better) until it
    does. For semantic colours (a rising price's green, an alert's red) on a theme's background."""
    base: RGBA = (float(fg[0]), float(fg[1]), float(fg[2]), float(fg[3]) if len(fg) > 3 else 1.0)
    if worst_contrast(base, backgrounds) >= minimum:
        return base
    reached: list[tuple[float, RGBA]] = []  # (how much it changed, colour)
    fallback: tuple[float, RGBA] = (worst_contrast(base, backgrounds), base)
    for target in (WHITE, BLACK):
        for step in range(1, 21):
            mix = step / 20
            candidate = (base[0] + (target[0] - base[0]) * mix, base[1] + (target[1] - base[1]) * mix,
                         base[2] + (target[2] - base[2]) * mix, base[3])
            score = worst_contrast(candidate, backgrounds)
            if score >= minimum:
                reached.append((mix, candidate))
                break
            if score > fallback[0]:
                fallback = (score, candidate)
    return min(reached)[1] if reached else fallback[1]


def qr_colours(fg: Sequence[float] = BLACK, bg: Sequence[float] = WHITE) -> tuple[RGBA, RGBA]:
    """The module and quiet-zone colours of a QR code: ``fg`` on ``bg`` (made opaque over white)
    when the modules are the darker and contrast at least :data:`MIN_TEXT` with the quiet zone,
    else black on white. Scanners read dark modules on a light ground only."""
    light = composite(bg, WHITE)
    dark = composite(fg, light)
    if relative_luminance(dark) < relative_luminance(light) and contrast_ratio(dark, light) >= MIN_TEXT:
        return dark, light
    return BLACK, WHITE


__all__ = ("MIN_TEXT", "MIN_LARGE_TEXT", "PANEL_ALPHA", "BLACK", "WHITE", "relative_luminance",
           "luminance_ratio", "contrast_ratio", "composite", "readable_on", "worst_contrast", "legible",
           "qr_colours")
