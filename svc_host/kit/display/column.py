"""The body of a slide (Kivy): a :class:`Column` of :class:`Entry` items (a line or a few, an
optional icon at their left, an optional highlight) spread over the height it is given, items that do
not fit left out rather than shrunk; :func:`entry` makes one, :func:`body_column` places a column,
:func:`text_slide` is the common slide (a title band and its lines)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kivy.graphics import Color, Line, Rectangle
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from svc_host.kit.contrast import BLACK, composite, legible
from hookspecs.render import ROLE_MORE, RenderContext
from svc_host.kit.display.icons import icon
from svc_host.kit.display.slide import Slide, add_title, box_hints, themed_slide
from svc_host.kit.display.text import FONT_OPTIONS, default_minimum, fit_text, label, minimum_px, text_extent

RGBA = tuple[float, float, float, float]


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
    gaps more a gap), the block centred in what remains.

    Nothing is left out unseen: when items must go, the column says so under the last one kept, a
    "+N more" line in the caption style (``more``: its nominal and least font size and its colour;
    by default the first line's minimum and colour, dimmed), an ellipsis row where that line does not fit the
    width; its room is taken from the column before the items are counted (:meth:`arrange`), unless
    the items it must keep (``keep``) fit whole only with that room: they come first (then what
    is left out goes unsaid: a known limit, docs/open-items.md)."""

    MORE_ALPHA = 0.75
    """The "more" line's opacity against its colour: quieter than the items, still read."""

    def __init__(self, entries: Sequence[Entry], gap: float, keep: int = 1,
                 more: tuple[float, float, RGBA] | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.entries, self.gap, self.shown = list(entries), gap, 0
        self.keep = max(1, min(keep, len(self.entries)))  # the items shrunk until they fit together
        self.scale = 1.0
        for item in self.entries:
            self.add_widget(item)
            for line in item.lines:
                line.bind(text=self._later)
        self._reserved = 0.0  # the room the "more" line takes while items are left out
        self.more = self._more_label(more)
        self.add_widget(self.more)
        self._busy = False
        self.bind(pos=self.arrange, size=self.arrange)

    def _later(self, *_args: Any) -> None:
        from kivy.clock import Clock

        if not self._busy:  # not a text the column ended early itself
            Clock.schedule_once(self.arrange, 0)

    def _more_label(self, style: tuple[float, float, RGBA] | None) -> Label:
        if style is None:
            first = next((item.lines[0] for item in self.entries if item.lines), None)
            color = tuple(first.color) if first is not None else (1.0, 1.0, 1.0, 1.0)
            least = float(first.minimum) if first is not None else default_minimum()
            style = (least, least, color)
        size, least, color = style
        mark = Label(text="", font_size=size, color=(color[0], color[1], color[2], color[3] * self.MORE_ALPHA),
                     halign="left", valign="middle", size_hint=(None, None), opacity=0.0)
        mark.role, mark.nominal, mark.minimum = ROLE_MORE, float(size), min(float(size), float(least))
        return mark

    def _more_size(self) -> None:
        """The "more" line at the column's scale of its caption size, never below the caption's minimum."""
        self.more.font_size = max(self.more.minimum, self.more.nominal * self.scale)

    def more_text(self, count: int) -> str:
        """What the "more" line says for ``count`` items left out: ``+N more``, else (narrower than
        that) an ellipsis."""
        text = f"+{count} more"
        options = {name: getattr(self.more, name) for name in FONT_OPTIONS}
        return text if text_extent(options, text, self.more.font_size)[0] <= self.width else "\u2026"

    def more_height(self) -> float:
        options = {name: getattr(self.more, name) for name in FONT_OPTIONS}
        return text_extent(options, "+9 more", self.more.font_size)[1]

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
        room = self.room
        if self.kept_height(1.0) <= room:
            return 1.0
        if self.kept_height(least) > room:
            return least
        low, high = least, 1.0
        for _ in range(7):  # to within 1 % of the nominal size
            middle = (low + high) / 2
            low, high = (middle, high) if self.kept_height(middle) <= room else (low, middle)
        return low

    @property
    def room(self) -> float:
        """The height the items have: the column's, less the "more" line's while items are left out."""
        return self.height - self._reserved

    def arrange(self, *_args: Any) -> None:
        if self._busy or self.width <= 1 or self.height <= 1 or not self.entries:
            return
        self._busy = True
        try:
            self._reserved = 0.0
            kept = self._arrange()
            if kept < len(self.entries):  # something must go: room for the line that says so, counted again
                self._more_size()
                # Said, never silent: when the items it keeps fit whole only in the line's room too,
                # the last of them ends early (an ellipsis) to make room for the line.
                self._reserved = self.more_height() + self.gap * self.scale * 0.5
                kept = self._arrange()
            left_out = len(self.entries) - kept
            self.more.opacity = 1.0 if left_out and self._reserved else 0.0
            if left_out:
                self._more_size()
                self.more.text = self.more_text(left_out)
                last = self.entries[kept - 1]
                indent = min(getattr(last, "_indent", 0.0), self.width / 2)  # under the text, past its icon
                self.more.text_size = (self.width - indent, None)
                self.more.texture_update()
                self.more.size = (self.width - indent, self.more.texture_size[1])
                self.more.pos = (self.x + indent, max(self.y, last.y - self.gap * self.scale * 0.5 - self.more.height))
        finally:
            self._busy = False

    def _arrange(self) -> int:
        """Lays the items out in :attr:`room` (the column's top part); how many are kept."""
        first = self.entries[self.keep - 1]  # the item that ends early when even the minimum does not fit
        last = first.lines[-1]
        if getattr(last, "ended", None) not in (None, last.text):  # a new text since it was ended early
            last.whole = None
        if getattr(last, "whole", None):  # ended early for another box: whole again, measured anew
            last.text = last.whole
        scale = self.first_scale()
        room = self.room
        if self.kept_height(scale) > room:  # even at its minimum: end it early
            texts = [line.text for line in first.lines]
            last.whole = last.text
            last.text = last.ended = shortened(last.text, lambda text: self.kept_height(
                scale, texts[:-1] + [text]) <= room)
        self.scale = scale
        heights = [item.measure(self.width, scale) for item in self.entries]
        kept, used = 0, 0.0
        for height in heights:
            step = height + (self.gap * scale if kept else 0.0)
            if used + step > room and kept >= self.keep:  # the items it keeps are never left out
                break
            used, kept = used + step, kept + 1
        gap = self.gap * scale
        free = room - used
        spread = min(free / (kept + 1), gap * 2) if kept else 0.0
        top = self.y + self.height  # not self.top: read in a pos event, Kivy's alias can be stale
        top -= (free - spread * (kept - 1)) / 2 if kept else 0.0
        for i, (item, height) in enumerate(zip(self.entries, heights)):
            item.opacity = 1.0 if i < kept else 0.0
            item.place(self.x, top, self.width, height)
            top -= height + gap + spread
        self.shown = kept
        return kept


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
    column = Column(entries, gap=context.type_px("body") * 0.45, keep=keep,
                    more=(context.type_px("caption"), minimum_px(context, "caption"), context.theme.text),
                    **box_hints(box))
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
    size = max(body_size or 0.0, theme.type_scale("body"))
    entries = []
    for line in lines:
        if line:
            item = entry(context, line, fg, halign=halign)
            item.main.font_size = item.main.nominal = context.font(size)
            entries.append(item)
    body_column(context, slide, entries, (0.08, top, 0.84, 0.94 - top))
    return slide
