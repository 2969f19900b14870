"""Building ticker item texts from tapes (spec 2.4/2.5), in memory, never persisted.

Each builder has the ``TickerType.build_items(host, tape, now_ms)`` signature and returns
a list of strings. ``now_ms`` comes from ``host.clock``, so tests format with a fixed time.
``build_ticker(host, now_ms)`` turns every enabled tape into the ordered, weighted item list.
"""
from __future__ import annotations

import datetime as dt
import logging
import math
from typing import Any, Callable

from pony.orm import coalesce, desc
from pony.orm import select as orm_select

from builtin_plugins.common.runtime import (
    display_zone,
    key_value,
    key_values_with_prefix,
    setting,
    temperature_unit,
    zone,
)

log = logging.getLogger(__name__)

MARQUEE_PREFIX = "ticker.marquee."
MAX_REPEATS = 10  # a tape's weight is rounded and capped at this many appearances per cycle

DATE_FORMATS = {"mdy": "{m:02d}/{d:02d}/{y:04d}", "dmy": "{d:02d}/{m:02d}/{y:04d}", "ymd": "{y:04d}-{m:02d}-{d:02d}"}
# preset id -> (24-hour clock?, seconds?, AM/PM marker?)
TIME_PRESETS: dict[str, tuple[bool, bool, bool]] = {
    "24h_hms": (True, True, False),
    "24h_hm": (True, False, False),
    "12h_hms_tt": (False, True, True),
    "12h_hm_tt": (False, False, True),
    "12h_hms": (False, True, False),
    "12h_hm": (False, False, False),
}
# controller_time_format -> preset when a tape names none
SETTING_PRESETS = {"24h": "24h_hm", "12h": "12h_hm_tt"}


def format_date(moment: dt.datetime, order: str) -> str:
    return DATE_FORMATS.get(order, DATE_FORMATS["ymd"]).format(y=moment.year, m=moment.month, d=moment.day)


def format_time(moment: dt.datetime, preset: str) -> str:
    h24, seconds, marker = TIME_PRESETS.get(preset, TIME_PRESETS["24h_hm"])
    if h24:
        text = f"{moment.hour:02d}:{moment.minute:02d}"
    else:
        text = f"{(moment.hour % 12) or 12}:{moment.minute:02d}"
    if seconds:
        text += f":{moment.second:02d}"
    if marker:
        text += " AM" if moment.hour < 12 else " PM"
    return text


def time_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    config = tape.config_json or {}
    order = config.get("dateOrder") or setting(host, "controller_date_order", "ymd")
    preset = config.get("timeFormatPreset") or SETTING_PRESETS.get(setting(host, "controller_time_format", "24h"),
                                                                    "24h_hm")
    tz = zone(config.get("timeZone")) or display_zone(host)
    moment = dt.datetime.fromtimestamp(now_ms / 1000, tz=tz)
    text = f"{format_date(moment, order)} {format_time(moment, preset)}"
    prefix = (config.get("labelPrefix") or "").strip()
    return [f"{prefix} {text}" if prefix else text]


def _round(value: float) -> int:
    return int(math.floor(value + 0.5))


def format_temperature(celsius: float, unit: str) -> str:
    if unit == "f":
        return f"{_round(celsius * 9 / 5 + 32)}°F"
    return f"{_round(celsius)}°C"


def weather_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "WeatherCurrent", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    unit = temperature_unit(host, config.get("temperatureUnit"))
    if config.get("locationId"):
        row = entity.get(location_id=config["locationId"])
        rows = [row] if row is not None else []
    else:
        rows = list(entity.select().order_by(lambda w: (w.location_name, w.location_id)))
        locations = getattr(host.db, "WeatherLocation", None)
        if locations is not None:  # every location, except those switched off in interests
            disabled = set(orm_select(l.id for l in locations if not l.enabled))
            rows = [row for row in rows if row.location_id not in disabled]
    items = []
    for row in rows:
        parts = []
        if row.temp_c is not None:
            parts.append(format_temperature(row.temp_c, unit))
        if row.description:
            parts.append(row.description)
        if parts:
            items.append(f"{row.location_name}: {', '.join(parts)}")
    return items


def news_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "RssArticle", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    query = entity.select(lambda a: not a.suppressed)
    feed_ids = list(config.get("feedIds") or [])
    category = config.get("category")
    if category and getattr(host.db, "RssFeed", None) is not None:
        feed_ids += [f.id for f in host.db.RssFeed.select(lambda f: f.category == category)]
        if not feed_ids:
            return []
    if feed_ids:
        query = query.filter(lambda a: a.feed_id in feed_ids)
    if config.get("maxAgeHours"):
        oldest = now_ms - int(config["maxAgeHours"]) * 3_600_000
        query = query.filter(lambda a: coalesce(a.published_at_ms, a.created_at_ms) >= oldest)
    query = query.order_by(lambda a: (desc(coalesce(a.published_at_ms, a.created_at_ms)), a.id))
    return [row.title for row in query.limit(int(config.get("maxItems") or 10))]


def quote_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "Quote", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    query = entity.select()
    if config.get("category"):
        category = config["category"]
        query = query.filter(lambda q: q.category_id == category)
    query = query.order_by(lambda q: (desc(q.created_at_ms), q.id))
    items = []
    for row in query.limit(int(config.get("maxItems") or 5)):
        items.append(f"“{row.text}” — {row.author}" if row.author else f"“{row.text}”")
    return items


def format_stock(row: Any, show_change: bool = True) -> str:
    text = f"{row.symbol} {row.price:,.2f}"
    if show_change and row.change is not None:
        arrow = "▲" if row.change > 0 else "▼" if row.change < 0 else "■"
        text += f" {arrow}{abs(row.change):,.2f}"
        if row.change_percent is not None:
            text += f" ({row.change_percent:+.2f}%)"
    return text


def stock_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    entity = getattr(host.db, "StockQuote", None)
    if entity is None:
        return []
    config = tape.config_json or {}
    rows = list(entity.select().order_by(lambda q: (q.symbol, q.symbol_id)))
    symbols = [s.upper() for s in config.get("symbols") or []]
    if symbols:
        rank = {symbol: index for index, symbol in enumerate(symbols)}
        rows = sorted((r for r in rows if r.symbol.upper() in rank), key=lambda r: rank[r.symbol.upper()])
    return [format_stock(row, config.get("showChange", True)) for row in rows]


def text_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    text = ((tape.config_json or {}).get("text") or "").strip()
    return [text] if text else []


def marquee_lines(value: str | None) -> list[str]:
    return [line.strip() for line in (value or "").splitlines() if line.strip()]


def plugin_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    plugin_id = (tape.config_json or {}).get("pluginId")
    return marquee_lines(key_value(host, MARQUEE_PREFIX + plugin_id)) if plugin_id else []


def repeats(weight: float) -> int:
    if weight is None or weight <= 0:
        return 0
    return min(MAX_REPEATS, max(1, _round(weight)))


def build_ticker(host: Any, now_ms: int) -> list[dict[str, Any]]:
    """``[{ordinal, kind, body}]`` from every enabled tape plus stand-alone plugin marquees.

    Tapes are taken in ``sort_order`` (then id). ``frequency_weight`` says how many times a
    tape appears per cycle (rounded, at most :data:`MAX_REPEATS`, 0 leaves it out); the
    appearances are interleaved round by round so a heavy tape is spread over the cycle.
    Key-values ``ticker.marquee.<plugin_id>`` not claimed by a ``plugin`` tape follow.
    """
    entity = getattr(host.db, "TickerTape", None)
    tapes = list(entity.select().order_by(lambda t: (t.sort_order, t.id))) if entity is not None else []
    claimed = {(t.config_json or {}).get("pluginId") for t in tapes if t.ticker_type == "plugin"}
    built: list[tuple[Any, str, list[str]]] = []
    for tape in tapes:
        if not tape.enabled:
            continue
        item_type = host.registries.ticker_types.get(tape.ticker_type)
        builder: Callable[..., Any] | None = getattr(item_type, "build_items", None)
        if builder is None:
            continue
        try:
            texts = [str(t) for t in builder(host, tape, now_ms) or [] if str(t).strip()]
        except Exception:  # a misbehaving type costs its own items only
            log.exception("ticker type %r failed to build items for tape %r", tape.ticker_type, tape.id)
            continue
        built.append((repeats(tape.frequency_weight), tape.ticker_type, texts))

    sequence: list[tuple[str, str]] = []
    for round_index in range(MAX_REPEATS):
        for count, kind, texts in built:
            if count > round_index:
                sequence.extend((kind, text) for text in texts)
    for key, value in key_values_with_prefix(host, MARQUEE_PREFIX):
        if key[len(MARQUEE_PREFIX):] not in claimed:
            sequence.extend(("plugin", line) for line in marquee_lines(value))
    return [{"ordinal": index, "kind": kind, "body": body} for index, (kind, body) in enumerate(sequence)]
