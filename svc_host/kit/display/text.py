"""The text rule (Kivy): a text is wrapped at word boundaries only, drawn at its nominal size when
that fits its box, else shrunk to the largest size that does down to its minimum
(:data:`hookspecs.render.TYPE_MIN`, scaled with the screen), and past that shown in fewer items
(:class:`~svc_host.kit.display.column.Column`) or scrolled (:mod:`svc_host.kit.display.scrolling`);
never cut, shortened or broken inside a word. :func:`fit_text` is the rule, :class:`TextBox` a label
that follows it, :class:`SameSize` a grid of them sharing one size, :func:`fit_message` a
celebration message in its band."""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Sequence

from kivy.clock import Clock
from kivy.uix.label import Label

from hookspecs.render import RenderContext

RGBA = tuple[float, float, float, float]


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


MESSAGE_MIN_PX = 28.0
"""The smallest a celebration message is drawn, px at 1080 lines (the body text's minimum)."""
MESSAGE_LINES = 2
"""The lines a celebration message wraps onto in the celebration band (:func:`message_lines`)."""

MESSAGE_MAX_LINES = 4
"""The most lines a celebration message takes in a box taller than the band: a portrait screen's
footer beside a bottom panel (:func:`svc_host.kit.display.layout.arrange`)."""


def message_lines(height: float, minimum: float) -> int:
    """How many lines a celebration message may wrap onto in a box ``height`` px high: two in the
    celebration band (about two lines and a half of the minimum size at every screen size), more
    (up to :data:`MESSAGE_MAX_LINES`) in a taller box, as many as it holds at ``minimum`` with room
    between them. The one owner of that count."""
    return max(MESSAGE_LINES, min(MESSAGE_MAX_LINES, int(height // (max(1.0, minimum) * 2.5))))


def fit_message(caption: Any, minimum: float) -> None:
    """A celebration message is text and is shown whole: wrapped at word boundaries onto at most
    :func:`message_lines` lines in its box, shrunk (down to ``minimum`` px) until it fits; never cut
    or ellipsized. Fitted again whenever its text changes (the messages cycle). A message that moves
    itself (the bouncing one) keeps its own box and only loses the ellipsis."""
    if not hasattr(caption, "texture_update"):  # a panel (a template's error) lays out its own text
        return
    caption.shorten = False
    if getattr(caption, "moves", False):
        return
    if hasattr(caption, "restyle"):  # the kit's TextBox (message_label): the text rule fits it, at words
        caption.minimum = min(caption.nominal, minimum)
        caption.max_lines_fit = message_lines(caption.height, caption.minimum)
        caption.fit()
        return
    if not hasattr(caption, "nominal_px"):
        caption.nominal_px = float(caption.font_size)
        caption.bind(text=lambda *_args: _fit_message(caption, minimum))
    _fit_message(caption, minimum)


def _fit_message(caption: Any, minimum: float) -> None:
    width, height = caption.size
    if width <= 1 or height <= 1:
        return
    caption.text_size = (width, None)
    caption.halign, caption.valign = "center", "middle"
    size, most = max(minimum, caption.nominal_px), message_lines(height, minimum)
    while True:
        caption.font_size = size
        caption.texture_update()
        lines = len(getattr(caption._label, "_cached_lines", None) or [None])
        if (caption.texture_size[1] <= height and lines <= most) or size <= minimum:
            break
        size = max(minimum, size * 0.92)
    caption.text_size = (width, height)
