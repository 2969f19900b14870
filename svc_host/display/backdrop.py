"""The theme backdrop (Kivy-only): a box filled with a colour or a vertical gradient.

The compositor draws the theme's background under every layer with it; renderers use the
same widget (the renderer kit, :mod:`svc_host.display.widgets`, re-exports it).
"""
from __future__ import annotations

from typing import Any, Sequence

from kivy.graphics import Color, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.widget import Widget

RGBA = tuple[float, float, float, float]


def gradient_texture(stops: Sequence[RGBA]) -> Texture:
    """A vertical gradient (first stop at the top) as a small linear-filtered texture."""
    stops = list(stops) or [(0, 0, 0, 1)]
    if len(stops) == 1:
        stops = stops * 2
    height = 64
    buf = bytearray()
    for y in range(height):  # texture row 0 is the bottom
        t = 1 - y / (height - 1)
        pos = t * (len(stops) - 1)
        i = min(int(pos), len(stops) - 2)
        f = pos - i
        a, b = stops[i], stops[i + 1]
        buf += bytes(int(255 * (a[k] + (b[k] - a[k]) * f)) for k in range(4))
    texture = Texture.create(size=(1, height), colorfmt="rgba")
    texture.blit_buffer(bytes(buf), colorfmt="rgba", bufferfmt="ubyte")
    texture.mag_filter = "linear"
    texture.min_filter = "linear"
    return texture


class Backdrop(Widget):
    """Fills its box with a colour or a vertical gradient of colours (``colors``, top first)."""

    def __init__(self, colors: Sequence[RGBA], **kwargs: Any):
        super().__init__(**kwargs)
        self.colors: tuple[RGBA, ...] = tuple(tuple(c) for c in colors)  # type: ignore[misc]
        with self.canvas:
            if len(colors) == 1:
                Color(*colors[0])
                self._rect = Rectangle(pos=self.pos, size=self.size)
            else:
                Color(1, 1, 1, 1)
                self._rect = Rectangle(pos=self.pos, size=self.size, texture=gradient_texture(colors))
        self.bind(pos=self._sync, size=self._sync)

    def _sync(self, *_args: Any) -> None:
        self._rect.pos = self.pos
        self._rect.size = self.size
