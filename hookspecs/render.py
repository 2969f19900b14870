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
host (``host.db``, ``host.blobs``) and the clock. Its ``format_*`` methods are the shared
formatters of :mod:`hookspecs.formatting` with the display's settings filled in.

The canvas itself is a compositor of layers (``register_display_layers``): :class:`Layer`
is what a plugin's layer implements, :class:`Stage` what the compositor hands it,
:class:`Layout` the rectangles it may draw in and :class:`Preferences` the display
preferences every layer and renderer formats with.
"""
from __future__ import annotations

import datetime as dt
import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from hookspecs import formatting

RGBA = tuple[float, float, float, float]

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
                                 "secondary": 48, "caption": 40}
"""The type scale of the builtin slides, in px at 1080 lines and text scale 1 (a lobby read from a few
metres): ``display`` (a temperature, the clock), ``headline`` (a weather icon, a big number), ``title``
(a slide's title), ``body`` (a slide's primary text: never smaller), ``secondary`` (a source and age,
a date beside the text) and ``caption`` (credits, small print). :meth:`RenderContext.type_px` scales a
step to the slide like :meth:`RenderContext.font`; one place for every slide's sizes."""

TYPE_MIN: dict[str, float] = {"display": 72, "headline": 48, "title": 36, "body": 28, "secondary": 24,
                               "caption": 24}
"""The smallest each :data:`TYPE_SCALE` step may shrink to, in px at 1080 lines of the screen's short
side (a portrait screen's width, a landscape screen's height) and text scale 1: the text rule of the
renderer kit (``svc_host.display.widgets.TextBox``) wraps a label at word boundaries, then shrinks it
from its step's size down to this, and what still does not fit is shown in fewer items (fewer
headlines, forecast days, stock rows) or, for a one-line message, scrolls. Read from a few metres, 28 px
body and 24 px caption text at 1080 lines is the least a person still reads without stepping closer.
:meth:`RenderContext.min_px` scales a step's minimum to the screen."""

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

    @property
    def text(self) -> RGBA:
        return self.primary_fg


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
    )


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
    timezone: str = formatting.DEFAULT_TIMEZONE
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

    @property
    def config(self) -> dict[str, Any]:
        value = self.row.get("config_json")
        return value if isinstance(value, dict) else {}

    def with_data(self, data: Any) -> "RenderContext":
        return replace(self, data=data)

    # -- time ---------------------------------------------------------------------
    def tzinfo(self, name: str | None = None) -> dt.tzinfo:
        return formatting.zone(name) or formatting.zone_or_utc(self.timezone)

    def now_ms(self) -> int:
        return self.host.clock.now_ms() if self.host is not None else int(dt.datetime.now().timestamp() * 1000)

    def now(self, zone: str | None = None) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.now_ms() / 1000, self.tzinfo(zone))

    def format_time(self, moment: dt.datetime, seconds: bool = False, twelve: bool | None = None) -> str:
        """``moment`` on the display's 12h/24h clock (or ``twelve``), with or without seconds."""
        time_format = self.time_format if twelve is None else ("12h" if twelve else "24h")
        return formatting.format_time(moment, formatting.preset_for(None, time_format, seconds))

    def format_preset(self, moment: dt.datetime, preset: str | None, seconds: bool = False) -> str:
        """``moment`` in a time format preset (``24h_hm`` ...); without one, the display's
        12h/24h setting with or without seconds."""
        return formatting.format_time(moment, formatting.preset_for(preset, self.time_format, seconds))

    def format_date(self, moment: dt.date, order: str | None = None) -> str:
        return formatting.format_date(moment, order or self.date_order)

    def format_temperature(self, celsius: float | None, unit: str | None = None) -> str:
        return formatting.format_temperature(celsius, unit or self.temperature_unit)

    def moment(self, ms: int) -> dt.datetime:
        """Epoch milliseconds as a time in the display's zone."""
        return dt.datetime.fromtimestamp(ms / 1000, self.tzinfo())

    def format_span(self, start_ms: int, end_ms: int | None = None, all_day: bool = False) -> str:
        """An event's time as a person reads it (``Today 14:00–15:00``, ``Now · until 15:00``):
        :func:`hookspecs.formatting.format_span` in the display's zone, clock and date order."""
        end = self.moment(end_ms) if end_ms is not None else None
        return formatting.format_span(self.moment(start_ms), end, self.now(),
                                      formatting.preset_for(None, self.time_format), all_day, self.date_order)

    def is_running(self, start_ms: int, end_ms: int | None) -> bool:
        return end_ms is not None and start_ms <= self.now_ms() < end_ms

    def friendly_day(self, day: dt.date) -> str:
        """``Today``, ``Tomorrow``, a weekday name within a week, else a short date."""
        return formatting.friendly_day(day, self.now().date(), self.date_order)

    def long_date(self, day: dt.date, order: str | None = None) -> str:
        return formatting.long_date(day, order or self.date_order)

    def short_date(self, day: dt.date, order: str | None = None) -> str:
        return formatting.short_date(day, order or self.date_order)

    def format_age(self, then_ms: int | None) -> str:
        """``2 h ago`` from the display's clock."""
        return formatting.format_age(then_ms, self.now_ms())

    # -- sizes --------------------------------------------------------------------
    def font(self, px_at_1080: float) -> float:
        """A font size scaled to the canvas height (:attr:`type_height`) and the configured text scale."""
        height = self.type_height or self.size[1]
        return max(6.0, px_at_1080 * height / 1080.0 * (self.text_scale or 1.0))

    def type_px(self, step: str) -> float:
        """A :data:`TYPE_SCALE` step (``title``, ``body``...) as a font size for this slide."""
        return self.font(TYPE_SCALE[step])

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
    (``hookspecs.services.preferences(host)`` reads them, with these defaults when the
    settings plugin is off). The compositor hands them to every layer and renderer; nobody
    else reads the settings keys behind them.
    """

    theme: Theme = field(default_factory=default_theme)
    text_scale_screen: float = 1.0
    text_scale_ticker: float = 1.0
    time_format: str = "24h"
    date_order: str = "ymd"
    timezone: str = formatting.DEFAULT_TIMEZONE
    temperature_unit: str = "c"

    @property
    def theme_id(self) -> str:
        return self.theme.id

    def text_scale(self, kind: str) -> float:
        """The ticker text scale for ``kind == "ticker"``, the screen text scale otherwise."""
        return self.text_scale_ticker if kind == "ticker" else self.text_scale_screen

    def context(self, host: Any, kind: str, type_id: str, row: dict[str, Any],
                size: tuple[int, int] = (1920, 1080), type_height: float | None = None,
                reference: tuple[float, float] | None = None) -> RenderContext:
        """A :class:`RenderContext` for ``row`` with these preferences filled in."""
        return RenderContext(host=host, kind=kind, type_id=type_id, row=row, theme=self.theme,
                             text_scale=self.text_scale(kind), timezone=self.timezone,
                             time_format=self.time_format, date_order=self.date_order,
                             temperature_unit=self.temperature_unit, size=size, type_height=type_height,
                             reference=reference)


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

BAND = 0.15
"""The height of the ``top_band`` and ``bottom_band`` zones, a fraction of the content area's height."""

MIN_FREE_SHARE = (0.5, 0.4)
"""The narrowest and lowest free area :meth:`Layout.with_occupied` leaves the slides, as shares of the
content area's width and height, while any choice of cuts leaves one at least that wide and high."""

PANEL_MAX_SHARE = 0.45
"""The widest a corner panel is on a portrait screen, a share of the content area's width (it shrinks to it)."""

MARGIN = (0.02, 0.03)
"""The gap between a corner panel and the content area's edges, and between a panel and the
free area, as fractions of the content area's width and height."""

ROLE_TITLE, ROLE_PRIMARY, ROLE_CELEBRATION = "title", "primary", "celebration"
"""The ``role`` attribute values of the Kivy widgets holding a slide's title, its primary text
and a full-screen effect's celebration message (see :class:`Layout`)."""


@dataclass(frozen=True)
class Layout:
    """The rectangles the compositor divides the screen into; each layer draws in one of them.

    ``screen`` (the whole window), ``ticker`` (the band at the bottom a marquee claims;
    height 0 without one), ``content`` (the screen above the ticker band), ``zones`` (what
    the active overlays occupy, by zone name: :data:`ZONES`) and ``free`` (the part of the
    content area they leave free, where the slides go). :meth:`area` looks any of them up by
    name, which is also how a ``LayerSpec.area`` names where a layer's widget goes.

    The zone system (docs/display.md, "Layout and zones"):

    - an overlay type declares its zone (``OverlayType.zone``; a positioned type takes the
      zone its row's ``position`` names). A corner overlay is a panel whose ``size_hint`` (the
      fraction of the content area its renderer's widget wants) :meth:`arrange` puts in that
      corner, :data:`MARGIN` from the edges. A second overlay in a taken corner, and a
      ``center`` overlay, move to a free corner (the slide's middle is its primary text).
    - ``fullscreen`` overlays are decoration (confetti, rain, a frame) drawn over the whole
      content area; a message one shows goes in the celebration band (:data:`CELEBRATION_ZONE`,
      :data:`BAND` high), which its root names with a ``celebration`` attribute.
    - :meth:`with_occupied` makes ``free``: for each corner panel it cuts a side column or a
      top/bottom band (every combination is tried) and for a band it cuts the band; of the
      rectangles left it keeps those at least :data:`MIN_FREE_SHARE` of the content area wide and
      high (when any is) and of them the one of the largest area times the fourth root of its
      share of the width: a band wider than a column wins when their areas are close, since a
      slide's lines wrap less in it.
    - on a portrait screen (:attr:`portrait`) panel hints and bands are fractions of the landscape
      :attr:`reference` (the panel turned), so a panel keeps its landscape size, at most
      :data:`PANEL_MAX_SHARE` of the width, and the bands stack. The slides layer draws in ``free``, so no overlay covers a slide's
      title or primary text: the widgets holding those carry a ``role`` attribute,
      :data:`ROLE_TITLE` or :data:`ROLE_PRIMARY` (the renderer kit's ``add_title`` and
      ``text_slide`` set it), which the layout tests check against every overlay rectangle.
    """

    screen: Rect
    content: Rect
    ticker: Rect
    zones: Mapping[str, Rect] = field(default_factory=dict)
    free: Rect | None = None
    alert: Rect | None = None
    """The alert band at the top of the screen above the ticker (height 0 without alerts; the whole
    of it for the most severe level): the content area is what it leaves below."""

    def __post_init__(self) -> None:
        if self.free is None:
            object.__setattr__(self, "free", self.content)
        if self.alert is None:
            object.__setattr__(self, "alert", Rect(self.content.x, self.content.top, self.content.width, 0.0))

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
        large for the area left shrinks, keeping its shape, :meth:`zone_rect`); on a portrait screen
        the landscape area of the same panel turned (its height wide, that height times width /
        height high), so panels, bands and type keep a landscape screen's size and the bands stack:
        alert, slide, celebration band, ticker."""
        c = self.content
        height = c.height + self.alert.height
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

    @classmethod
    def of(cls, width: float, height: float, claims: Mapping[str, float] | None = None) -> "Layout":
        """The layout of a ``width`` x ``height`` screen given the layers' claims (``{"ticker": px,
        "alert": px}``; an alert claim at least the height above the ticker takes all of it)."""
        claims = claims or {}
        band = max(0.0, min(float(height), float(claims.get("ticker", 0.0))))
        above = float(height) - band
        alert = max(0.0, min(above, float(claims.get("alert", 0.0))))
        return cls(screen=Rect(0.0, 0.0, float(width), float(height)),
                   content=Rect(0.0, band, float(width), above - alert),
                   ticker=Rect(0.0, 0.0, float(width), band),
                   alert=Rect(0.0, float(height) - alert, float(width), alert))

    # -- zones ------------------------------------------------------------------------------
    def zone_rect(self, zone: str, size_hint: tuple[float | None, float | None] = (1.0, 1.0)) -> Rect:
        """Where a widget of ``size_hint`` (fractions of the content area; None counts as 1) goes in
        ``zone``: a corner panel :data:`MARGIN` from the edges, a band, the middle or the whole area."""
        c = self.content
        if zone == "fullscreen" or zone not in ZONES:
            return c
        ref_w, ref_h = self.reference
        if zone in ("top_band", "bottom_band"):
            height = min(c.height, ref_h * BAND)
            return Rect(c.x, c.top - height if zone == "top_band" else c.y, c.width, height)
        hint_w, hint_h = (1.0 if v is None else min(1.0, max(0.0, float(v))) for v in size_hint)
        width, height = ref_w * hint_w, ref_h * hint_h
        if zone != "center":  # a corner panel shrinks, keeping its shape, to fit the content area (an
            # alert's band makes it lower) and on a portrait screen to leave the slide room
            most = c.width * (PANEL_MAX_SHARE if self.portrait else 1.0)
            shrink = min(1.0, most / max(1.0, width), c.height / max(1.0, height))
            width, height = width * shrink, height * shrink
        gap_x, gap_y = c.width * MARGIN[0], c.height * MARGIN[1]
        if zone == "center":
            return Rect(c.x + (c.width - width) / 2, c.y + (c.height - height) / 2, width, height)
        x = c.x + gap_x if zone.endswith("left") else c.right - gap_x - width
        y = c.top - gap_y - height if zone.startswith("top") else c.y + gap_y
        return Rect(max(c.x, x), max(c.y, y), width, height)

    def arrange(self, wanted: Sequence[tuple[str, tuple[float | None, float | None], bool]]
                ) -> tuple[list[Rect], list[tuple[str, Rect]], list[Rect | None]]:
        """Where each overlay of ``wanted`` (``(zone, size_hint, celebrates)``, in order) goes, the
        ``(zone, rect)`` they occupy (for :meth:`with_occupied`) and, for each one that celebrates,
        where its message goes. Corners are first come first served; a ``center`` overlay or a
        second one in a corner moves to a free corner (stays where it asked when none is free); a
        band as asked; a ``fullscreen`` one covers the content area and occupies nothing but, when
        it ``celebrates`` (shows a message), the celebration band, between the bottom corner panels.
        An unknown zone counts as ``fullscreen``."""
        zones = [zone if zone in ZONES else "fullscreen" for zone, _hint, _celebrates in wanted]
        taken = {zone for zone in zones if zone in CORNERS}
        rects: list[Rect] = []
        used: set[str] = set()
        for index, (_wanted, hint, _celebrates) in enumerate(wanted):
            zone = zones[index]
            if zone == "center" or (zone in CORNERS and zone in used):
                free = [corner for corner in _MOVE_ORDER if corner not in taken]
                if free:
                    zone = free[0]
                    taken.add(zone)
                elif zone == "center":
                    zone = _MOVE_ORDER[0]
            used.add(zone)
            zones[index] = zone
            rects.append(self.zone_rect(zone, hint))
        band = self.zone_rect(CELEBRATION_ZONE)
        gap = self.content.width * MARGIN[0]
        left = max([band.x] + [r.right + gap for z, r in zip(zones, rects) if z == "bottom_left"])
        right = min([band.right] + [r.x - gap for z, r in zip(zones, rects) if z == "bottom_right"])
        message = Rect(left, band.y, max(0.0, right - left), band.height)
        bottoms = [r.top for z, r in zip(zones, rects) if z in ("bottom_left", "bottom_right")]
        if self.portrait and bottoms:  # the bands stack: the message across the width, above the panels
            message = Rect(band.x, max(bottoms) + self.content.height * MARGIN[1] / 2, band.width, band.height)
            band = Rect(band.x, band.y, band.width, message.top - band.y)
        occupied = [(zone, rect) for zone, rect in zip(zones, rects) if zone != "fullscreen"]
        messages = [message if zone == "fullscreen" and celebrates else None
                    for zone, (_z, _hint, celebrates) in zip(zones, wanted)]
        if any(messages):
            occupied.append((CELEBRATION_ZONE, band))
        return rects, occupied, messages

    def with_occupied(self, occupied: Sequence[tuple[str, Rect]]) -> "Layout":
        """This layout with ``zones`` (each zone's bounding rectangle of what occupies it) and
        ``free`` (the content area minus the corner panels and bands; see the class doc)."""
        c = self.content
        gap_x, gap_y = c.width * MARGIN[0], c.height * MARGIN[1]
        zones: dict[str, Rect] = {}
        for zone, rect in occupied:
            known = zones.get(zone)
            zones[zone] = rect if known is None else _bounds(known, rect)
        # each cut bounds one edge of the free area: 0 left, 1 bottom (raised), 2 right, 3 top (lowered)
        fixed: list[tuple[int, float]] = []
        choices: list[tuple[tuple[int, float], tuple[int, float]]] = []
        for zone, rect in zones.items():
            if zone == "top_band":
                fixed.append((3, rect.y))
            elif zone == "bottom_band":
                fixed.append((1, rect.top))
            elif zone in CORNERS:
                column = (0, rect.right + gap_x) if zone.endswith("left") else (2, rect.x - gap_x)
                band = (3, rect.y - gap_y) if zone.startswith("top") else (1, rect.top + gap_y)
                choices.append((column, band))
        candidates = []
        for picks in itertools.product(*choices):
            edges = [c.x, c.y, c.right, c.top]
            for side, value in (*fixed, *picks):
                edges[side] = max(edges[side], value) if side < 2 else min(edges[side], value)
            candidates.append(Rect(edges[0], edges[1], max(0.0, edges[2] - edges[0]),
                                   max(0.0, edges[3] - edges[1])))
        roomy = [rect for rect in candidates if rect.width >= c.width * MIN_FREE_SHARE[0]
                 and rect.height >= c.height * MIN_FREE_SHARE[1]]
        best = max(roomy or candidates, key=lambda rect: rect.area * (rect.width / max(1.0, c.width)) ** 0.25)
        return replace(self, zones=zones, free=best)


_MOVE_ORDER = ("bottom_right", "bottom_left", "top_right", "top_left")
"""The free corner an overlay moves to: the bottom ones first (a slide's title is at its top)."""


def _bounds(a: Rect, b: Rect) -> Rect:
    x, y = min(a.x, b.x), min(a.y, b.y)
    return Rect(x, y, max(a.right, b.right) - x, max(a.top, b.top) - y)


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
    - the slides draw in ``free`` (:meth:`Layout.with_occupied`), the largest rectangle the panels
      leave whose shape fits a slide's text.

    ``arrange(layout)`` (UI thread, on every relayout, with the layout before any overlay) places
    the layer's widgets in their zones (:meth:`Layout.arrange`) and returns the ``(zone, rect)``
    they occupy; the compositor cuts them from ``free`` (:meth:`Layout.with_occupied`). A layer
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


__all__: Sequence[str] = ("RGBA", "DEFAULT_THEME_ID", "DEFAULT_THEME_PREVIEW", "TYPE_SCALE", "TYPE_MIN", "TITLE_BOX", "Theme",
                          "parse_color", "parse_colors", "theme_from_preview", "default_theme", "TickerContent",
                          "RenderContext", "Widget", "Renderer", "renderer", "Preferences", "Rect", "Layout",
                          "CORNERS", "ZONES", "CELEBRATION_ZONE", "BAND", "MARGIN", "MIN_FREE_SHARE", "PANEL_MAX_SHARE", "ROLE_TITLE", "ROLE_PRIMARY",
                          "ROLE_CELEBRATION",
                          "Stage", "Layer")
