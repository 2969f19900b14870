"""Renderers of the builtin ticker tape types. Interface: :mod:`.base` (returns TickerContent).

- ``time``: ``dateOrder`` (mdy/dmy/ymd, default: setting ``controller_date_order``),
  ``timeFormatPreset`` (``24h_hm``, ``24h_hms``, ``12h_hm``, ``12h_hms``, ``12h_hm_tt``,
  ``12h_hms_tt``; default from ``controller_time_format``, minutes only), ``timeZone``
  (default ``display_timezone``), ``labelPrefix``. Refreshes every second when the preset
  shows seconds, else every 60 s.
- ``weather``: ``locationId`` (else every location), ``temperatureUnit`` (c/f).
- ``news``: ``feedId``, ``count`` (default 8) — latest unsuppressed RSS titles.
- ``quote``: ``category`` — one random quote.
- ``stocks``: ``symbols`` (else all) — ``SYM 123.45 +1.2%``.
- ``static_text``: ``text`` (or ``items``, an array of strings).
- ``plugin``: ``pluginId`` — the key-value ``ticker.marquee.<pluginId>``.
"""
from __future__ import annotations

import random
from typing import Any

from builtin_plugins.display_renderers.base import (
    RenderContext,
    TickerContent,
    config_list,
    config_number,
    config_text,
    renderer,
)

TIME_PRESETS = ("24h_hm", "24h_hms", "12h_hm", "12h_hms", "12h_hm_tt", "12h_hms_tt")


def parse_preset(preset: str | None, fallback_format: str) -> tuple[bool, bool, bool]:
    """(twelve_hour, seconds, am_pm) of a preset id; unknown ids follow the setting."""
    if preset not in TIME_PRESETS:
        twelve = fallback_format == "12h"
        return twelve, False, twelve
    twelve = preset.startswith("12h")
    return twelve, "_hms" in preset, preset.endswith("_tt")


def time_tape(context: RenderContext) -> TickerContent:
    twelve, seconds, am_pm = parse_preset(config_text(context, "timeFormatPreset") or None, context.time_format)
    now = context.now(config_text(context, "timeZone") or None)
    if twelve:
        text = now.strftime("%I:%M:%S" if seconds else "%I:%M").lstrip("0")
        if am_pm:
            text += now.strftime(" %p")
    else:
        text = now.strftime("%H:%M:%S" if seconds else "%H:%M")
    order = config_text(context, "dateOrder")
    date = context.format_date(now, order if order in ("mdy", "dmy", "ymd") else None)
    prefix = config_text(context, "labelPrefix")
    body = f"{prefix} {date} {text}".strip() if prefix else f"{date} {text}"
    return TickerContent(items=[body], refresh_seconds=1.0 if seconds else 60.0, kind="time")


def _prepare_weather(context: RenderContext) -> Any:
    rows = list(context.host.db.WeatherCurrent.select())
    location = config_text(context, "locationId")
    if location:
        rows = [r for r in rows if r.location_id == location]
    if not rows:
        return None
    return [{"name": r.location_name, "temp_c": r.temp_c, "description": r.description}
            for r in sorted(rows, key=lambda r: r.location_name)]


@renderer(prepare=_prepare_weather)
def weather_tape(context: RenderContext) -> TickerContent:
    unit = config_text(context, "temperatureUnit") or context.temperature_unit
    return TickerContent(items=[f"{w['name']} {context.format_temperature(w['temp_c'], unit)} {w['description']}"
                                .strip() for w in context.data], kind="weather")


def _prepare_news(context: RenderContext) -> Any:
    from pony.orm import desc

    db = context.host.db
    query = db.RssArticle.select(lambda a: not a.suppressed)
    feed = config_text(context, "feedId")
    if feed:
        query = query.filter(lambda a: a.feed_id == feed)
    count = int(config_number(context, "count", 8, 1, 50))
    titles = [a.title for a in query.order_by(desc(db.RssArticle.published_at_ms)).limit(count)]
    return titles or None


@renderer(prepare=_prepare_news)
def news_tape(context: RenderContext) -> TickerContent:
    return TickerContent(items=list(context.data), kind="news")


def _prepare_quote(context: RenderContext) -> Any:
    query = context.host.db.Quote.select()
    category = config_text(context, "category")
    if category:
        query = query.filter(lambda q: q.category_id == category)
    rows = list(query.limit(50))
    if not rows:
        return None
    row = random.choice(rows)
    return f"\u201c{row.text}\u201d" + (f" \u2014 {row.author}" if row.author else "")


@renderer(prepare=_prepare_quote)
def quote_tape(context: RenderContext) -> TickerContent:
    return TickerContent(items=[context.data], kind="quote")


def _prepare_stocks(context: RenderContext) -> Any:
    rows = list(context.host.db.StockQuote.select())
    wanted = config_list(context, "symbols")
    if wanted:
        rows = [r for r in rows if r.symbol in wanted or r.symbol_id in wanted]
    items = []
    for r in sorted(rows, key=lambda r: r.symbol):
        pct = f" {r.change_percent:+.2f}%" if r.change_percent is not None else ""
        items.append(f"{r.symbol} {r.price:.2f}{pct}")
    return items or None


@renderer(prepare=_prepare_stocks)
def stocks_tape(context: RenderContext) -> TickerContent:
    return TickerContent(items=list(context.data), kind="stocks")


def static_text(context: RenderContext) -> TickerContent:
    items = [i for i in config_list(context, "items") if isinstance(i, str) and i]
    text = config_text(context, "text")
    if text:
        items.insert(0, text)
    return TickerContent(items=items, kind="static_text")


def _prepare_plugin(context: RenderContext) -> Any:
    plugin_id = config_text(context, "pluginId")
    settings = context.host.services.get("settings")
    if not plugin_id or settings is None:
        return None
    value = settings.key_value(f"ticker.marquee.{plugin_id}")
    return value or None


@renderer(prepare=_prepare_plugin)
def plugin_tape(context: RenderContext) -> TickerContent:
    return TickerContent(items=[context.data], kind="plugin")


RENDERERS = {
    "time": time_tape,
    "weather": weather_tape,
    "news": news_tape,
    "quote": quote_tape,
    "stocks": stocks_tape,
    "static_text": static_text,
    "plugin": plugin_tape,
}
