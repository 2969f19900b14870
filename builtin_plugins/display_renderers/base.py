"""The renderer factory interface (screens, overlays, ticker tapes).

A renderer is a callable ``factory(context) -> result`` attached to a type definition
(``ScreenType.renderer``, ``OverlayType.renderer``, ``TickerType`` through the display's
ticker lookup). The display calls it on the UI (Kivy) thread:

- screen and overlay factories return a Kivy ``Widget`` that fills ``context.size``
  (the director sizes and positions it). A widget may define ``tick(dt)`` (called every
  frame while it is shown: animate there, never with your own ``Clock`` events) and
  ``dispose()`` (called once when it is removed).
- ticker factories return a :class:`TickerContent`: the texts of one tape segment and how
  often to rebuild them (``refresh_seconds``; ``None`` = once per marquee cycle).

Optional ``factory.prepare(context) -> data`` runs first on the display's loader thread
inside a Pony ``db_session``: read ``host.db`` tables and blobs there, never on the UI
thread. Its return value becomes ``context.data``. Returning ``None`` means *no content*:
the slide (or overlay, or tape) is skipped this time. Without ``prepare``,
``context.data`` is ``{}``. Use :func:`renderer` to attach ``prepare``.

A factory (or ``prepare``, or ``tick``) that raises is contained by the director: that
slide / overlay / tape is skipped, the error is logged with the plugin that owns the type,
and the display keeps running.

:class:`RenderContext` gives the row, its ``config`` (``config_json`` decoded), the theme,
the text scale, time settings (timezone, 12h/24h, date order), the temperature unit, the
host (``host.db``, ``host.blobs``) and the clock.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from builtin_plugins.display_renderers.theme import Theme, theme_from_preview, FALLBACK_PREVIEWS


@dataclass(frozen=True)
class TickerContent:
    """What a ticker renderer returns: item texts and the refresh period in seconds."""

    items: list[str]
    refresh_seconds: float | None = None
    kind: str = ""


@dataclass
class RenderContext:
    host: Any
    kind: str  # "screen", "overlay" or "ticker"
    type_id: str
    row: dict[str, Any]
    theme: Theme = field(default_factory=lambda: theme_from_preview("navy_coral", FALLBACK_PREVIEWS["navy_coral"]))
    text_scale: float = 1.0
    timezone: str = "UTC"
    time_format: str = "24h"
    date_order: str = "ymd"
    temperature_unit: str = "c"
    size: tuple[int, int] = (1920, 1080)
    data: Any = None

    @property
    def config(self) -> dict[str, Any]:
        value = self.row.get("config_json")
        return value if isinstance(value, dict) else {}

    def with_data(self, data: Any) -> "RenderContext":
        return replace(self, data=data)

    # -- time ---------------------------------------------------------------------
    def tzinfo(self, name: str | None = None) -> dt.tzinfo:
        try:
            return ZoneInfo(name or self.timezone or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            return dt.timezone.utc

    def now_ms(self) -> int:
        return self.host.clock.now_ms() if self.host is not None else int(dt.datetime.now().timestamp() * 1000)

    def now(self, zone: str | None = None) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.now_ms() / 1000, self.tzinfo(zone))

    def format_time(self, moment: dt.datetime, seconds: bool = False, twelve: bool | None = None) -> str:
        twelve = self.time_format == "12h" if twelve is None else twelve
        if twelve:
            text = moment.strftime("%I:%M:%S %p" if seconds else "%I:%M %p")
            return text.lstrip("0")
        return moment.strftime("%H:%M:%S" if seconds else "%H:%M")

    def format_preset(self, moment: dt.datetime, preset: str | None, seconds: bool = False) -> str:
        """``moment`` in a time format preset (``24h_hm`` ...); without one, the display's
        12h/24h setting with or without seconds."""
        from builtin_plugins.ticker.items import TIME_PRESETS, format_time

        if preset not in TIME_PRESETS:
            preset = ("12h_hms_tt" if seconds else "12h_hm_tt") if self.time_format == "12h" else \
                ("24h_hms" if seconds else "24h_hm")
        return format_time(moment, preset)

    def format_date(self, moment: dt.datetime, order: str | None = None) -> str:
        order = order or self.date_order
        y, m, d = f"{moment.year:04d}", f"{moment.month:02d}", f"{moment.day:02d}"
        return {"mdy": f"{m}/{d}/{y}", "dmy": f"{d}.{m}.{y}"}.get(order, f"{y}-{m}-{d}")

    def format_temperature(self, celsius: float | None, unit: str | None = None) -> str:
        if celsius is None:
            return "--"
        unit = (unit or self.temperature_unit or "c").lower()
        if unit == "f":
            return f"{round(celsius * 9 / 5 + 32)}°F"
        return f"{round(celsius)}°C"

    # -- sizes --------------------------------------------------------------------
    def font(self, px_at_1080: float) -> float:
        """A font size scaled to the canvas height and the configured text scale."""
        return max(6.0, px_at_1080 * self.size[1] / 1080.0 * (self.text_scale or 1.0))

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


def renderer(prepare: Callable[[RenderContext], Any] | None = None) -> Callable[[Callable], Callable]:
    """Decorate a factory, attaching its optional ``prepare`` step."""

    def decorate(factory: Callable) -> Callable:
        factory.prepare = prepare  # type: ignore[attr-defined]
        return factory

    return decorate


def config_text(context: RenderContext, key: str, default: str = "") -> str:
    value = context.config.get(key)
    return value if isinstance(value, str) else default


def config_number(context: RenderContext, key: str, default: float, low: float, high: float) -> float:
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
    return [v for v in config_list(context, key) if isinstance(v, str) and v]
