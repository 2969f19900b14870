"""The theme backdrop (Kivy-only): a box filled with a colour or a vertical gradient.

The compositor draws the theme's background under every layer with it; renderers use the
same widget (through the renderer kit's ``widgets()``).
"""
from __future__ import annotations

from typing import Any, Sequence

from kivy.graphics import ClearBuffers, ClearColor, Color, Rectangle
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
    """Fills its box with a colour or a vertical gradient of colours (``colors``, top first).

    ``screen`` true: the gradient is the part of the window's own (the one the compositor draws
    under every layer) that lies behind the box, so a slide drawn in part of the screen (the free
    area beside overlay panels) meets the compositor's backdrop without a seam; its colours
    follow where the box is on the window (its parents' moves too).

    :meth:`clear_window` (the compositor's, for its bottom-most fill): one opaque colour is
    drawn as a clear of the whole framebuffer instead of a filled rectangle."""

    def __init__(self, colors: Sequence[RGBA], screen: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.screen = screen and len(colors) > 1
        self._watched: list[Any] = []
        self.colors: tuple[RGBA, ...] = tuple(tuple(c) for c in colors)  # type: ignore[misc]
        self.clears = False
        self.pieces: list[tuple[float, float, float, float]] | None = None  # show_only's; None: the whole box
        self._texture = gradient_texture(colors) if len(colors) > 1 else None
        self._draw()
        self.bind(pos=self._sync, size=self._sync)
        if self.screen:
            self.bind(parent=self._watch)

    def _draw(self) -> None:
        colors = self.colors
        self.canvas.clear()
        with self.canvas:
            if self.clears:
                ClearColor(*colors[0][:3], 1.0)
                ClearBuffers(clear_color=True)
                self._rect = None  # nothing to fill: the clear did
            elif self.pieces is not None:
                Color(*(colors[0] if self._texture is None else (1, 1, 1, 1)))
                self._rect = None
                height = max(1.0, float(self.height))
                for x, y, width, tall in self.pieces:  # each with its part of the gradient
                    bottom, top = (y - self.y) / height, (y + tall - self.y) / height
                    Rectangle(pos=(x, y), size=(width, tall), texture=self._texture,
                              tex_coords=(0, bottom, 1, bottom, 1, top, 0, top))
            elif self._texture is None:
                Color(*colors[0])
                self._rect = Rectangle(pos=self.pos, size=self.size)
            else:
                Color(1, 1, 1, 1)
                self._rect = Rectangle(pos=self.pos, size=self.size, texture=self._texture)

    @property
    def flat(self) -> bool:
        """One opaque colour: what the box shows can be a clear of the framebuffer."""
        return len(self.colors) == 1 and (len(self.colors[0]) < 4 or self.colors[0][3] >= 1)

    def clear_window(self, on: bool) -> None:
        """Draw this backdrop (when :attr:`flat`) as a clear of the whole framebuffer in its colour
        (``glClear``) rather than a rectangle: right only while it is the first thing drawn and what
        it does not cover is covered by what is drawn over it (the compositor's ground over the
        content area, the ticker band below it). On llvmpipe a clear costs next to nothing and a
        textured fill of 1920x1080 13-16 ms of CPU a frame (issue 29, docs/performance.md)."""
        on = on and self.flat
        if on != self.clears:
            self.clears = on
            self._draw()

    def show_only(self, pieces: list[tuple[float, float, float, float]] | None) -> None:
        """Fill only ``pieces`` of the box (``(x, y, width, height)`` in the box's own coordinates,
        each with its part of the gradient), or the whole box (None): the compositor leaves out
        what is drawn opaque over it anyway (each fill on llvmpipe is CPU per pixel, every frame)."""
        if pieces != self.pieces:
            self.pieces = pieces
            self._draw()

    def _watch(self, *_args: Any) -> None:
        """Follow the moves of every parent (a slide's root is moved, not this child of it)."""
        for widget in self._watched:
            widget.unbind(pos=self._sync, size=self._sync)
        self._watched, widget = [], self.parent
        while widget is not None and widget.parent is not widget:
            widget.bind(pos=self._sync, size=self._sync)
            self._watched.append(widget)
            widget = widget.parent
        self._sync()

    def _sync(self, *_args: Any) -> None:
        if self._rect is None:
            return
        self._rect.pos = self.pos
        self._rect.size = self.size
        if self.screen:
            from kivy.core.window import Window

            height = float(Window.height) if Window is not None else 0.0
            if height > 1 and self.height > 0:
                bottom = self.to_window(self.x, self.y)[1] / height
                top = bottom + self.height / height
                self._rect.tex_coords = (0, bottom, 1, bottom, 1, top, 0, top)
