"""The renderer kit, pure part (no Kivy): what a renderer reads of its row and its content.

For the display modules of any plugin (builtin or third party) next to the contract in
:mod:`hookspecs.render`; the Kivy building blocks are :mod:`svc_host.display.widgets`, which
:func:`widgets` imports on first use, so a display module's ``prepare`` steps run (and are
tested) in a process that never imports Kivy.

- config values with defaults and ranges: :func:`config_text`, :func:`config_number`,
  :func:`config_flag`, :func:`config_list`, :func:`config_strings`, :func:`data_key`;
- the overlay conventions (docs/display.md, "Builtin renderers"): :func:`opacity`,
  :func:`density` (piece counts), :func:`speed`, :func:`colors`, :func:`position`,
  :func:`panel_hint`, :func:`panel_fraction`;
- content for ``prepare`` steps: :func:`newest_shuffled` (rows of a category),
  :func:`blob_images` (image blobs by key);
- icons: :data:`SYMBOLS_FONT` (Material Symbols, shipped in ``fonts/``) and :func:`icon_text`
  (an icon name, as the spec's ``material_icon_name`` writes it, as the character to draw in it).
"""
from __future__ import annotations

import functools
import random
from pathlib import Path
from types import ModuleType
from typing import Any

from hookspecs.render import Rect, RenderContext, parse_colors
from hookspecs.services import CATEGORIES, service

POSITIONS: dict[str, dict[str, float]] = {
    "top_right": {"right": 0.98, "top": 0.97}, "top_left": {"x": 0.02, "top": 0.97},
    "bottom_right": {"right": 0.98, "y": 0.03}, "bottom_left": {"x": 0.02, "y": 0.03},
    "center": {"center_x": 0.5, "center_y": 0.5},
}
"""An overlay's ``position`` (a corner or ``center``) as a Kivy ``pos_hint``."""


FONTS = Path(__file__).with_name("fonts")
SYMBOLS_FONT = FONTS / "MaterialSymbolsOutlined.ttf"
"""Material Symbols Outlined (Apache-2.0, ``fonts/README.md`` says how it was made): every icon a
builtin slide draws (weather, ticks and boxes, warnings, arrows)."""
SYMBOLS_FONT_NAME = "MaterialSymbols"
"""The name :func:`svc_host.display.widgets.icon` registers :data:`SYMBOLS_FONT` under with Kivy."""


@functools.lru_cache(maxsize=1)
def _codepoints() -> dict[str, int]:
    names = {}
    for line in SYMBOLS_FONT.with_suffix(".codepoints").read_text(encoding="ascii").splitlines():
        name, _, point = line.partition(" ")
        if name[:1] == "_" and name[1:2].isdigit():  # a glyph name cannot start with a digit
            name = name[1:]
        names[name] = int(point, 16)
    return names


def icon_text(name: str) -> str:
    """The character of the Material Symbols icon ``name`` (``sunny``, ``check_circle``); raises
    ``KeyError`` naming an unknown one."""
    try:
        return chr(_codepoints()[name])
    except KeyError:
        raise KeyError(f"no Material Symbols icon named {name!r}") from None


def has_icon(name: object) -> bool:
    return isinstance(name, str) and name in _codepoints()


def widgets() -> ModuleType:
    """:mod:`svc_host.display.widgets` (Kivy), imported on first use (UI thread only)."""
    from svc_host.display import widgets as kit

    return kit


# -- config values ------------------------------------------------------------------------------
def config_text(context: RenderContext, key: str, default: str = "") -> str:
    value = context.config.get(key)
    return value if isinstance(value, str) else default


def config_number(context: RenderContext, key: str, default: float, low: float, high: float) -> float:
    """A number clamped to ``[low, high]``; ``default`` when missing or not a number (booleans are not)."""
    value = context.config.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return min(high, max(low, float(value)))


def config_list(context: RenderContext, key: str) -> list:
    value = context.config.get(key)
    return value if isinstance(value, list) else []


def config_flag(context: RenderContext, key: str, default: bool) -> bool:
    value = context.config.get(key)
    return value if isinstance(value, bool) else default


def config_strings(context: RenderContext, key: str) -> list[str]:
    """The non-empty strings of the list ``key``."""
    return [v for v in config_list(context, key) if isinstance(v, str) and v]


def data_key(context: RenderContext, config_key: str) -> str | None:
    """The row's ``data_key`` (spec 2.6), else the config value ``config_key``; ``None`` when neither."""
    value = context.row.get("data_key") or context.config.get(config_key)
    return value if isinstance(value, str) and value else None


# -- titles -------------------------------------------------------------------------------------
def slide_title(context: RenderContext, *candidates: Any) -> str:
    """A slide's title: its config's ``title``, else the screen's ``name`` (spec 2.6), else the first
    non-empty of ``candidates`` (what the content is: a feed's name, a category's label)."""
    for value in (context.config.get("title"), context.row.get("name"), *candidates):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def category_label(context: RenderContext, category_id: str | None) -> str:
    """The curator's label of ``category_id``, else the id made readable (``dad-jokes`` -> ``Dad
    jokes``); ``""`` without one (loader thread, inside a db_session)."""
    if not category_id:
        return ""
    categories = service(context.host, CATEGORIES) if context.host is not None else None
    label = categories.label(category_id) if categories is not None else None
    if label:
        return label
    return category_id.replace("-", " ").replace("_", " ").capitalize()


def clip_text(text: str, limit: int) -> str:
    """``text`` cut at a word before ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:-")
    return cut + "\u2026"


# -- overlay conventions ------------------------------------------------------------------------
def opacity(context: RenderContext) -> float:
    """``opacity`` (0.05-1, default 1)."""
    return config_number(context, "opacity", 1.0, 0.05, 1.0)


def density(context: RenderContext, base: float) -> int:
    """``base`` pieces times the ``density`` multiplier (0.1-5, default 1), at least one."""
    return max(1, round(base * config_number(context, "density", 1.0, 0.1, 5)))


def speed(context: RenderContext, key: str, base: float) -> float:
    """``base`` times the speed multiplier ``key`` (0.1-5, default 1)."""
    return base * config_number(context, key, 1.0, 0.1, 5)


def colors(context: RenderContext, default: list) -> list:
    """``colors`` (hex strings) as RGBA tuples; ``default`` when none parses."""
    return parse_colors(context.config.get("colors"), default)


def position(context: RenderContext, default: str = "top_right") -> dict[str, float]:
    """The ``pos_hint`` of ``position`` (:data:`POSITIONS`), ``default`` when unknown."""
    return dict(POSITIONS.get(config_text(context, "position", default), POSITIONS[default]))


def panel_hint(size_hint: tuple[float, float], scale: float = 1.0) -> tuple[float, float]:
    """``size_hint`` times ``scale``, shrunk (keeping its shape) to fit the screen with a margin."""
    factor = min(scale, 0.96 / size_hint[0], 0.94 / size_hint[1])
    return size_hint[0] * factor, size_hint[1] * factor


def panel_fraction(context: RenderContext, width_px: float, height_px: float) -> tuple[float, float]:
    """The ``size_hint`` of a panel ``width_px`` x ``height_px`` (pixels of the screen it is drawn
    on): fractions of what the overlays layer reads a panel's hint as (``context.reference``,
    :attr:`hookspecs.render.Layout.reference`), so the panel keeps its shape on a portrait screen,
    where that is the landscape content area turned, not ``context.size``."""
    ref_w, ref_h = (max(1.0, float(v)) for v in (context.reference or context.size))
    return width_px / ref_w, height_px / ref_h


def layer_box(refit: Any = None, fill: bool = False) -> Any:
    """A layer's widget: a FloatLayout the compositor places and sizes (``size_hint`` None).
    With ``fill``, each child is given the box's place and size whenever the box moves or is
    resized (a layer that shows one thing at a time, stacked); then ``refit`` is called."""
    from kivy.uix.floatlayout import FloatLayout

    box = FloatLayout(size_hint=(None, None))

    def follow(*args: Any) -> None:
        if fill:
            for child in box.children:
                child.pos, child.size = box.pos, box.size
        if refit is not None:
            refit(*args)

    box.bind(pos=follow, size=follow)
    return box


def place_celebration(root: Any, rect: Any, band: Any) -> None:
    """Put the celebration message of the full-screen overlay ``root`` (drawn in ``rect``, window
    pixels) in ``band`` (window pixels; :meth:`hookspecs.render.Layout.arrange` says where). A
    message that moves itself (``moves`` true: the bouncing message) keeps its own course."""
    caption = getattr(root, "celebration", None)
    if caption is None or getattr(caption, "moves", False):
        return
    caption.size_hint, caption.pos_hint = (None, None), {}
    caption.pos, caption.size = (band.x - rect.x, band.y - rect.y), band.size  # root coordinates


# -- content for prepare steps (loader thread, inside a db_session) -----------------------------
def newest_shuffled(context: RenderContext, entity: Any, config_key: str = "category",
                    limit: int = 50) -> list:
    """The newest ``limit`` unsuppressed rows of ``entity`` in the category :func:`data_key` names
    (every category without one), shuffled."""
    from pony.orm import desc

    query = entity.select(lambda p: not p.suppressed)
    category = data_key(context, config_key)
    if category:
        query = query.filter(lambda p: p.category_id == category)
    rows = list(query.order_by(desc(entity.created_at_ms)).limit(limit))
    random.shuffle(rows)
    return rows


def blob_images(context: RenderContext, keys: list[str], limit: int = 8) -> list[bytes]:
    """The bytes of the first ``limit`` blobs of ``keys`` that exist (undecodable ones included)."""
    return [data for data in (context.blob_bytes(key) for key in keys[:limit]) if data]


def overlay_bands(widget: Any, rect: Rect) -> list[tuple[str, Rect]]:
    """The bands a full-screen overlay's widget says it takes (``widget.bands``: ``(zone, top,
    bottom)`` as fractions of ``rect`` from its top; a folder plugin's template overlay sets it)."""
    bands = []
    for zone, top, bottom in getattr(widget, "bands", None) or ():
        if zone in ("top_band", "bottom_band") and 0 <= top < bottom <= 1:
            bands.append((zone, Rect(rect.x, rect.top - bottom * rect.height, rect.width,
                                     (bottom - top) * rect.height)))
    return bands
