"""A renderer's row config (no Kivy): values with defaults and ranges, and the overlay conventions
(docs/display.md, "Builtin renderers"): opacity, piece counts, speeds, colours, a panel's position
and size."""
from __future__ import annotations

from hookspecs.render import RenderContext, parse_colors


POSITIONS: dict[str, dict[str, float]] = {
    "top_right": {"right": 0.98, "top": 0.97}, "top_left": {"x": 0.02, "top": 0.97},
    "bottom_right": {"right": 0.98, "y": 0.03}, "bottom_left": {"x": 0.02, "y": 0.03},
    "center": {"center_x": 0.5, "center_y": 0.5},
}
"""An overlay's ``position`` (a corner or ``center``) as a Kivy ``pos_hint``."""


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
