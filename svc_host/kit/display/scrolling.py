"""The text rule's last step (Kivy): a text that does not fit its box even at its minimum scrolls
through it on frame time, whole (:class:`ScrollBox` along one line, :class:`ScrollText` up through
its box, :class:`FitLabel` a one-line headline that shrinks first); :func:`text_box` picks the
label of a type-scale step."""
from __future__ import annotations

from typing import Any, Sequence

from kivy.graphics import Color, Rectangle

from hookspecs.render import RenderContext
from svc_host.kit.display.text import TextBox, fit_text, minimum_px, text_extent

RGBA = tuple[float, float, float, float]


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
