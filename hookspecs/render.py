"""The renderer contract: how the canvas draws a screen or an overlay.

A renderer is a callable ``factory(context) -> result`` given with its type
(``ScreenType.renderer``, ``OverlayType.renderer``), either the callable itself or a ``"module:attr"`` string the host resolves (and checks) at startup,
so a module that imports Kivy is loaded only when a canvas runs. The display calls it on
the UI (Kivy) thread:

- screen and overlay factories return a Kivy ``Widget`` that fills ``context.size``
  (its layer sizes and positions it). A widget may define ``tick(dt)`` (called every
  frame while it is shown: animate there, never with your own ``Clock`` events) and
  ``dispose()`` (called once when it is removed): :class:`Widget` is that protocol.
- a ticker type has no renderer: its ``TickerType.build_items`` makes the texts the REST
  snapshot lists and the marquee shows (the one way to make a ticker type); the marquee
  holds them as a :class:`TickerContent`.

Optional ``factory.prepare(context) -> data`` runs first on the display's loader thread
inside a Pony ``db_session``: read ``host.db`` tables and blobs there, never on the UI
thread. Its return value becomes ``context.data``. Returning ``None`` means *no content*:
the slide (or overlay) is skipped this time. Without ``prepare``,
``context.data`` is ``{}``. Use :func:`renderer` to attach ``prepare``.

A factory (or ``prepare``, or ``tick``) that raises is contained by the layer drawing it: that
slide / overlay is skipped, the error is logged with the plugin that owns the type,
and the display keeps running.

:class:`RenderContext` gives the row, its ``config`` (``config_json`` decoded), the theme,
the text scale, time settings (timezone, 12h/24h, date order), the temperature unit, the
host (``host.db``, ``host.blobs``) and the clock. The host kit's
``svc_host.kit.formatting.formats(context)`` writes times, dates, spans, ages and temperatures
with those settings filled in.

The canvas itself is a compositor of layers (``register_display_layers``): :class:`Layer`
is what a plugin's layer implements, :class:`Stage` what the compositor hands it,
:class:`Layout` the rectangles it may draw in and :class:`Preferences` the display
preferences every layer and renderer formats with.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

RGBA = tuple[float, float, float, float]

DEFAULT_TIMEZONE = "UTC"
"""The display's time zone when none is set (an IANA name)."""

DEFAULT_THEME_ID = "navy_coral"
DEFAULT_THEME_PREVIEW: dict[str, list[str]] = {
    "display": ["#0b1d3a", "#132c52", "#1a3d66"],
    "primaryContainer": ["#ffffff", "#b8433a"],
    "secondaryContainer": ["#0b1d3a", "#ffd6d1"],
    "accents": ["#ff8a7a", "#ffb347", "#6fd0fa", "#81c784"],
}
"""The default theme's preview (``navy_coral``): the themes plugin lists it among its builtin
themes, and the canvas uses it when no themes service answers. Defined once, here."""


TYPE_SCALE: dict[str, float] = {"display": 200, "headline": 120, "title": 80, "body": 56,
                                 "secondary": 48, "caption": 40, "ticker": 44}
"""The type scale of the builtin slides, in px at 1080 lines and text scale 1 (a lobby read from a few
metres): ``display`` (a temperature, the clock), ``headline`` (a weather icon, a big number), ``title``
(a slide's title), ``body`` (a slide's primary text: never smaller), ``secondary`` (a source and age,
a date beside the text), ``caption`` (credits, small print, a column's "+N more") and ``ticker`` (the
tape's text, at 1080 px of the screen's short side). :meth:`RenderContext.type_px` scales a step to the
slide like :meth:`RenderContext.font`; one place for every slide's sizes. A theme may set its own
steps (:attr:`Theme.type_steps`): the slides, the alert band, the celebration line and the ticker
all take their sizes from the theme's scale, so they keep one rhythm."""

TYPE_MIN: dict[str, float] = {"display": 72, "headline": 48, "title": 36, "body": 28, "secondary": 24,
                               "caption": 24, "ticker": 24}
"""The smallest each :data:`TYPE_SCALE` step may shrink to, in px at 1080 lines of the screen's short
side (a portrait screen's width, a landscape screen's height) and text scale 1: the text rule of the
renderer kit (``svc_host.kit.display.text``) wraps a label at word boundaries, then shrinks it
from its step's size down to this, and what still does not fit is shown in fewer items (fewer
headlines, forecast days, stock rows) or, for a one-line message, scrolls. Read from a few metres, 28 px
body and 24 px caption text at 1080 lines is the least a person still reads without stepping closer.
:meth:`RenderContext.min_px` scales a step's minimum to the screen."""

SAFE_INSET = 0.05
"""The default title-safe inset of a theme (:attr:`Theme.safe_inset`): 5 % of the screen's short
side along each edge, after the title-safe area of SMPTE ST 2046-1 and EBU R 95 (5 % of each side)."""

TITLE_BOX = (0.08, 0.08, 0.86, 0.16)
"""The title band of the builtin slides (the renderer kit's ``text_slide`` and ``add_title``):
``[x, y, width, height]`` as fractions of the slide from its top left corner."""


def parse_color(value: Any, default: RGBA = (1.0, 1.0, 1.0, 1.0)) -> RGBA:
    """``#rgb``, ``#rgba``, ``#rrggbb`` or ``#rrggbbaa`` -> RGBA floats; anything else -> ``default``."""
    if not isinstance(value, str):
        return default
    text = value.strip().lstrip("#")
    if len(text) in (3, 4):
        text = "".join(c * 2 for c in text)
    if len(text) not in (6, 8):
        return default
    try:
        parts = [int(text[i:i + 2], 16) / 255.0 for i in range(0, len(text), 2)]
    except ValueError:
        return default
    if len(parts) == 3:
        parts.append(1.0)
    return tuple(parts)  # type: ignore[return-value]


def parse_colors(values: Any, default: Sequence[RGBA]) -> list[RGBA]:
    if not isinstance(values, list):
        return list(default)
    parsed = [parse_color(v, None) for v in values if isinstance(v, str)]  # type: ignore[arg-type]
    parsed = [p for p in parsed if p is not None]
    return parsed or list(default)


@dataclass(frozen=True)
class Theme:
    id: str
    background: tuple[RGBA, ...]
    primary_fg: RGBA
    primary_bg: RGBA
    secondary_fg: RGBA
    secondary_bg: RGBA
    accents: tuple[RGBA, ...]
    transition: str = "fade"
    """How one slide gives way to the next (the slides layer): ``fade`` out to the ground, then the
    next in; ``push``, the next slide pushing the old one out to the left. Never text over text."""
    safe_inset: float = SAFE_INSET
    """The title-safe inset: the share of the screen's short side no text is drawn in along each
    edge (the same margin on every side, a portrait screen's too) (the layout rule of the renderer kit, ``kit.layout.layout_of``);
    pictures and grounds still reach the edges."""
    type_steps: tuple[tuple[str, float], ...] = ()
    """The theme's own sizes of :data:`TYPE_SCALE` steps (``(step, px at 1080)`` pairs; the others
    as :data:`TYPE_SCALE`): :meth:`type_scale`."""

    @property
    def text(self) -> RGBA:
        return self.primary_fg

    def type_scale(self, step: str) -> float:
        """The theme's size of a :data:`TYPE_SCALE` step, px at 1080 lines."""
        return dict(self.type_steps).get(step, TYPE_SCALE[step])


def theme_from_preview(theme_id: str, preview: Any) -> Theme:
    base = DEFAULT_THEME_PREVIEW
    preview = preview if isinstance(preview, dict) else base

    def group(name: str) -> list[RGBA]:
        return parse_colors(preview.get(name), parse_colors(base[name], [(1, 1, 1, 1)]))

    display, primary, secondary, accents = group("display"), group("primaryContainer"), \
        group("secondaryContainer"), group("accents")
    return Theme(
        id=theme_id,
        background=tuple(display),
        primary_fg=primary[0],
        primary_bg=primary[1] if len(primary) > 1 else display[-1],
        secondary_fg=secondary[0],
        secondary_bg=secondary[1] if len(secondary) > 1 else primary[0],
        accents=tuple((accents * 4)[:4]),
        transition=preview.get("transition") if preview.get("transition") in ("fade", "push") else "fade",
        safe_inset=_share(preview.get("safe_inset"), SAFE_INSET, 0.15),
        type_steps=tuple(sorted((step, float(px)) for step, px in (preview.get("type_scale") or {}).items()
                                if step in TYPE_SCALE and isinstance(px, (int, float)) and not isinstance(px, bool)
                                and 8 <= px <= 400)) if isinstance(preview.get("type_scale"), dict) else (),
    )


def _share(value: Any, default: float, most: float) -> float:
    """``value`` as a share from 0 to ``most``; ``default`` when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return min(most, max(0.0, float(value)))


def default_theme() -> Theme:
    return theme_from_preview(DEFAULT_THEME_ID, DEFAULT_THEME_PREVIEW)


@dataclass(frozen=True)
class TickerContent:
    """One tape's texts as the marquee holds them: what its type's ``build_items`` made, its
    ``refresh_seconds`` (None: built once per marquee cycle) and the kind (the type id when empty)."""

    items: list[str]
    refresh_seconds: float | None = None
    kind: str = ""


@dataclass
class RenderContext:
    """What a renderer (and its ``prepare``) receives; see the module docstring."""

    host: Any
    kind: str  # "screen", "overlay" or "ticker"
    type_id: str
    row: dict[str, Any]
    theme: Theme = field(default_factory=default_theme)
    text_scale: float = 1.0
    timezone: str = DEFAULT_TIMEZONE
    time_format: str = "24h"
    date_order: str = "ymd"
    temperature_unit: str = "c"
    size: tuple[int, int] = (1920, 1080)
    data: Any = None
    type_height: float | None = None
    """The height the type scale follows (:meth:`font`): the content area's for a slide drawn in
    the free area (its type stays the size it has without overlays), ``size[1]`` when None."""
    reference: tuple[float, float] | None = None
    """What an overlay panel's ``size_hint`` is a fraction of (:attr:`Layout.reference`: the
    content area, on a portrait screen the landscape one turned); ``size`` when None. A panel
    sized in pixels divides by this (the kit's ``panel_fraction``), not by ``size``."""
    portrait: bool = False
    """The screen is higher than wide (:attr:`Layout.portrait`): a slide lays out top to bottom whatever
    the shape of the free area it got (the kit's ``stacked``)."""

    @property
    def config(self) -> dict[str, Any]:
        value = self.row.get("config_json")
        return value if isinstance(value, dict) else {}

    def with_data(self, data: Any) -> "RenderContext":
        return replace(self, data=data)

    # -- time (formatted by the host kit: svc_host.kit.formatting.formats(context)) ---------------
    def now_ms(self) -> int:
        return self.host.clock.now_ms() if self.host is not None else int(dt.datetime.now().timestamp() * 1000)

    # -- sizes --------------------------------------------------------------------
    def font(self, px_at_1080: float) -> float:
        """A font size scaled to the canvas height (:attr:`type_height`) and the configured text scale."""
        height = self.type_height or self.size[1]
        return max(6.0, px_at_1080 * height / 1080.0 * (self.text_scale or 1.0))

    def type_px(self, step: str) -> float:
        """A step of the theme's type scale (``title``, ``body``...: :meth:`Theme.type_scale`) as a
        font size for this slide."""
        return self.font(self.theme.type_scale(step))

    def min_px(self, step: str, screen_short: float | None = None) -> float:
        """The smallest a :data:`TYPE_SCALE` step may shrink to (:data:`TYPE_MIN`) on a screen whose
        short side is ``screen_short`` px (by default the shorter of this slide's width and its type
        height), with the configured text scale."""
        short = screen_short or min(self.size[0], self.type_height or self.size[1])
        return max(6.0, TYPE_MIN[step] * short / 1080.0 * (self.text_scale or 1.0))

    # -- data (loader thread) -------------------------------------------------------
    def blob_bytes(self, key: str | None) -> bytes | None:
        if not key or self.host is None:
            return None
        blob = self.host.blobs.get(key)
        if blob is None:
            return None
        try:
            return blob.path.read_bytes()
        except OSError:
            return None


@runtime_checkable
class Widget(Protocol):
    """The optional per-frame hooks of what a screen or overlay factory returns."""

    def tick(self, dt: float) -> None: ...
    def dispose(self) -> None: ...


@runtime_checkable
class Renderer(Protocol):
    """A renderer factory: ``factory(context)``, with an optional ``prepare(context)`` attribute."""

    def __call__(self, context: RenderContext) -> Any: ...


def renderer(prepare: Callable[[RenderContext], Any] | None = None) -> Callable[[Callable], Callable]:
    """Decorate a factory, attaching its optional ``prepare`` step."""

    def decorate(factory: Callable) -> Callable:
        factory.prepare = prepare  # type: ignore[attr-defined]
        return factory

    return decorate


# -- display preferences ----------------------------------------------------------------------

@dataclass(frozen=True)
class Preferences:
    """How the display looks and formats: theme, text scales, clock, dates, zone, temperatures.

    The settings plugin owns them and publishes them as ``DisplayPreferences``
    (``svc_host.kit.services.preferences(host)`` reads them, with these defaults when the
    settings plugin is off). The compositor hands them to every layer and renderer; nobody
    else reads the settings keys behind them.
    """

    theme: Theme = field(default_factory=default_theme)
    text_scale_screen: float = 1.0
    text_scale_ticker: float = 1.0
    time_format: str = "24h"
    date_order: str = "ymd"
    timezone: str = DEFAULT_TIMEZONE
    temperature_unit: str = "c"
    overscan_percent: float = 0.0
    """How much of the picture a TV that overscans HDMI crops, in % of each dimension (0 to 10): the
    whole composition is drawn that much smaller, centred (``kit.layout.layout_of``)."""

    @property
    def theme_id(self) -> str:
        return self.theme.id

    def text_scale(self, kind: str) -> float:
        """The ticker text scale for ``kind == "ticker"``, the screen text scale otherwise."""
        return self.text_scale_ticker if kind == "ticker" else self.text_scale_screen

    def context(self, host: Any, kind: str, type_id: str, row: dict[str, Any],
                size: tuple[int, int] = (1920, 1080), type_height: float | None = None,
                reference: tuple[float, float] | None = None, portrait: bool = False) -> RenderContext:
        """A :class:`RenderContext` for ``row`` with these preferences filled in."""
        return RenderContext(host=host, kind=kind, type_id=type_id, row=row, theme=self.theme,
                             text_scale=self.text_scale(kind), timezone=self.timezone,
                             time_format=self.time_format, date_order=self.date_order,
                             temperature_unit=self.temperature_unit, size=size, type_height=type_height,
                             reference=reference, portrait=portrait)


# -- the compositor's layers --------------------------------------------------------------------

@dataclass(frozen=True)
class Rect:
    """A rectangle in window pixels, origin at the bottom left (Kivy's convention)."""

    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0

    @property
    def pos(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def size(self) -> tuple[float, float]:
        return (self.width, self.height)

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def top(self) -> float:
        return self.y + self.height

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    def intersects(self, other: "Rect") -> bool:
        """Whether the two rectangles share more than an edge."""
        return (min(self.right, other.right) > max(self.x, other.x)
                and min(self.top, other.top) > max(self.y, other.y))


CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")
ZONES = CORNERS + ("center", "top_band", "bottom_band", "fullscreen")
"""The named overlay zones of the content area (:class:`Layout`): the four corners, ``center``,
a band across the top and one across the bottom, and ``fullscreen`` (the whole content area)."""

CELEBRATION_ZONE = "bottom_band"
"""Where a full-screen effect's message goes (its celebration band, :attr:`Layout.zones`)."""

ROLE_TITLE, ROLE_PRIMARY, ROLE_CELEBRATION, ROLE_MORE = "title", "primary", "celebration", "more"
"""The ``role`` attribute values of the Kivy widgets holding a slide's title, its primary text,
a full-screen effect's celebration message (see :class:`Layout`) and the "+N more" line a column
of the renderer kit draws when items must be left out (never dropped unseen)."""


@dataclass(frozen=True)
class Layout:
    """The rectangles the compositor divides the screen into; each layer draws in one of them.

    ``screen`` (the whole window), ``ticker`` (the band at the bottom a marquee claims;
    height 0 without one), ``content`` (the screen above the ticker band), ``zones`` (what
    the active overlays occupy, by zone name: :data:`ZONES`) and ``free`` (the part of the
    content area they leave free, where the slides go). :meth:`area` looks any of them up by
    name, which is also how a ``LayerSpec.area`` names where a layer's widget goes.

    A read-only value: the compositor computes it each relayout with the layout rule of the renderer
    kit (:mod:`svc_host.kit.display.layout`: where a layer, an overlay of each zone and a
    celebration message go; docs/display.md, "Layout and zones"). The slides layer draws in
    ``free``, so no overlay covers a slide's title or primary text: the widgets holding those carry
    a ``role`` attribute, :data:`ROLE_TITLE` or :data:`ROLE_PRIMARY`.
    """

    screen: Rect
    content: Rect
    ticker: Rect
    zones: Mapping[str, Rect] = field(default_factory=dict)
    free: Rect | None = None
    alert: Rect | None = None
    """The alert band at the top of the screen above the ticker (height 0 without alerts; the whole
    of it for the most severe level): the content area is what it leaves below."""
    safe: Rect | None = None
    """The title-safe area: ``screen`` less the theme's inset (:attr:`Theme.safe_inset`) on every
    side. Every text is drawn inside it; a ground, a picture or a band's fill may reach the edges."""

    def __post_init__(self) -> None:
        if self.free is None:
            object.__setattr__(self, "free", self.content)
        if self.alert is None:
            object.__setattr__(self, "alert", Rect(self.content.x, self.content.top, self.content.width, 0.0))
        if self.safe is None:
            object.__setattr__(self, "safe", self.screen)

    def area(self, name: str) -> Rect | None:
        """``screen``, ``content``, ``ticker``, ``free``, ``alert`` or a zone name; None when unknown."""
        if name in ("screen", "content", "ticker", "free", "alert"):
            return getattr(self, name)
        return self.zones.get(name)

    @property
    def portrait(self) -> bool:
        return self.screen.height > self.screen.width

    @property
    def unit(self) -> float:
        """Pixels per pixel of a 1080-line landscape screen: the short side over 1080, so a portrait
        screen (the same panel turned) draws a panel or a card at the size a landscape one does."""
        return min(self.screen.width, self.screen.height) / 1080.0

    @property
    def reference(self) -> tuple[float, float]:
        """The size a panel's ``size_hint`` and the bands are fractions of: the content area with the
        alert band (the screen above the ticker: an alert takes room, not a panel's size, so a panel
        on screen when an alert comes keeps its size and shape and moves below the band; one too
        large for the area left shrinks, keeping its shape, ``kit.layout.zone_rect``); on a portrait screen
        the landscape area of the same panel turned (its height wide, that height times width /
        height high), so panels, bands and type keep a landscape screen's size and the bands stack:
        alert, slide, celebration band, ticker."""
        c = self.content
        height = self.screen.top - c.y  # up to the screen's top: the alert band and the inset above it
        if not self.portrait:
            return c.width, height
        return self.screen.height, height * self.screen.width / self.screen.height

    @property
    def type_height(self) -> float:
        """The height the type scale follows (:attr:`RenderContext.type_height`) for everything but
        the ticker: the screen above the ticker, alert band included (an alert takes room, not type
        size), times width / height on a portrait screen (its type is a landscape screen's)."""
        above = self.screen.height - self.ticker.height
        return above * min(1.0, self.screen.width / max(1.0, self.screen.height))



@runtime_checkable
class Stage(Protocol):
    """What the compositor hands a layer's factory: the layer's window on the canvas.

    Attributes: ``host``, ``id`` (the layer's id). Everything runs on the UI thread unless
    it says otherwise; the compositor owns the Clock, the loader thread and the reporting.
    """

    @property
    def preferences(self) -> Preferences: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def area(self) -> Rect: ...
    def context(self, kind: str, row: dict, size: tuple[int, int] | None = None) -> RenderContext: ...
    def renderer(self, kind: str, type_id: str) -> Any: ...
    def prepare(self, renderer: Any, context: RenderContext) -> Any: ...
    def submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None: ...
    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None: ...
    # "Skip, don't blank" (docs/display.md): the compositor's one rule and record, asked by every layer
    def showable(self, kind: str, rows: Sequence[dict]) -> list[dict]: ...
    def report_shown(self, kind: str, type_id: str, row_id: Any, whole: bool = False) -> None: ...
    def report_current(self, row: dict | None, since_ms: int | None = None) -> None: ...
    def nothing_to_show(self) -> list[str]: ...
    def reload(self) -> None: ...
    def relayout(self) -> None: ...
    def content_changed(self) -> None: ...
    def after(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]: ...


@runtime_checkable
class Layer(Protocol):
    """One layer of the canvas, made by a ``LayerSpec``'s factory (UI thread) with its :class:`Stage`.

    Attributes: ``widget`` (its root Kivy widget, read first on the UI thread; the compositor
    puts it in the layer's area) and optionally ``opaque`` (True while it covers its whole
    area, so the compositor skips drawing the theme backdrop under it), ``decoration`` (a second
    widget the compositor puts in the layer's area under every layer's ``widget``: decorative
    effects) and ``background`` (the colours, top first, of the background its content is drawn
    on: the compositor paints them under the decoration; None while it has none). ``load`` and
    ``apply`` are required; the other methods are optional.

    **The composition rule** (docs/display.md, "Composition: the rule"), which the compositor owns:

    - z-order, bottom to top: the backdrop (the theme's gradient, then a layer's ``background``),
      the decoration (``decoration``: confetti, rain, balloons, shapes, matrix, clouds, frames),
      then the layers' widgets by ``z``: slide content (100), overlay panels (200), alerts (300),
      the pairing card (400), the ticker (500). Decoration is masked out of every content box
      (a text, an image, a drawing, a QR code, a widget with a ``role`` or marked ``reserve``: a
      whole panel), so it never lies over what a viewer reads; a layer whose content changes
      without a relayout (a new slide) calls ``stage.content_changed()``. A celebration message is
      text: it is drawn over the slides, in its band.
    - an alert takes a band (:attr:`Layout.alert`) that the content area leaves out: slides and
      overlay panels lay out below it; the most severe level takes the whole content area and the
      layers under it wait (hidden). Its card is opaque: nothing shows through.
    - the slides draw in ``free`` (``kit.layout.with_occupied``), the largest rectangle the panels
      leave whose shape fits a slide's text.

    ``arrange(layout)`` (UI thread, on every relayout, with the layout before any overlay) places
    the layer's widgets in their zones (``kit.layout.arrange``) and returns the ``(zone, rect)``
    they occupy; the compositor cuts them from ``free`` (``kit.layout.with_occupied``). A layer
    calls ``stage.relayout()`` when what it occupies changes (an overlay came or went), never
    per frame.
    """

    def load(self) -> Any: ...
    def apply(self, state: Any, restyle: bool) -> None: ...
    def due_ms(self, state: Any) -> int | None: ...
    def claims(self, screen: Rect) -> Mapping[str, float]: ...
    def arrange(self, layout: Layout) -> Sequence[tuple[str, Rect]]: ...
    def tick(self, dt: float) -> None: ...
    def navigate(self, direction: str) -> None: ...
    def dispose(self) -> None: ...


__all__: Sequence[str] = ("RGBA", "DEFAULT_THEME_ID", "DEFAULT_THEME_PREVIEW", "TYPE_SCALE", "TYPE_MIN", "SAFE_INSET",
                          "TITLE_BOX", "Theme",
                          "parse_color", "parse_colors", "theme_from_preview", "default_theme", "TickerContent",
                          "RenderContext", "Widget", "Renderer", "renderer", "Preferences", "Rect", "Layout",
                          "CORNERS", "ZONES", "CELEBRATION_ZONE", "ROLE_TITLE", "ROLE_PRIMARY", "ROLE_CELEBRATION", "ROLE_MORE",
                          "Stage", "Layer")
