"""Renderers of the builtin ticker tape types. Interface: :mod:`.base` (returns TickerContent).

The tape config keys are those of ``builtin_plugins/ticker/types.py`` (spec 2.5), and the
item texts come from the same builders that serve ``/v1/ticker/items``
(``builtin_plugins/ticker/items.py``), so the marquee shows what the REST snapshot says:

- ``time``: ``dateOrder``, ``timeFormatPreset``, ``timeZone``, ``labelPrefix``; omitted keys
  follow the display settings. Built on the UI thread and refreshed every second when the
  preset shows seconds, else every 60 s.
- ``weather``: ``locationId`` (else every enabled location), ``temperatureUnit``.
- ``news``: ``feedIds``, ``category`` (feeds of that category), ``maxItems``, ``maxAgeHours``.
- ``quote``: ``category``, ``maxItems``.
- ``stocks``: ``symbols`` (in that order; all when omitted), ``showChange``.
- ``text``: ``text``.
- ``plugin``: ``pluginId`` — the lines of key-value ``ticker.marquee.<pluginId>``.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

from builtin_plugins.display_renderers.base import RenderContext, TickerContent, config_text, renderer
from builtin_plugins.ticker import items as builders
from builtin_plugins.ticker.items import SETTING_PRESETS, TIME_PRESETS


def time_tape(context: RenderContext) -> TickerContent:
    preset = config_text(context, "timeFormatPreset")
    if preset not in TIME_PRESETS:
        preset = SETTING_PRESETS.get(context.time_format, "24h_hm")
    order = config_text(context, "dateOrder") or context.date_order
    now = context.now(config_text(context, "timeZone") or None)
    body = f"{builders.format_date(now, order)} {builders.format_time(now, preset)}"
    prefix = config_text(context, "labelPrefix").strip()
    seconds = TIME_PRESETS[preset][1]
    return TickerContent(items=[f"{prefix} {body}" if prefix else body], refresh_seconds=1.0 if seconds else 60.0,
                         kind="time")


def _from_builder(build: Callable[[Any, Any, int], list[str]]) -> Callable[[RenderContext], Any]:
    """A tape renderer whose texts are ``build(host, tape, now_ms)`` (run in ``prepare``)."""

    def prepare(context: RenderContext) -> Any:
        tape = SimpleNamespace(**{**context.row, "config_json": context.config})
        return [str(item) for item in build(context.host, tape, context.now_ms()) or []] or None

    @renderer(prepare=prepare)
    def tape(context: RenderContext) -> TickerContent:
        return TickerContent(items=list(context.data))  # kind: the tape's ticker_type

    return tape


RENDERERS = {
    "time": time_tape,
    "weather": _from_builder(builders.weather_items),
    "news": _from_builder(builders.news_items),
    "quote": _from_builder(builders.quote_items),
    "stocks": _from_builder(builders.stock_items),
    "text": _from_builder(builders.text_items),
    "plugin": _from_builder(builders.plugin_items),
}
