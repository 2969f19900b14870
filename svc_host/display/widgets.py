"""The renderer kit, Kivy part: building blocks for the display modules of any plugin.

Imported only on the UI side (a display module reaches it through
:func:`svc_host.display.kit.widgets`, so its ``prepare`` steps never import Kivy):

- roots and text: :class:`Slide` (a slide or overlay root with ``tick``/``dispose``
  forwarding), :func:`themed_slide`, :class:`Drawing` (canvas instructions drawn again from the
  widget's box when it moves or resizes), :func:`text_slide` (the title band and body of most
  slides), :func:`add_title` (that title band anywhere), :func:`box_hints` (a box from the top
  left as Kivy hints), :func:`label`, :func:`fit_label` (one line whose font shrinks to fit its
  box: a headline in a box that can be narrow; below its minimum it scrolls), :class:`ScrollBox` (a
  text that scrolls on one line what does not fit at its minimum: a celebration message, an
  alert's title), :class:`ScrollText` (a wrapped text that scrolls up through its box what does not
  fit at its minimum: an alert's body),
  :class:`SameSize` (labels sharing one size: a grid's cells), :class:`Backdrop` (a colour or gradient fill, the
  compositor's own); sizes from the type scale (``context.type_px``, :data:`hookspecs.render.TYPE_SCALE`);
- the body of a slide: :class:`Column` of :class:`Entry` items (a line or a few, an optional icon
  at their left, an optional highlight) spread over the height it is given, items that do not fit
  left out rather than shrunk; :func:`entry` makes one, :func:`body_column` places a column;
- icons: :func:`icon` (a Material Symbols icon, the font shipped in ``fonts/``, registered once);
- roles: the label holding a slide's title has ``role = "title"``, those holding its primary text
  ``role = "primary"`` (the layout keeps overlays off them; the type test checks their size);
- pictures: :func:`texture_from_bytes`, :func:`decoded_texture`, :func:`texture_from_pil`,
  :class:`ImageFill` (contain/cover), :class:`VideoFill`, :func:`qr_texture`;
- overlay panels: :func:`boxed_layer`, :func:`panel`, :func:`add_backdrop`;
- colour (the rules of :mod:`hookspecs.contrast`): :func:`on_background` and :func:`on_panel` (a
  semantic colour made legible where it is drawn), ``qr_colours`` (dark on light, always);
- moving pieces: :class:`Shapes`, :func:`glyph_texture`, :func:`rain_layer` (confetti,
  hearts, balloons), :func:`with_messages` and :class:`Messages` (cycled captions).
"""
from __future__ import annotations

import functools
import io
import math
import random
from typing import Any, Callable, Sequence

from kivy.clock import Clock
from kivy.graphics import Color, Line, Mesh, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.relativelayout import RelativeLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from hookspecs.contrast import BLACK, PANEL_ALPHA, WHITE, composite, legible, qr_colours
from hookspecs.render import BAND, ROLE_CELEBRATION, ROLE_TITLE, TITLE_BOX, TYPE_SCALE, RenderContext, Theme
# the compositor's own backdrop, re-exported for renderers
from svc_host.display.backdrop import Backdrop, gradient_texture  # noqa: F401
from svc_host.display.kit import (SYMBOLS_FONT, SYMBOLS_FONT_NAME, config_number, config_strings, icon_text, opacity,
                                  panel_hint, position)

RGBA = tuple[float, float, float, float]
RED: RGBA = (0.9, 0.25, 0.25, 1.0)  # falling prices, the alerts slide's accent
GREEN: RGBA = (0.2, 0.8, 0.4, 1.0)  # rising prices, a right answer
CONFETTI: list[RGBA] = [(1, 0.3, 0.4, 1), (1, 0.8, 0.2, 1), (0.3, 0.8, 1, 1), (0.5, 1, 0.4, 1),
                        (0.8, 0.4, 1, 1)]


def texture_from_bytes(data: bytes | None) -> Texture | None:
    """Decode image bytes (any Pillow format) into a texture; ``None`` when undecodable."""
    if not data:
        return None
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        image = image.convert("RGBA").transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    except Exception:
        return None
    return texture_from_pil(image, flipped=True)


def decoded_texture(data: bytes | None, what: str) -> Texture:
    """:func:`texture_from_bytes`, raising ``ValueError`` naming ``what`` when the bytes do not decode
    (a renderer that raises is reported and its slide or overlay skipped)."""
    texture = texture_from_bytes(data)
    if texture is None:
        raise ValueError(f"{what} is not a decodable image")
    return texture


def texture_from_pil(image: Any, flipped: bool = False) -> Texture:
    from PIL import Image

    image = image.convert("RGBA")
    if not flipped:
        image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    texture = Texture.create(size=image.size, colorfmt="rgba")
    texture.blit_buffer(image.tobytes(), colorfmt="rgba", bufferfmt="ubyte")
    return texture


class ImageFill(Widget):
    """A texture drawn to fit (``contain``) or to fill (``cover``) its box, magnified ``zoom`` times
    about its centre (a slow zoom: :meth:`set_zoom`) and never drawn outside its box: what grows past
    it is cropped through the texture coordinates."""

    def __init__(self, texture: Texture | None, mode: str = "contain", **kwargs: Any):
        super().__init__(**kwargs)
        self.texture = texture
        self.mode = mode
        self.zoom = 1.0
        with self.canvas:
            Color(1, 1, 1, 1)
            self._rect = Rectangle(texture=texture)
        self.bind(pos=self._sync, size=self._sync)
        self._sync()

    def set_texture(self, texture: Texture) -> None:
        if texture is not self.texture:
            self.texture = self._rect.texture = texture
            self._sync()

    def set_zoom(self, zoom: float) -> None:
        if zoom != self.zoom:
            self.zoom = zoom
            self._sync()

    def _sync(self, *_args: Any) -> None:
        if self.texture is None:
            return
        tw, th = self.texture.size
        w, h = self.size
        if tw <= 0 or th <= 0 or w <= 0 or h <= 0:
            return
        scale = (max if self.mode == "cover" else min)(w / tw, h / th) * self.zoom
        dw, dh = tw * scale, th * scale
        x0, y0 = self.x + (w - dw) / 2, self.y + (h - dh) / 2
        # the part inside the box, cropped through texture coordinates so nothing spills outside it
        left, right = max(x0, self.x), min(x0 + dw, self.x + w)
        bottom, top = max(y0, self.y), min(y0 + dh, self.y + h)
        tc = self.texture.tex_coords  # the texture's own corners (a flipped or atlas texture's too)

        def uv(a: float, b: float) -> tuple[float, float]:
            return tc[0] + a * (tc[4] - tc[0]), tc[1] + b * (tc[5] - tc[1])

        a0, a1 = (left - x0) / dw, (right - x0) / dw
        b0, b1 = (bottom - y0) / dh, (top - y0) / dh
        self._rect.tex_coords = (*uv(a0, b0), *uv(a1, b0), *uv(a1, b1), *uv(a0, b1))
        self._rect.pos, self._rect.size = (left, bottom), (right - left, top - bottom)


def video_playback_available() -> bool:
    """Whether Kivy found a real video provider (ffpyplayer here), not its null one."""
    try:
        from kivy.core.video import Video as CoreVideo
    except Exception:
        return False
    return CoreVideo is not None and CoreVideo.__name__ != "VideoNull"


class VideoFill(ImageFill):
    """A video file played into an :class:`ImageFill` (``contain``) through Kivy's core
    video provider. It loops while shown, pauses on its last frame after ``max_seconds``
    and releases the decoder in :meth:`dispose`."""

    def __init__(self, path: str, muted: bool = True, max_seconds: float = 3600.0, **kwargs: Any):
        super().__init__(None, mode="contain", **kwargs)
        from kivy.core.video import Video as CoreVideo

        self.played = 0.0
        self.max_seconds = max_seconds
        self.player = CoreVideo(filename=path, eos="loop")
        self.player.volume = 0.0 if muted else 1.0
        self.player.bind(on_frame=self._on_frame)
        self.player.play()

    def _on_frame(self, *_args: Any) -> None:
        texture = self.player.texture
        if texture is not None:
            self.set_texture(texture)
            self.canvas.ask_update()

    def tick(self, dt: float) -> None:
        if self.player is None:
            return
        self.played += dt
        if self.played >= self.max_seconds and self.player.state == "playing":
            self.player.pause()

    def dispose(self) -> None:
        player, self.player = self.player, None
        if player is not None:
            player.unbind(on_frame=self._on_frame)
            player.stop()
            player.unload()


# -- the text rule ------------------------------------------------------------------------------
# Kivy's Label wraps at spaces but breaks a word longer than its width inside the word, and with
# ``shorten`` or ``max_lines`` it cuts a text where it stops fitting: no library fits a text to a box
# by font size, so the rule is written here, measured with Kivy's own text layout.
FONT_OPTIONS = ("font_name", "bold", "italic", "padding", "outline_width", "line_height", "font_hinting",
                "font_kerning")
"""The options of a label that change how large its text is drawn."""


def tidy(text: str) -> str:
    """``text`` with runs of spaces and tabs made one space and each line stripped (a double space
    copied from a form is never drawn), its line breaks kept."""
    return "\n".join(" ".join(line.split()) for line in str(text).splitlines()).strip("\n")


def text_extent(options: dict, text: str, font_size: float, width: float | None = None) -> tuple[float, float, int]:
    """``text`` laid out by Kivy at ``font_size`` px (wrapped ``width`` wide when given, else on its
    own lines): its width, height and number of lines. Remembered (a column fits its items by
    trying sizes, the same texts many times)."""
    key = tuple(sorted((name, tuple(value) if isinstance(value, (list, tuple)) else value)
                       for name, value in options.items()))  # Kivy's padding is an ObservableList
    return _extent(key, text, float(font_size), None if width is None else float(width))


@functools.lru_cache(maxsize=4096)
def _extent(options: tuple, text: str, font_size: float, width: float | None) -> tuple[float, float, int]:
    from kivy.core.text import Label as CoreLabel

    core = CoreLabel(text=text, font_size=font_size, text_size=(width, None), **dict(options))
    w, h = core.render()
    return w, h, len(core._cached_lines)  # noqa: SLF001  Kivy keeps the laid-out lines there only


def fit_text(text: str, width: float, height: float | None, nominal: float, minimum: float, options: dict,
             max_lines: int | None = None) -> tuple[float, bool]:
    """The text rule: the largest whole font size from ``nominal`` down to ``minimum`` at which
    ``text`` wraps at word boundaries only (its longest word fits ``width``) into at most
    ``max_lines`` lines (any number when None; 1: never wrapped) within ``height`` (unbounded when
    None). Returns ``(size, True)``, or ``(minimum, False)`` when even the minimum does not fit: the
    caller then shows fewer items or scrolls, never cuts the text."""
    words = {word for word in text.split() if word}
    minimum = min(nominal, minimum)
    if not words or width <= 1:
        return nominal, True
    # the widest words at the nominal size stand for all: glyph widths scale with the size (three,
    # as hinting rounds each size a little differently)
    widest = sorted(words, key=lambda word: -text_extent(options, word, nominal)[0])[:3]

    def fits(size: float) -> bool:
        if max_lines == 1:
            w, h, _lines = text_extent(options, text, size)
            return w <= width and (height is None or h <= height)
        if any(text_extent(options, word, size)[0] > width for word in widest):
            return False
        _w, h, lines = text_extent(options, text, size, width)
        return (height is None or h <= height) and (max_lines is None or lines <= max_lines)

    top, bottom = int(math.floor(nominal)), int(math.ceil(minimum))
    if fits(nominal):
        return nominal, True
    if bottom > top or not fits(bottom):
        return minimum, False
    while top - bottom > 1:  # bottom fits, top does not
        middle = (top + bottom) // 2
        top, bottom = (top, middle) if fits(middle) else (middle, bottom)
    return float(bottom), True


def screen_short_side() -> float | None:
    """The short side of the window the canvas draws in (the screen), None before one exists."""
    from kivy.core.window import Window

    return float(min(Window.size)) if Window is not None and min(Window.size) > 1 else None


def minimum_px(context: RenderContext, step: str) -> float:
    """The least a label of the type scale's ``step`` may shrink to on this screen
    (:data:`hookspecs.render.TYPE_MIN`, scaled with the screen's short side)."""
    return context.min_px(step, screen_short_side())


class TextBox(Label):
    """A text that follows the text rule in its box: wrapped at word boundaries only, at its nominal
    ``font_size`` when that fits the box, else at the largest size down to ``minimum`` px that does
    (:func:`fit_text`); ``max_lines`` 1 keeps it on one line. ``fits`` says whether it fits at all
    (false: even the minimum overflows, the renderer shows fewer items or scrolls). It is never cut,
    shortened or broken inside a word, and its spaces are tidied (:func:`tidy`).

    ``grow`` (the default) fits the height of the box; with ``grow=False`` the label is as tall as
    its wrapped text (its ``height`` follows) and only the longest word limits its size: a line of a
    :class:`Column`, which leaves out what does not fit."""

    def __init__(self, minimum: float | None = None, max_lines: int | None = None, fit_height: bool = True,
                 **kwargs: Any):
        kwargs.setdefault("markup", False)
        kwargs["shorten"] = False
        kwargs["text"] = tidy(kwargs.get("text", ""))
        self.max_lines_fit, self.fit_height = max_lines, fit_height
        self.fits = True
        self._fitting = False
        super().__init__(**kwargs)
        self.nominal = float(self.font_size)
        self.minimum = float(minimum) if minimum is not None else min(self.nominal, default_minimum())
        self.bind(size=self.fit, text=self._retext)
        if not fit_height:
            self.bind(texture_size=lambda w, size: setattr(w, "height", size[1]))
        self.fit()

    def _retext(self, *_args: Any) -> None:
        tidied = tidy(self.text)
        if tidied != self.text:
            self.text = tidied  # fires again
            return
        self.fit()

    def options(self) -> dict:
        return {name: getattr(self, name) for name in FONT_OPTIONS}

    def fitted(self, width: float, height: float | None) -> tuple[float, bool]:
        return fit_text(self.text, width, height, self.nominal, self.minimum, self.options(), self.max_lines_fit)

    def fit(self, *_args: Any) -> None:
        if self._fitting or getattr(self, "managed", False) or self.width <= 1 or \
                (self.fit_height and self.height <= 1):
            return
        self._fitting = True
        try:
            size, self.fits = self.fitted(self.width, self.height if self.fit_height else None)
            self.text_size = (self.width, None)
            self.font_size = size
        finally:
            self._fitting = False

    def restyle(self, nominal: float, minimum: float | None = None) -> None:
        """A new nominal size (and minimum), fitted again."""
        self.nominal = float(nominal)
        if minimum is not None:
            self.minimum = float(minimum)
        self.fit()


SCROLL_EMS = 3.5
"""How fast a scrolling text moves: its font size this many times a second (about seven characters
a second, whatever its size; the ticker's 150 px a second at 1080 lines moves its text about as fast)."""
SCROLL_PAUSE = 2.0
"""Seconds a scrolling text rests at its start and at its end before it moves on."""
MAX_SCROLL_STEP = 5.0
"""A frame gap longer than this (a stall) moves a scrolling text only this far, as the ticker."""


class Scrolling:
    """The frame-time course of a text that scrolls (:class:`ScrollBox` along its line,
    :class:`ScrollText` up through its box): it rests :data:`SCROLL_PAUSE` s at its start, moves at
    ``speed()`` px a second until its end is in the box (``travel()`` px), rests again and starts over;
    ``offset`` is how far it has moved, ``passes`` how often it was read through."""

    scrolls: bool
    offset: float
    rest: float
    at_end: bool
    passes: int

    def __init__(self, **kwargs: Any):
        self.scrolls, self.offset, self.rest, self.at_end = False, 0.0, SCROLL_PAUSE, False
        self.passes, self._scrolled = 0, None  # times it was scrolled to its end; the text it scrolls
        super().__init__(**kwargs)  # the TextBox
        with self.canvas:  # type: ignore[attr-defined]
            Color(1, 1, 1, 1)
            self._drawn = Rectangle()
        self.bind(texture=self._draw, texture_size=self._draw, pos=self._draw, size=self._draw)  # type: ignore[attr-defined]
        self._draw()

    def _follow(self, scrolls: bool) -> None:
        """After a fit: a new text, or one that starts or stops scrolling, starts from its start."""
        if (scrolls, self.text) != (self.scrolls, self._scrolled):  # type: ignore[attr-defined]
            self.scrolls, self.offset, self.rest, self.at_end, self.passes = scrolls, 0.0, SCROLL_PAUSE, False, 0
            self._scrolled = self.text  # type: ignore[attr-defined]
        self._draw()

    def visible_part(self, width: float, height: float) -> tuple[float, float, float, float] | None:
        """The part of the texture drawn in a window ``width`` x ``height``, as fractions
        ``(left, right, bottom, top)``; None: the whole texture."""
        raise NotImplementedError

    def _draw(self, *_args: Any) -> None:
        drawn = getattr(self, "_drawn", None)
        if drawn is None:
            return
        texture = self.texture  # type: ignore[attr-defined]
        drawn.texture = texture  # its texture coordinates: the whole texture's
        if texture is None:
            drawn.size = (0, 0)
            return
        x, y, width, height = self.window()  # type: ignore[attr-defined]
        drawn.pos, drawn.size = (x, y), (width, height)
        part = self.visible_part(width, height)
        if part is not None:
            tc = texture.tex_coords
            a0, a1, b0, b1 = part

            def uv(a: float, b: float) -> tuple[float, float]:
                return tc[0] + a * (tc[4] - tc[0]), tc[1] + b * (tc[5] - tc[1])

            drawn.tex_coords = (*uv(a0, b0), *uv(a1, b0), *uv(a1, b1), *uv(a0, b1))

    def speed(self) -> float:
        """Px a second: :data:`SCROLL_EMS` times its font size (about seven characters a second)."""
        return SCROLL_EMS * float(self.font_size)  # type: ignore[attr-defined]

    def tick(self, dt: float) -> None:
        travel = self.travel()  # type: ignore[attr-defined]
        if travel <= 0:
            return
        dt = min(max(0.0, dt), MAX_SCROLL_STEP)
        if self.rest > 0:
            self.rest -= dt
            if self.rest > 0:
                return
            dt, self.rest = -self.rest, 0.0
            if self.at_end:  # rested at its end: back to its start, resting there first
                self.offset, self.at_end, self.rest = 0.0, False, SCROLL_PAUSE
                self.passes += 1
                self._draw()  # type: ignore[attr-defined]
                return
        speed = self.speed()
        self.offset = min(travel, self.offset + speed * dt)
        if self.offset >= travel:
            self.at_end, self.rest = True, SCROLL_PAUSE
        self._draw()  # type: ignore[attr-defined]


class ScrollBox(Scrolling, TextBox):
    """A :class:`TextBox` that scrolls what does not fit (the text rule's last step for a one-line
    message: a celebration, an alert's title, a slide's title). Fitted as a ``TextBox`` (wrapped at
    words into at most ``max_lines`` lines, shrunk down to ``minimum``); when even that does not fit,
    the whole text is laid out on one line, as large as the box's height holds (at most its nominal
    size, at least its minimum), and scrolls through the box on frame time: it rests
    :data:`SCROLL_PAUSE` s at its start, moves :data:`SCROLL_EMS` times its font size a second until its end is in
    the box, rests again and starts over (``tick(dt)``; its owner animates it). ``text`` stays the
    whole message: nothing is cut, shortened or ended with an ellipsis.

    Drawn by itself (the kv rule ``<-ScrollBox>`` drops the Label's rectangle): the texture's window
    ``offset`` px from its left edge, the box wide, through the texture coordinates (no stencil or
    scissor, which an FBO the compositor draws into would not follow). ``scrolls`` says whether it
    scrolls; ``window()`` is the part of the text drawn (its own coordinates)."""

    def fit(self, *_args: Any) -> None:
        if self._fitting or getattr(self, "managed", False) or self.width <= 1 or \
                (self.fit_height and self.height <= 1):
            return
        super().fit()
        scrolls = not self.fits and bool(self.text)
        if scrolls:
            self._fitting = True
            try:  # one line, as large as the box's height holds: only its height limits it
                self.font_size = fit_text(self.text, 1e9, self.height if self.fit_height else None, self.nominal,
                                          self.minimum, self.options(), 1)[0]
                self.text_size = (None, None)
            finally:
                self._fitting = False
        self._follow(scrolls)

    def travel(self) -> float:
        """How far the text moves from its start to its end (0 when it fits)."""
        return max(0.0, float(self.texture_size[0]) - float(self.width)) if self.scrolls else 0.0

    def window(self) -> tuple[float, float, float, float]:
        """Where its text is drawn, ``(x, y, width, height)`` in its parent's coordinates."""
        tw, th = self.texture_size
        if self.scrolls and tw > self.width:
            return self.x, float(int(self.center_y - th / 2.0)), float(self.width), float(th)
        return float(int(self.center_x - tw / 2.0)), float(int(self.center_y - th / 2.0)), float(tw), float(th)

    def visible_part(self, width: float, height: float) -> tuple[float, float, float, float] | None:
        tw = float(self.texture_size[0])
        if width < tw and tw > 0:  # the window of the texture from ``offset``
            return self.offset / tw, (self.offset + width) / tw, 0.0, 1.0
        return None


class BounceBox(ScrollBox):
    """A :class:`ScrollBox` of one line whose text, when it fits, is drawn only as wide as itself
    (not the box's width) so it can move within its box: the bouncing message."""

    def fit(self, *_args: Any) -> None:
        super().fit()
        if not self.scrolls and self.width > 1 and not self._fitting:
            self._fitting = True
            try:
                self.text_size = (None, None)
            finally:
                self._fitting = False
            self._draw()


class ScrollText(Scrolling, TextBox):
    """A :class:`TextBox` of many lines that scrolls up through its box what does not fit (the text
    rule's last step for a text that has a box of its own: an alert card's body). Wrapped at words
    and shrunk down to ``minimum`` as a ``TextBox``; when even the minimum does not fit the box's
    height, the whole text, wrapped at its minimum, moves up through the box on frame time: it rests
    :data:`SCROLL_PAUSE` s with its first line at the top, moves at the pace a :class:`ScrollBox`
    reads at (as many characters a second: its line height times :data:`SCROLL_EMS` font sizes over
    its width, a second), rests with its last line at the bottom and starts over (``tick(dt)``; its
    owner animates it). ``text`` stays the whole text: nothing is cut, shortened or drawn outside its
    box. A text that fits is drawn at the top of its box (``anchor="top"``) or in its middle.

    Drawn by itself (the kv rule ``<-ScrollText>``): the texture's window ``offset`` px from its top,
    the box high, through the texture coordinates (as :class:`ScrollBox`). ``window()`` is the part
    drawn (its parent's coordinates)."""

    def __init__(self, anchor: str = "top", **kwargs: Any):
        self.anchor = anchor
        super().__init__(**kwargs)

    def fit(self, *_args: Any) -> None:
        if self._fitting or getattr(self, "managed", False) or self.width <= 1 or self.height <= 1:
            return
        super().fit()  # wrapped at words, as large as fits, else at its minimum (``fits`` false)
        self._follow(not self.fits and bool(self.text))

    def travel(self) -> float:
        """How far the text moves up from its start to its end (0 when it fits)."""
        return max(0.0, float(self.texture_size[1]) - float(self.height)) if self.scrolls else 0.0

    def speed(self) -> float:
        """A :class:`ScrollBox`'s reading pace in lines: its line height times :data:`SCROLL_EMS` font
        sizes over the width of a line, a second."""
        lines = max(1, text_extent(self.options(), self.text, float(self.font_size), float(self.width))[2])
        line_height = float(self.texture_size[1]) / lines
        return SCROLL_EMS * float(self.font_size) * line_height / max(1.0, float(self.width))

    def window(self) -> tuple[float, float, float, float]:
        """Where its text is drawn, ``(x, y, width, height)`` in its parent's coordinates."""
        tw, th = (float(v) for v in self.texture_size)
        x = float(int(self.center_x - tw / 2.0))
        if self.scrolls and th > self.height:
            return x, float(self.y), tw, float(self.height)
        y = self.top - th if self.anchor == "top" else self.center_y - th / 2.0
        return x, float(int(y)), tw, th

    def visible_part(self, width: float, height: float) -> tuple[float, float, float, float] | None:
        th = float(self.texture_size[1])
        if height < th and th > 0:  # the window of the texture from ``offset`` below its top
            return 0.0, 1.0, 1.0 - (self.offset + height) / th, 1.0 - self.offset / th
        return None


from kivy.lang import Builder  # noqa: E402  the rule names the class defined above

Builder.load_string("<-ScrollBox>:\n<-BounceBox>:\n<-ScrollText>:\n")  # its own drawing only (no Label rectangle)


def scroll_box(context: RenderContext, text: str, step: str, color: RGBA, bold: bool = False,
               halign: str = "center", max_lines: int | None = 1, nominal: float | None = None,
               minimum: float | None = None, **kwargs: Any) -> ScrollBox:
    """A :class:`ScrollBox` of the type scale's ``step`` (or ``nominal`` px), shrinking down to the
    step's minimum on this screen (or ``minimum``) and scrolling on one line below it."""
    return ScrollBox(minimum=minimum_px(context, step) if minimum is None else minimum, max_lines=max_lines,
                     text=text, font_size=context.type_px(step) if nominal is None else nominal, color=color,
                     bold=bold, halign=halign, valign="middle", **kwargs)


class SameSize:
    """Labels (:class:`TextBox`) that share one font size, the text rule for a grid (a calendar's
    cells): the largest size at which every one of them fits its own box, down to their minimum,
    so no cell is drawn larger than its neighbours. When even the minimum does not fit one of them,
    ``shorter`` (``label -> str | None``) gives each label its shorter text, once (a weekday's
    initial for its name): the grid's way of degrading. Refitted after any of them is."""

    def __init__(self, labels: Sequence[TextBox], shorter: Callable[[TextBox], str | None] | None = None):
        self.labels, self.shorter, self.shortened = [lb for lb in labels if lb.text], shorter, False
        self._again = Clock.create_trigger(self.equalize, -1)
        for widget in self.labels:
            widget.bind(font_size=self._later, size=self._later)

    def _later(self, *_args: Any) -> None:
        if not getattr(self, "_busy", False):
            self._again()

    def equalize(self, *_args: Any) -> None:
        sized = [lb for lb in self.labels if lb.width > 1 and lb.height > 1]
        if not sized:
            return
        fitted = [lb.fitted(lb.width, lb.height) for lb in sized]
        if not all(ok for _size, ok in fitted) and self.shorter is not None and not self.shortened:
            self.shortened = True
            for widget in sized:
                text = self.shorter(widget)
                if text:
                    widget.text = text  # refits: equalized again
            return
        size = min(size for size, _ok in fitted)
        self._busy = True
        try:
            for widget in sized:
                widget.font_size = size
        finally:
            self._busy = False


def default_minimum() -> float:
    """The minimum of a label made without one: the type scale's caption on this screen."""
    from hookspecs.render import TYPE_MIN

    short = screen_short_side() or 1080.0
    return TYPE_MIN["caption"] * short / 1080.0


def label(text: str, font_size: float, color: RGBA, bold: bool = False, halign: str = "left",
          valign: str = "middle", minimum: float | None = None, **kwargs: Any) -> TextBox:
    """A :class:`TextBox`: ``text`` wrapped at words in its box, at ``font_size`` px or as large as
    fits down to ``minimum`` (the caption's minimum by default).

    The texture is only as tall as the text (``text_size=(width, None)``): a box-sized,
    mostly transparent texture would cost a full blend of the box on llvmpipe every
    frame. ``valign="top"`` keeps the text at the top of its box (as tall as its text, it then
    follows only its width); otherwise it is centred and fitted to the box's height too.
    """
    top = valign == "top"
    widget = TextBox(minimum=minimum, fit_height=not top, text=text, font_size=font_size, color=color, bold=bold,
                     halign=halign, valign="middle", **kwargs)
    if top:  # as tall as its text, anchored by its pos_hint "top": the text starts at the top
        widget.size_hint_y = None
    return widget


class FitLabel(ScrollBox):
    """One line of text at its nominal ``font_size`` when it fits its box, else at the largest size
    at which it fits the box's width and height (never wrapped, cut or shortened), down to its
    ``minimum``: a headline in a box that can be narrow (a slide laid out in the free area beside
    corner overlays, a portrait screen), where a fixed size would wrap onto what lies below.
    :func:`fit_label` makes one. When even the minimum does not fit (``fits`` false), it is a
    :class:`ScrollBox`'s last step: the whole text on one line, as large as the box's height holds,
    scrolling through its box on frame time (its owner ticks it), never drawn outside its box.

    No jitter for text that changes while shown (a clock's, every second): when the box changes
    size the font is fitted to the widest of the text and ``samples`` (the texts it is going to
    show, e.g. a time format's widest times), and while the box keeps its size it only ever shrinks
    (a text wider than every sample), never grows back, so a narrower text never resizes it. A text
    that changes while it scrolls (the next second) keeps its place in the scroll."""

    def __init__(self, samples: Sequence[str] = (), **kwargs: Any):
        self.samples = [text for text in samples if text]
        self.fitted_for: tuple[float, float] | None = None  # the box size the font was fitted to
        super().__init__(max_lines=1, **kwargs)

    def extent(self, text: str, font_size: float) -> tuple[float, float]:
        """``text`` on one line at ``font_size`` px: its width and height, padding included."""
        return text_extent(self.options(), text, font_size)[:2]

    def fitted_all(self, texts: Sequence[str], font_size: float) -> tuple[float, bool]:
        """The largest size up to ``font_size`` (down to the minimum) at which every one of ``texts``
        fits the box on one line; whether they fit at all."""
        sizes = [fit_text(text, self.width, self.height, font_size, self.minimum, self.options(), 1)
                 for text in texts if text]
        return (min(size for size, _ok in sizes), all(ok for _size, ok in sizes)) if sizes else (font_size, True)

    def fit(self, *_args: Any) -> None:
        box = (self.width, self.height)
        if box[0] <= 1 or box[1] <= 1 or self._fitting:
            return
        self._fitting = True
        try:
            if box != self.fitted_for:  # a new box: from the nominal size, for every text it is going to show
                self.fitted_for = box
                self.font_size, self.fits = self.fitted_all([self.text, *self.samples], self.nominal)
            elif self.text:  # the same box, a new text: shrink only if it does not fit
                self.font_size, self.fits = self.fitted_all([self.text], min(self.nominal, self.font_size))
            scrolls = bool(self.text) and self.extent(self.text, self.font_size)[0] > box[0]
            if scrolls:  # even the minimum does not fit: one line as large as the box's height holds, scrolled
                self.font_size = fit_text(self.text, 1e9, box[1], self.nominal, self.minimum, self.options(), 1)[0]
            # one line: aligned by halign in its box when it fits, else its whole width (drawn in a window)
            self.text_size = (None, None) if scrolls else (box[0], None)
        finally:
            self._fitting = False
        # a new text starts from its start, unless it is the next value of the same line (samples: a clock)
        if scrolls != self.scrolls or (self.text != self._scrolled and not self.samples):
            self.scrolls, self.offset, self.rest, self.at_end, self.passes = scrolls, 0.0, SCROLL_PAUSE, False, 0
        self._scrolled = self.text
        self._draw()


def fit_label(text: str, font_size: float, color: RGBA, bold: bool = False, halign: str = "center",
              samples: Sequence[str] = (), minimum: float | None = None, **kwargs: Any) -> FitLabel:
    """A :class:`FitLabel`: ``text`` on one line in its box, at ``font_size`` px (its nominal size)
    unless that does not fit, down to ``minimum``, sized for ``samples`` too (the texts it will show
    after this one)."""
    return FitLabel(samples, minimum=minimum, text=text, font_size=font_size, color=color, bold=bold,
                    halign=halign, valign="middle", **kwargs)


def text_box(context: RenderContext, text: str, step: str, color: RGBA, bold: bool = False,
             halign: str = "center", max_lines: int | None = None, **kwargs: Any) -> TextBox:
    """The text rule for a label of the type scale's ``step``: a :class:`TextBox` at the step's
    size that shrinks down to the step's minimum on this screen (:func:`minimum_px`); with
    ``max_lines`` 1 a :class:`FitLabel` (below its minimum it scrolls: its owner animates it)."""
    if max_lines == 1:
        return fit_label(text, context.type_px(step), color, bold=bold, halign=halign,
                         minimum=minimum_px(context, step), **kwargs)
    return TextBox(minimum=minimum_px(context, step), max_lines=max_lines, text=text, font_size=context.type_px(step),
                   color=color, bold=bold, halign=halign, valign="middle", **kwargs)


class Slide(RelativeLayout):
    """A slide or overlay root: children and canvas use coordinates relative to its corner.

    ``tick(dt)`` forwards to the helpers registered with :meth:`animate`.
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.animated: list[Any] = []
        self.disposers: list[Any] = []

    def animate(self, widget: Any) -> Any:
        self.animated.append(widget)
        return widget

    def on_dispose(self, callback: Any) -> None:
        """Run ``callback`` when its layer removes this slide or overlay."""
        self.disposers.append(callback)

    def dispose(self) -> None:
        callbacks, self.disposers = self.disposers, []
        for callback in callbacks:
            callback()

    def tick(self, dt: float) -> None:
        for widget in self.animated:
            widget.tick(dt)


def themed_slide(context: RenderContext, background: Sequence[RGBA] | None = None) -> Slide:
    """A slide root on its background (the theme's gradient, or ``background``). The backdrop it
    adds is ``slide.background`` (its colours ``slide.background.colors``): the slides layer lifts it
    out and hands it to the compositor, which paints it beneath the decoration layer, so effects fall
    behind the slide's content (docs/display.md, "Composition: the rule"). The theme's gradient is
    the part of the compositor's own behind the slide (:class:`Backdrop` ``screen``): no seam where
    they meet."""
    slide = Slide()
    backdrop = Backdrop(list(background or context.theme.background), screen=background is None,
                        size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    slide.add_widget(backdrop)
    slide.background = backdrop
    return slide


class Drawing(Widget):
    """Canvas instructions made from the widget's own box: ``draw(widget)`` runs inside ``with
    widget.canvas`` (its ``x``, ``y``, ``width``, ``height`` are where to draw) and runs again, on a
    cleared canvas, whenever the box moves or changes size. Pixel geometry drawn in one (a clock
    face, a mark) follows the area a layout gives it, as labels with size hints do, rather than
    the size its renderer was built at (``context.size``): a slide laid out in the free area left
    by overlays, a panel whose zone changed."""

    def __init__(self, draw: Callable[["Drawing"], None], **kwargs: Any):
        super().__init__(**kwargs)
        self.draw = draw
        self.bind(pos=self.redraw, size=self.redraw)
        self.redraw()

    def redraw(self, *_args: Any) -> None:
        self.canvas.clear()
        with self.canvas:
            self.draw(self)


def box_hints(box: Sequence[float]) -> dict[str, Any]:
    """``size_hint`` and ``pos_hint`` of ``box`` (``[x, y, width, height]``, fractions from the top left)."""
    x, y, width, height = box
    return {"size_hint": (width, height), "pos_hint": {"x": x, "top": 1 - y}}


def add_title(context: RenderContext, slide: Widget, title: str, accent: RGBA | None = None,
              color: RGBA | None = None, halign: str = "left", box: Sequence[float] = TITLE_BOX,
              size: float | None = None) -> Label:
    """The title of the builtin slides: a bold label (``role = "title"``, the type scale's ``title``
    unless ``size`` px) in ``box`` with an accent bar at its left. Returns the label."""
    x, y, width, height = box
    if halign == "center":  # a centred title: its accent a short bar centred under it
        slide.add_widget(Backdrop([accent or context.theme.accents[0]], size_hint=(0.12, 0.008),
                                  pos_hint={"center_x": x + width / 2, "top": 1 - y - height - 0.006}))
    else:  # beside its first letter
        slide.add_widget(Backdrop([accent or context.theme.accents[0]], size_hint=(0.012, height),
                                  pos_hint={"x": max(0.0, x - 0.03), "top": 1 - y}))
    widget = ScrollBox(minimum=minimum_px(context, "title"), text=title,
                       font_size=context.font(size) if size else context.type_px("title"),
                       color=color or context.theme.text, bold=True, halign=halign, valign="middle", **box_hints(box))
    widget.role = ROLE_TITLE  # wrapped at words in its band, shrunk to the title's minimum, else scrolled
    slide.add_widget(widget)
    if hasattr(slide, "animate"):
        slide.animate(widget)
    return widget


def register_symbols() -> str:
    """Registers :data:`svc_host.display.kit.SYMBOLS_FONT` with Kivy (once); returns its name."""
    from kivy.core.text import LabelBase

    if SYMBOLS_FONT_NAME not in LabelBase._fonts:  # noqa: SLF001  Kivy keeps no other registry
        LabelBase.register(SYMBOLS_FONT_NAME, str(SYMBOLS_FONT))
    return SYMBOLS_FONT_NAME


def icon(name: str, font_size: float, color: RGBA, **kwargs: Any) -> Label:
    """The Material Symbols icon ``name`` (``sunny``, ``check_circle``...) as a label in the shipped
    font (``icon_name`` remembers which); raises ``KeyError`` for an unknown name."""
    widget = Label(text=icon_text(name), font_name=register_symbols(), font_size=font_size, color=color,
                   halign="center", valign="middle", **kwargs)
    widget.icon_name = name
    return widget


class Entry(Widget):
    """One item of a :class:`Column`: ``lines`` (labels, stacked as tall as their text), an optional
    ``marker`` (an icon) at their left and an optional ``highlight`` colour filled behind it. Its
    lines follow the text rule at the column's ``scale`` of their nominal sizes: wrapped at words,
    each as large as its longest word allows, never below its minimum (:class:`TextBox`)."""

    def __init__(self, lines: Sequence[Label], marker: Label | None = None, highlight: RGBA | None = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.lines, self.marker = list(lines), marker
        self.main = self.lines[0] if self.lines else None  # the line the marker stands beside
        self.fill = self.frame = self.frame_color = None
        self.scale = 1.0
        for line in self.lines:
            line.managed = True  # sized by its column (:meth:`measure`), not by its own box
            line.nominal = float(getattr(line, "nominal", line.font_size))
            line.minimum = float(getattr(line, "minimum", min(line.nominal, default_minimum())))
        if marker is not None:
            marker.nominal = float(marker.font_size)
        if highlight is not None:
            with self.canvas.before:
                Color(*highlight)
                self.fill = Rectangle()
        for widget in ([marker] if marker is not None else []) + self.lines:
            self.add_widget(widget)

    def least_scale(self) -> float:
        """The scale at which every line is at its minimum."""
        return max((line.minimum / line.nominal for line in self.lines if line.nominal), default=1.0)

    def _sizes(self, width: float, scale: float, texts: Sequence[str] | None = None
               ) -> tuple[float, float, list[tuple[float, bool]]]:
        """Its indent, padding and each line's ``(font size, fits)`` at ``scale``, ``width`` wide
        (with ``texts`` instead of its lines' texts when given)."""
        texts = texts or [line.text for line in self.lines]
        indent = self.marker.nominal * scale * 1.35 if self.marker is not None else 0.0
        pad = max((line.nominal * scale for line in self.lines), default=0.0) * (0.3 if self.fill is not None else 0.0)
        room = max(1.0, width - indent - 2 * pad)
        sizes = [fit_text(text, room, None, max(line.minimum, line.nominal * scale), line.minimum,
                          {name: getattr(line, name) for name in FONT_OPTIONS}) for line, text in zip(self.lines, texts)]
        return indent, pad, sizes

    def height_at(self, width: float, scale: float, texts: Sequence[str] | None = None) -> float:
        """How tall it is ``width`` wide at ``scale`` (laid out, not drawn), with ``texts`` instead of
        its lines' texts when given."""
        texts = texts or [line.text for line in self.lines]
        _indent, pad, sizes = self._sizes(width, scale, texts)
        room = max(1.0, width - _indent - 2 * pad)
        height = 0.0
        for i, (line, text, (size, _ok)) in enumerate(zip(self.lines, texts, sizes)):
            options = {name: getattr(line, name) for name in FONT_OPTIONS}
            height += text_extent(options, text, size, room)[1] + (size * 0.12 if i else 0.0)
        return height + 2 * pad

    def fits(self) -> bool:
        """Whether every line's longest word fits at its size (false: at its minimum it does not)."""
        return all(getattr(line, "fits", True) for line in self.lines)

    def pad(self) -> float:
        return max((line.font_size for line in self.lines), default=0.0) * (0.3 if self.fill is not None else 0.0)

    def measure(self, width: float, scale: float | None = None) -> float:
        """Lays its lines out ``width`` wide at ``scale`` (the last one when None); returns its height."""
        self.scale = self.scale if scale is None else scale
        indent, pad, sizes = self._sizes(width, self.scale)
        if self.marker is not None:
            self.marker.font_size = self.marker.nominal * self.scale
        height = 0.0
        for i, (line, (size, ok)) in enumerate(zip(self.lines, sizes)):
            line.size_hint = (None, None)
            line.font_size, line.fits = size, ok
            line.width = max(1.0, width - indent - 2 * pad)
            line.text_size = (line.width, None)
            line.texture_update()
            line.height = line.texture_size[1]
            height += line.height + (line.font_size * 0.12 if i else 0.0)
        self._indent = indent
        return height + 2 * pad

    def place(self, x: float, top: float, width: float, height: float) -> None:
        self.pos, self.size = (x, top - height), (width, height)
        pad = self.pad()
        y = top - pad
        for i, line in enumerate(self.lines):
            y -= line.font_size * 0.12 if i else 0.0
            line.pos = (x + self._indent + pad, y - line.height)
            y -= line.height
        if self.marker is not None:
            first = self.main
            self.marker.size_hint = (None, None)
            self.marker.size = (self.marker.font_size * 1.2, self.marker.font_size * 1.2)
            centre = first.center_y if first is not None else top - height / 2
            self.marker.pos = (x + pad, centre - self.marker.height / 2)
        if self.fill is not None:
            self.fill.pos, self.fill.size = (x - pad * 0.5, top - height), (width + pad, height)
        if self.frame is not None:
            grow = self.lines[0].font_size * 0.2 if self.lines else 0.0
            self.frame.rectangle = (x - grow, top - height - grow, width + 2 * grow, height + 2 * grow)

    def outline(self, color: RGBA) -> None:
        """A frame of ``color`` around the entry (a marked answer: more than a colour change)."""
        if self.frame is None:
            with self.canvas.before:
                self.frame_color = Color(*color)
                self.frame = Line(width=max(2.0, (self.lines[0].font_size if self.lines else 40) * 0.06))
        self.frame_color.rgba = color
        self.place(self.x, self.y + self.height, self.width, self.height)


def shortened(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` ended early, at the end of a sentence (else of a word) followed by an ellipsis, so that
    ``fits`` holds: its start is always shown, never a cut inside a word. ``text`` when it fits."""
    if fits(text):
        return text
    import re

    sentences = [m.end() for m in re.finditer(r"[.!?](?=\s)", text)]
    for end in reversed(sentences):
        if fits(text[:end] + " \u2026"):
            return text[:end] + " \u2026"
    words = text.split(" ")
    for count in range(len(words) - 1, 0, -1):
        candidate = " ".join(words[:count]).rstrip(",;:") + "\u2026"
        if fits(candidate):
            return candidate
    return words[0] + "\u2026"


class Column(Widget):
    """:class:`Entry` items laid out top down over the whole box, following the text rule: the
    items at their nominal sizes when the first fits, else all shrunk together (down to their
    minimums, :data:`hookspecs.render.TYPE_MIN`) until the first one fits; the items that do not fit
    below it at that size are left out (``shown`` counts those drawn: fewer headlines, fewer days).
    A first item that does not fit even at the minimum ends early at a sentence (else a word) with
    an ellipsis, its start always shown. The space left is shared between the items (at most two
    gaps more a gap), the block centred in what remains."""

    def __init__(self, entries: Sequence[Entry], gap: float, keep: int = 1, **kwargs: Any):
        super().__init__(**kwargs)
        self.entries, self.gap, self.shown = list(entries), gap, 0
        self.keep = max(1, min(keep, len(self.entries)))  # the items shrunk until they fit together
        self.scale = 1.0
        for item in self.entries:
            self.add_widget(item)
            for line in item.lines:
                line.bind(text=self._later)
        self._busy = False
        self.bind(pos=self.arrange, size=self.arrange)

    def _later(self, *_args: Any) -> None:
        from kivy.clock import Clock

        if not self._busy:  # not a text the column ended early itself
            Clock.schedule_once(self.arrange, 0)

    def kept_height(self, scale: float, texts: Sequence[str] | None = None) -> float:
        """How tall the first ``keep`` items are together at ``scale`` (the last one's last line
        ``texts`` instead of its own when given)."""
        items = self.entries[:self.keep]
        heights = [item.height_at(self.width, scale) for item in items[:-1]]
        heights.append(items[-1].height_at(self.width, scale, texts))
        return sum(heights) + self.gap * scale * (len(items) - 1)

    def first_scale(self) -> float:
        """The largest scale (1 at most) at which the first ``keep`` items fit the column, else the least."""
        least = max(item.least_scale() for item in self.entries[:self.keep])
        if self.kept_height(1.0) <= self.height:
            return 1.0
        if self.kept_height(least) > self.height:
            return least
        low, high = least, 1.0
        for _ in range(7):  # to within 1 % of the nominal size
            middle = (low + high) / 2
            low, high = (middle, high) if self.kept_height(middle) <= self.height else (low, middle)
        return low

    def arrange(self, *_args: Any) -> None:
        if self._busy or self.width <= 1 or self.height <= 1 or not self.entries:
            return
        self._busy = True
        try:
            first = self.entries[self.keep - 1]  # the item that ends early when even the minimum does not fit
            last = first.lines[-1]
            if getattr(last, "ended", None) not in (None, last.text):  # a new text since it was ended early
                last.whole = None
            if getattr(last, "whole", None):  # ended early for another box: whole again, measured anew
                last.text = last.whole
            scale = self.first_scale()
            if self.kept_height(scale) > self.height:  # even at its minimum: end it early
                texts = [line.text for line in first.lines]
                last.whole = last.text
                last.text = last.ended = shortened(last.text, lambda text: self.kept_height(
                    scale, texts[:-1] + [text]) <= self.height)
            self.scale = scale
            heights = [item.measure(self.width, scale) for item in self.entries]
            kept, used = 0, 0.0
            for height in heights:
                step = height + (self.gap * scale if kept else 0.0)
                if used + step > self.height and kept:
                    break
                used, kept = used + step, kept + 1
            gap = self.gap * scale
            free = self.height - used
            spread = min(free / (kept + 1), gap * 2) if kept else 0.0
            top = self.y + self.height  # not self.top: read in a pos event, Kivy's alias can be stale
            top -= (free - spread * (kept - 1)) / 2 if kept else 0.0
            for i, (item, height) in enumerate(zip(self.entries, heights)):
                item.opacity = 1.0 if i < kept else 0.0
                item.place(self.x, top, self.width, height)
                top -= height + gap + spread
            self.shown = kept
        finally:
            self._busy = False


def entry(context: RenderContext, text: str, color: RGBA | None = None, step: str = "body",
          meta: str = "", meta_color: RGBA | None = None, marker: str | None = None,
          marker_color: RGBA | None = None, highlight: RGBA | None = None, bold: bool = False,
          halign: str = "left", meta_above: bool = False, role: str = "primary") -> Entry:
    """An item of a :class:`Column`: ``text`` at the type scale's ``step`` (``role = "primary"``),
    ``meta`` under it (over it with ``meta_above``) at ``secondary`` (a source and age, a time and
    place), the icon ``marker`` at its left, ``highlight`` filled behind it; ``role`` ``""`` for an
    item that is not the slide's primary text (a note under it)."""
    fg = color or context.theme.text
    main = label(text, context.type_px(step), fg, bold=bold, halign=halign, minimum=minimum_px(context, step))
    main.role = role
    lines = [main]
    if meta:
        note = label(meta, context.type_px("secondary"), meta_color or context.theme.accents[0], halign=halign,
                     minimum=minimum_px(context, "secondary"))
        lines.insert(0 if meta_above else 1, note)
    mark = icon(marker, context.type_px(step), marker_color or fg) if marker else None
    made = Entry(lines, mark, highlight)
    made.main = main
    return made


def body_column(context: RenderContext, slide: Widget, entries: Sequence[Entry],
                box: Sequence[float] = (0.08, 0.27, 0.84, 0.67), keep: int = 1) -> Column:
    """``entries`` in a :class:`Column` over ``box`` (fractions from the top left: by default all the
    slide below the title band) of ``slide``; the first ``keep`` shrink until they fit together."""
    column = Column(entries, gap=context.type_px("body") * 0.45, keep=keep, **box_hints(box))
    slide.add_widget(column)
    return column


def text_slide(context: RenderContext, title: str, lines: Sequence[str], subtitle: str = "",
               accent: RGBA | None = None, body_size: float | None = None, background: Sequence[RGBA] | None = None,
               text_color: RGBA | None = None, halign: str = "left") -> Slide:
    """The common slide: a title band and the body's lines (each its own paragraph, at ``body_size``
    px, never below the type scale's ``body``) spread over the rest of the slide, in theme colours."""
    theme = context.theme
    slide = themed_slide(context, background)
    accent = accent or theme.accents[0]
    fg = text_color or theme.text
    if bool(background) != bool(text_color):  # one colour from the row's config, the other the theme's:
        backdrop = [composite(c, BLACK) for c in (background or theme.background)]  # made to read
        fg = legible(fg, backdrop)  # (a pair the row names in full is the operator's choice)
        accent = legible(accent, backdrop)
    add_title(context, slide, title, accent, fg, halign)
    top = 0.27
    if subtitle:
        slide.add_widget(label(subtitle, context.type_px("secondary"), accent, size_hint=(0.86, 0.08),
                               pos_hint={"x": 0.08, "top": 1 - top}))
        top += 0.09
    size = max(body_size or 0.0, TYPE_SCALE["body"])
    entries = []
    for line in lines:
        if line:
            item = entry(context, line, fg, halign=halign)
            item.main.font_size = item.main.nominal = context.font(size)
            entries.append(item)
    body_column(context, slide, entries, (0.08, top, 0.84, 0.94 - top))
    return slide


class _Batch:
    """The pieces of one colour and texture: one ``Mesh`` of quads (4 vertices ``x, y, u, v`` each)."""

    def __init__(self, mesh: Mesh, tex_coords: Sequence[float]):
        self.mesh, self.tex_coords = mesh, tuple(tex_coords)
        self.vertices: list[float] = []
        self.indices: list[int] = []


class Shapes(Widget):
    """Many moving shapes (rain, confetti, balloons, clouds), the pieces of one colour and texture
    drawn as one ``Mesh`` of textured quads: one draw call and one vertex upload per batch and
    frame, however many pieces (a circle is a disc texture, a line a thin quad). As one instruction
    each, 200 confetti pieces over a full-screen slide cost Mesa's llvmpipe about 2 GB of memory
    in flight and a third of the frame rate. ``place(item)`` after moving an item's ``x``/``y``;
    the batches are uploaded once before the next frame."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.items: list[dict] = []
        self._batches: dict[tuple, _Batch] = {}
        self._dirty: set[_Batch] = set()
        self._disc: Texture | None = None
        self._upload = Clock.create_trigger(self._flush, -1)  # before the next frame

    def add_shape(self, kind: str, color: RGBA, x: float, y: float, w: float, h: float, vx: float, vy: float,
                  spin: float = 0.0, texture: Texture | None = None) -> dict:
        if texture is None and kind == "circle":
            if self._disc is None:
                self._disc = glyph_texture("circle", 128)
            texture = self._disc
        key = (tuple(color), id(texture) if texture is not None else None)
        batch = self._batches.get(key)
        if batch is None:
            with self.canvas:
                Color(*color)
                mesh = Mesh(mode="triangles", texture=texture)
            batch = self._batches[key] = _Batch(mesh, texture.tex_coords if texture is not None
                                                else (0, 0, 1, 0, 1, 1, 0, 1))
        first = len(batch.vertices) // 4
        batch.vertices.extend([0.0] * 16)
        batch.indices.extend(first + i for i in (0, 1, 2, 2, 3, 0))
        batch.mesh.indices = batch.indices
        item = {"kind": kind, "x": x, "y": y, "w": w, "h": h, "vx": vx, "vy": vy, "spin": spin,
                "batch": batch, "slot": first * 4}
        self.items.append(item)
        self.place(item)
        return item

    def place(self, item: dict) -> None:
        x, y, w, h = item["x"], item["y"], item["w"], item["h"]
        if item["kind"] == "line":  # from (x, y) to (x + w, y + h), w / 8 wide
            length = math.hypot(w, h) or 1.0
            half = max(1.0, w / 8) / 2
            nx, ny = -h / length * half, w / length * half
            corners = ((x - nx, y - ny), (x + w - nx, y + h - ny), (x + w + nx, y + h + ny), (x + nx, y + ny))
        else:
            corners = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
        batch, slot, uv = item["batch"], item["slot"], item["batch"].tex_coords
        batch.vertices[slot:slot + 16] = [corners[0][0], corners[0][1], uv[0], uv[1],
                                          corners[1][0], corners[1][1], uv[2], uv[3],
                                          corners[2][0], corners[2][1], uv[4], uv[5],
                                          corners[3][0], corners[3][1], uv[6], uv[7]]
        self._dirty.add(batch)
        self._upload()

    def _flush(self, *_args: Any) -> None:
        dirty, self._dirty = self._dirty, set()
        for batch in dirty:
            batch.mesh.vertices = batch.vertices


def glyph_texture(kind: str, px: int = 64) -> Texture:
    """A white shape (circle, heart, star, snowflake, leaf) on transparency, tinted by the drawing
    Color."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    white = (255, 255, 255, 255)
    c, r = px / 2, px / 2 - 2
    if kind == "circle":
        draw.ellipse((1, 1, px - 2, px - 2), fill=white)
    elif kind == "heart":
        draw.ellipse((2, 6, c + 2, c + 6), fill=white)
        draw.ellipse((c - 2, 6, px - 2, c + 6), fill=white)
        draw.polygon([(4, c - 2), (px - 4, c - 2), (c, px - 2)], fill=white)
    elif kind == "star":
        points = [(c + (r if i % 2 == 0 else r * 0.45) * math.sin(i * math.pi / 5),
                   c - (r if i % 2 == 0 else r * 0.45) * math.cos(i * math.pi / 5)) for i in range(10)]
        draw.polygon(points, fill=white)
    elif kind == "snowflake":
        for i in range(6):
            a = i * math.pi / 3
            end = (c + r * math.cos(a), c + r * math.sin(a))
            draw.line([(c, c), end], fill=white, width=max(2, px // 12))
    else:  # leaf
        draw.ellipse((px * 0.15, 2, px * 0.85, px - 2), fill=white)
        draw.line([(c, px - 2), (c, 6)], fill=(0, 0, 0, 0), width=max(1, px // 20))
    return texture_from_pil(image)


def qr_texture(payload: str, fg: Any = BLACK, bg: Any = WHITE) -> Texture:
    """``payload`` as a QR code (qrcode, error correction M) with a quiet zone of 4 modules, in the
    colours of :func:`hookspecs.contrast.qr_colours` (dark modules on a light ground whatever is
    asked), drawn sharp."""
    import qrcode

    fg, bg = qr_colours(fg, bg)

    def rgb(color: Any) -> tuple[int, int, int]:
        return tuple(int(round(c * 255)) for c in color[:3])  # type: ignore[return-value]

    code = qrcode.QRCode(border=4, box_size=8, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(payload)
    code.make(fit=True)
    image = code.make_image(fill_color=rgb(fg), back_color=rgb(bg)).get_image()
    texture = texture_from_pil(image)
    texture.mag_filter = "nearest"
    return texture


# -- overlay panels -----------------------------------------------------------------------------
def add_backdrop(context: RenderContext, box: Widget) -> None:
    """A fill of the theme's primary background at :data:`hookspecs.contrast.PANEL_ALPHA` behind
    ``box``'s children: the theme's panel text reads on it over any slide."""
    bg = context.theme.primary_bg
    box.add_widget(Backdrop([(bg[0], bg[1], bg[2], PANEL_ALPHA)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))


def panel_backgrounds(theme: Theme) -> list[RGBA]:
    """What an overlay panel's fill can look like: over black and over white."""
    return [composite(theme.primary_bg, under, PANEL_ALPHA) for under in (BLACK, WHITE)]


def on_background(context: RenderContext, color: RGBA) -> RGBA:
    """``color`` (a rising price's green ...) made legible on the theme's slide background."""
    return legible(color, [composite(c, BLACK) for c in context.theme.background])


def on_panel(context: RenderContext, color: RGBA) -> RGBA:
    """``color`` made legible on an overlay panel (:func:`add_backdrop`)."""
    return legible(color, panel_backgrounds(context.theme))


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


# -- moving pieces ------------------------------------------------------------------------------
class Messages:
    """Cycles ``messages`` in a label every ``interval`` seconds (``tick``); a message that scrolls
    (:class:`ScrollBox`) stays until it has been scrolled through once."""

    def __init__(self, label: Any, messages: list[str], interval: float):
        self.label, self.messages, self.interval, self.t, self.i = label, messages, interval, 0.0, 0
        label.text = messages[0] if messages else ""

    def tick(self, dt: float) -> None:
        if len(self.messages) < 2:
            return
        self.t += dt
        if self.t >= self.interval and (not getattr(self.label, "scrolls", False) or self.label.passes > 0):
            self.t = 0.0
            self.i = (self.i + 1) % len(self.messages)
            self.label.text = self.messages[self.i]


def message_label(context: RenderContext, color: RGBA, size: float = 110) -> Label:
    """A large outlined caption in the celebration band (:data:`hookspecs.render.BAND` high at the
    bottom of a full-screen overlay) by the text rule: whole, on one line or two (wrapped at words),
    as large as the band holds down to the body's minimum, and when even that does not fit, on one
    line scrolling through the band (:class:`ScrollBox`); never shortened (a long name in a
    birthday message was cut in its middle, ``Happy birthday,... of us at Aurora``)."""
    font = min(context.font(size), context.size[1] * BAND * 0.62)
    caption = ScrollBox(minimum=min(font, minimum_px(context, "body")), max_lines=2, text="", font_size=font,
                      color=color, bold=True, halign="center", valign="middle", size_hint=(0.96, BAND),
                      pos_hint={"center_x": 0.5, "y": 0}, outline_width=max(1, int(context.font(4))),
                      outline_color=(0, 0, 0, 1))
    caption.role = ROLE_CELEBRATION
    return caption


def with_messages(context: RenderContext, layer: Slide, color: RGBA, size: float = 110,
                  messages: list[str] | None = None, interval: float | None = None) -> Slide:
    """Adds the ``messages`` caption (or ``messages`` given), cycled every ``message_interval_sec``
    (or ``interval``), when there are any."""
    messages = config_strings(context, "messages") if messages is None else messages
    if messages:
        caption = message_label(context, color, size)
        layer.add_widget(caption)
        layer.celebration = caption  # the overlays layer keeps the celebration band free of the slide
        every = config_number(context, "message_interval_sec", 6, 1, 3600) if interval is None else interval
        layer.animate(Messages(caption, messages, every))
        layer.animate(caption)  # scrolls a message too long for two lines at its minimum
    return layer


class Rain:
    """Shapes falling from the top (or rising, ``direction`` 1), wrapping around, swaying a little."""

    def __init__(self, shapes: Shapes, width: float, height: float, direction: float = -1.0,
                 sway: float = 20.0):
        self.shapes, self.width, self.height, self.direction, self.sway, self.t = \
            shapes, width, height, direction, sway, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        w, h = self.width, self.height
        for item in self.shapes.items:
            item["y"] += item["vy"] * dt
            item["x"] += item["vx"] * dt + math.sin(self.t * 2 + item["spin"]) * self.sway * dt
            if self.direction < 0 and item["y"] < -item["h"] * 2:
                item["y"] = h + random.random() * h * 0.1
                item["x"] = random.random() * w
            elif self.direction > 0 and item["y"] > h + item["h"]:
                item["y"] = -item["h"] - random.random() * h * 0.1
                item["x"] = random.random() * w
            if item["x"] < -item["w"] * 2:
                item["x"] = w
            elif item["x"] > w + item["w"]:
                item["x"] = -item["w"]
            self.shapes.place(item)


def rain_layer(context: RenderContext, count: int, colors: list, kinds: list[str], size_px: float,
               speed: float, direction: float = -1.0, drift: float = 0.0) -> Slide:
    """An overlay layer of ``count`` pieces falling (``direction`` -1) or rising (1) at ``speed``
    (tenths of the screen height per second); ``kinds``: ``rect``, ``circle`` or a
    :func:`glyph_texture` shape name; ``size_px`` at 1080 px height."""
    width, height = context.size
    layer = Slide()
    layer.opacity = opacity(context)
    shapes = Shapes(size_hint=(None, None), size=(width, height), pos=(0, 0))
    scale = height / 1080.0
    textures = {k: glyph_texture(k) for k in kinds if k not in ("rect", "circle")}
    for _ in range(count):
        kind = random.choice(kinds)
        s = size_px * scale * random.uniform(0.6, 1.4)
        vy = direction * height * speed / 10.0 * random.uniform(0.7, 1.3)
        shapes.add_shape(kind, random.choice(colors), random.random() * width, random.random() * height,
                         s, s * (1.0 if kind != "rect" else random.uniform(0.4, 1.0)),
                         drift * scale * random.uniform(0.5, 1.5), vy, random.random() * 6.28,
                         textures.get(kind))
    layer.add_widget(shapes)
    layer.animate(Rain(shapes, width, height, direction))
    return layer
