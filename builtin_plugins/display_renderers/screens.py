"""Renderers of the builtin screen (slide) types. Interface: :mod:`.base`.

Content comes from the shared catalog tables (``host.db.RssArticle``, ...) in each
renderer's ``prepare`` step; a slide with no content returns ``None`` there and is
skipped. ``data_key`` (spec 2.6) narrows the content where a type has a natural key:
weather (location id), news (feed id), photo/video/joke/trivia (category id), stocks
(symbol), calendar (category id), task board (board key).

Config keys: exactly those of ``builtin_plugins/screens/types.py`` (spec 2.6); every
key that changes what the slide shows is honoured, omitted keys keep the defaults below.
Colours are ``#rgb``/``#rrggbb``/``#rrggbbaa`` strings.
"""
from __future__ import annotations

import calendar
import datetime as dt
import random
from typing import Any

from builtin_plugins.display_renderers.base import (
    RenderContext,
    config_flag,
    config_number,
    config_text,
    config_strings,
    renderer,
)
from builtin_plugins.display_renderers.theme import parse_color
from builtin_plugins.screens.types import ALERT_SEVERITIES

RED = (0.9, 0.25, 0.25, 1.0)
GREEN = (0.2, 0.8, 0.4, 1.0)


def _w():
    from builtin_plugins.display_renderers import widgets

    return widgets


def _key(context: RenderContext, config_key: str) -> str | None:
    value = context.row.get("data_key") or context.config.get(config_key)
    return value if isinstance(value, str) and value else None


def _background(context: RenderContext, key: str = "backgroundColor") -> list | None:
    value = context.config.get(key)
    return [parse_color(value)] if isinstance(value, str) else None


def _text_color(context: RenderContext) -> Any:
    value = context.config.get("textColor")
    return parse_color(value) if isinstance(value, str) else None


# ---------------------------------------------------------------------------- message
def message(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title"), [config_text(context, "body")],
                           body_size=72, background=_background(context), text_color=_text_color(context),
                           halign=config_text(context, "textAlign", "left"))


# ---------------------------------------------------------------------------- clock
class _ClockFace:
    def __init__(self, context: RenderContext, time_label: Any, date_label: Any):
        self.context, self.time_label, self.date_label = context, time_label, date_label
        self.shown = ""
        self.tick(0)

    def tick(self, _dt: float) -> None:
        context = self.context
        zone = config_text(context, "timeZone") or None
        now = context.now(zone)
        text = context.format_preset(now, config_text(context, "timeFormatPreset") or None, seconds=True)
        if text != self.shown:
            self.shown = text
            if self.time_label is not None:
                self.time_label.text = text
            if self.date_label is not None:
                order = config_text(context, "dateOrder") or None
                self.date_label.text = f"{now.strftime('%A')}  {context.format_date(now, order)}"


def clock(context: RenderContext) -> Any:
    """``style`` ``digital`` (default) or ``analog``; ``showDate`` (default true)."""
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    show_date = config_flag(context, "showDate", True)
    analog = config_text(context, "style") == "analog"
    date_label = None
    if show_date:
        date_label = w.label("", context.font(64), context.theme.accents[0], halign="center", size_hint=(1, 0.12),
                             pos_hint={"x": 0, "y": 0.04 if analog else 0.24})
        slide.add_widget(date_label)
    title = config_text(context, "label")
    if title:
        slide.add_widget(w.label(title, context.font(56), fg, halign="center", size_hint=(1, 0.1),
                                 pos_hint={"x": 0, "top": 0.97}))
    time_label = None
    if analog:
        width, height = context.size
        zone = config_text(context, "timeZone") or None
        slide.animate(w.analog_face(slide, context, (width / 2, height * 0.54), height * 0.33, fg, zone, True))
    else:
        time_label = w.label("", context.font(220), fg, bold=True, halign="center", size_hint=(1, 0.4),
                             pos_hint={"x": 0, "center_y": 0.58 if show_date else 0.5})
        slide.add_widget(time_label)
    slide.animate(_ClockFace(context, time_label, date_label))
    return slide


# ---------------------------------------------------------------------------- weather
def _weather_rows(context: RenderContext) -> list:
    db = context.host.db
    wanted = _key(context, "locationId")
    rows = list(db.WeatherCurrent.select())
    if wanted:
        rows = [r for r in rows if r.location_id == wanted]
    return sorted(rows, key=lambda r: r.location_name)


def _prepare_weather_current(context: RenderContext) -> Any:
    rows = _weather_rows(context)
    if not rows:
        return None
    row = rows[0]
    data = {"name": row.location_name, "temp_c": row.temp_c, "description": row.description,
            "icon": context.blob_bytes(row.icon_blob_key), "observed_at_ms": row.observed_at_ms, "extra": []}
    if config_flag(context, "showAirQuality", False) and isinstance(row.air_quality_json, dict):
        aq = row.air_quality_json
        value = next((aq[k] for k in ("us_aqi", "european_aqi", "aqi", "index") if aq.get(k) is not None), None)
        if value is not None:
            data["extra"].append(f"Air quality {value}")
    if config_flag(context, "showAlerts", False) and hasattr(context.host.db, "WeatherAlert"):
        location = row.location_id
        alerts = context.host.db.WeatherAlert.select(lambda a: a.location_id == location)
        data["extra"] += [f"\u26a0 {a.headline or a.event}" for a in alerts.limit(3)]
    return data


def _unit(context: RenderContext) -> str:
    return config_text(context, "temperatureUnit") or context.temperature_unit


@renderer(prepare=_prepare_weather_current)
def weather_current(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(data["name"], context.font(72), fg, bold=True, size_hint=(0.84, 0.15),
                             pos_hint={"x": 0.08, "top": 0.92}))
    slide.add_widget(w.label(context.format_temperature(data["temp_c"], _unit(context)), context.font(240),
                             context.theme.accents[0], bold=True, size_hint=(0.5, 0.4),
                             pos_hint={"x": 0.08, "center_y": 0.48}))
    slide.add_widget(w.label(data["description"] or "", context.font(64), fg, size_hint=(0.5, 0.15),
                             pos_hint={"x": 0.08, "y": 0.14}))
    if data.get("extra"):
        slide.add_widget(w.label("\n".join(data["extra"]), context.font(36), context.theme.accents[1],
                                 size_hint=(0.84, 0.1), pos_hint={"x": 0.08, "y": 0.03}))
    texture = w.texture_from_bytes(data.get("icon"))
    if texture is not None:
        slide.add_widget(w.ImageFill(texture, size_hint=(0.3, 0.5), pos_hint={"right": 0.92, "center_y": 0.45}))
    return slide


def _prepare_forecast(context: RenderContext) -> Any:
    for row in _weather_rows(context):
        forecast = row.forecast_json
        if isinstance(forecast, dict):
            forecast = forecast.get("daily") or forecast.get("items")
        if isinstance(forecast, list) and forecast:
            days = int(config_number(context, "days", 5, 1, 10))
            return {"name": row.location_name, "days": [d for d in forecast if isinstance(d, dict)][:days]}
    return None


@renderer(prepare=_prepare_forecast)
def weather_forecast(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(data["name"], context.font(72), fg, bold=True, size_hint=(0.84, 0.15),
                             pos_hint={"x": 0.08, "top": 0.92}))
    days = data["days"] or [{}]
    width = 0.84 / len(days)
    unit = _unit(context)
    for i, day in enumerate(days):
        name = str(day.get("label") or day.get("date") or day.get("day") or f"+{i}")
        high = day.get("max_c", day.get("temp_max_c"))
        low = day.get("min_c", day.get("temp_min_c"))
        text = (f"{name}\n{context.format_temperature(high, unit)}\n{context.format_temperature(low, unit)}\n"
                f"{day.get('description', '')}")
        slide.add_widget(w.Backdrop([context.theme.primary_bg], size_hint=(width * 0.9, 0.55),
                                    pos_hint={"x": 0.08 + i * width, "y": 0.12}))
        slide.add_widget(w.label(text, context.font(40), fg, halign="center", size_hint=(width * 0.9, 0.55),
                                 pos_hint={"x": 0.08 + i * width, "y": 0.12}))
    return slide


# ---------------------------------------------------------------------------- news
def _feed_ids(context: RenderContext) -> list[str] | None:
    """The feeds a news slide reads: ``data_key``, ``feedIds`` and the feeds of ``category``
    (``None`` = every feed)."""
    feeds = config_strings(context, "feedIds")
    if isinstance(context.row.get("data_key"), str) and context.row["data_key"]:
        feeds.append(context.row["data_key"])
    category = config_text(context, "category")
    if category and hasattr(context.host.db, "RssFeed"):
        feeds += [f.id for f in context.host.db.RssFeed.select(lambda f: f.category == category)]
    elif not feeds:
        return None
    return feeds


def _articles(context: RenderContext, limit: int) -> list:
    from pony.orm import coalesce

    db = context.host.db
    query = db.RssArticle.select(lambda a: not a.suppressed)
    feeds = _feed_ids(context)
    if feeds is not None:
        query = query.filter(lambda a: a.feed_id in feeds)
    if context.config.get("maxAgeHours"):
        oldest = context.now_ms() - int(config_number(context, "maxAgeHours", 24, 1, 720)) * 3_600_000
        query = query.filter(lambda a: coalesce(a.published_at_ms, a.created_at_ms) >= oldest)
    if context.row.get("require_news_photo"):
        query = query.filter(lambda a: a.image_blob_key is not None and a.image_blob_key != "")
    rows = list(query.order_by(orm_desc(db.RssArticle.published_at_ms), orm_desc(db.RssArticle.created_at_ms))
                .limit(limit * 3))
    if context.row.get("require_news_photo"):
        rows = [r for r in rows if context.host.blobs.get(r.image_blob_key) is not None]
    return rows[:limit]


def orm_desc(value: Any) -> Any:
    from pony.orm import desc

    return desc(value)


def _prepare_headlines(context: RenderContext) -> Any:
    rows = _articles(context, int(config_number(context, "maxItems", 6, 1, 20)))
    if not rows:
        return None
    sources = {}
    if config_flag(context, "showSource", False) and hasattr(context.host.db, "RssFeed"):
        for feed in context.host.db.RssFeed.select(lambda f: f.id in [r.feed_id for r in rows]):
            sources[feed.id] = feed.title or ""
    return {"titles": [f"{r.title}  \u00b7 {sources[r.feed_id]}" if sources.get(r.feed_id) else r.title
                       for r in rows]}


@renderer(prepare=_prepare_headlines)
def news_headlines(context: RenderContext) -> Any:
    size = 48 if len(context.data["titles"]) <= 8 else 34
    return _w().text_slide(context, "Headlines", [f"\u2022 {t}" for t in context.data["titles"]], body_size=size)


def _prepare_article(context: RenderContext) -> Any:
    rows = _articles(context, 10)
    if not rows:
        return None
    row = random.choice(rows)
    return {"title": row.title, "summary": (row.summary or "") if config_flag(context, "showSummary", True) else "",
            "link": row.link if config_flag(context, "showQrLink", False) else "",
            "image": context.blob_bytes(row.image_blob_key)}


@renderer(prepare=_prepare_article)
def news_article(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    texture = w.texture_from_bytes(data.get("image"))
    slide = _article_slide(context, data, texture)
    if data.get("link"):
        side = 0.2 * context.size[1] / context.size[0]
        slide.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(side * 1.08, 0.216), pos_hint={"right": 0.985,
                                                                                             "y": 0.025}))
        slide.add_widget(w.ImageFill(qr_texture(data["link"]), size_hint=(side, 0.2),
                                     pos_hint={"right": 0.98, "y": 0.033}))
    return slide


def _article_slide(context: RenderContext, data: dict, texture: Any) -> Any:
    w = _w()
    if texture is None:
        return w.text_slide(context, data["title"], [data["summary"][:600]], body_size=44)
    slide = w.themed_slide(context)
    slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(0.45, 1), pos_hint={"x": 0, "y": 0}))
    fg = context.theme.text
    slide.add_widget(w.label(data["title"], context.font(64), fg, bold=True, valign="top", size_hint=(0.47, 0.35),
                             pos_hint={"x": 0.5, "top": 0.94}))
    slide.add_widget(w.label(data["summary"][:500], context.font(38), fg, valign="top", size_hint=(0.47, 0.52),
                             pos_hint={"x": 0.5, "top": 0.56}))
    return slide


# ---------------------------------------------------------------------------- photo, video
def _random_media(context: RenderContext, entity: Any, config_key: str = "category") -> Any:
    query = entity.select(lambda p: not p.suppressed)
    category = _key(context, config_key)
    if category:
        query = query.filter(lambda p: p.category_id == category)
    rows = list(query.order_by(orm_desc(entity.created_at_ms)).limit(50))
    random.shuffle(rows)
    return rows


def _prepare_photo(context: RenderContext) -> Any:
    for row in _random_media(context, context.host.db.Photo)[:5]:
        data = context.blob_bytes(row.media_blob_key)
        if data:
            attribution = config_flag(context, "showAttribution", True)
            return {"image": data, "caption": row.alt_text if attribution else "",
                    "credit": row.photographer_name if attribution else ""}
    return None


@renderer(prepare=_prepare_photo)
def photo(context: RenderContext) -> Any:
    w = _w()
    texture = w.texture_from_bytes(context.data["image"])
    if texture is None:
        raise ValueError("photo blob is not a decodable image")
    slide = w.themed_slide(context, [(0, 0, 0, 1)])
    image = w.ImageFill(texture, mode=config_text(context, "fit", "cover"), size_hint=(1, 1),
                        pos_hint={"center_x": 0.5, "center_y": 0.5})
    slide.add_widget(image)
    if config_flag(context, "kenBurns", False):
        slide.animate(_KenBurns(image))
    caption = " \u2014 ".join(p for p in (context.data["caption"], context.data["credit"]) if p)
    if caption:
        slide.add_widget(w.Backdrop([(0, 0, 0, 0.5)], size_hint=(1, 0.09), pos_hint={"x": 0, "y": 0}))
        slide.add_widget(w.label(caption, context.font(34), (1, 1, 1, 1), size_hint=(0.94, 0.09),
                                 pos_hint={"x": 0.03, "y": 0}))
    return slide


class _KenBurns:
    """A slow zoom: the image grows by 12 % over 20 seconds, then holds."""

    def __init__(self, image: Any):
        self.image, self.t = image, 0.0

    def tick(self, dt: float) -> None:
        self.t = min(20.0, self.t + dt)
        scale = 1 + 0.12 * self.t / 20.0
        self.image.size_hint = (scale, scale)


def _prepare_video(context: RenderContext) -> Any:
    """The newest videos of the category, shuffled; the first whose blob file exists."""
    attribution = config_flag(context, "showAttribution", True)
    max_seconds = config_number(context, "maxDurationSeconds", 3600, 1, 3600)
    for row in _random_media(context, context.host.db.Video)[:5]:
        blob = context.host.blobs.get(row.media_blob_key) if row.media_blob_key else None
        if blob is None or not blob.path.is_file():
            continue
        duration = min(float(row.duration_seconds), max_seconds) if row.duration_seconds else max_seconds
        return {"path": str(blob.path), "title": row.alt_text or "Video",
                "credit": row.photographer_name if attribution else "",
                "provider": row.data_provider if attribution else "",
                "duration": duration, "max_seconds": max_seconds, "muted": config_flag(context, "muted", True)}
    return None


class _PlayPulse:
    def __init__(self, color_instruction: Any):
        self.color, self.t = color_instruction, 0.0

    def tick(self, dt: float) -> None:
        import math

        self.t += dt
        self.color.a = 0.6 + 0.4 * math.sin(self.t * 3)


def _poster(context: RenderContext) -> Any:
    """Without a video provider: a poster naming the video, with a pulsing play mark."""
    from kivy.graphics import Color, Triangle

    w = _w()
    data = context.data
    slide = w.text_slide(context, data["title"],
                         [f"{data['credit']}".strip(),
                          " \u00b7 ".join(p for p in (f"{int(data['duration'])} s", data["provider"],
                                                        "muted" if data["muted"] else "") if p)])
    width, height = context.size
    with slide.canvas:
        color = Color(*context.theme.accents[1])
        cx, cy, r = width * 0.8, height * 0.3, height * 0.12
        Triangle(points=[cx - r * 0.6, cy - r, cx - r * 0.6, cy + r, cx + r, cy])
    slide.animate(_PlayPulse(color))
    return slide


@renderer(prepare=_prepare_video)
def video(context: RenderContext) -> Any:
    """The video itself (Kivy's ffpyplayer provider), muted unless ``muted`` is false,
    looping while the slide is shown and stopped after ``maxDurationSeconds``; a poster
    when no video provider is installed."""
    w = _w()
    data = context.data
    if not w.video_playback_available():
        return _poster(context)
    slide = w.themed_slide(context, [(0, 0, 0, 1)])
    player = w.VideoFill(data["path"], muted=data["muted"], max_seconds=data["max_seconds"],
                         size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    slide.add_widget(player)
    slide.animate(player)
    slide.on_dispose(player.dispose)
    caption = " \u2014 ".join(p for p in (data["credit"], data["provider"]) if p)
    if caption:
        slide.add_widget(w.Backdrop([(0, 0, 0, 0.5)], size_hint=(1, 0.07), pos_hint={"x": 0, "y": 0}))
        slide.add_widget(w.label(caption, context.font(28), (1, 1, 1, 1), size_hint=(0.94, 0.07),
                                 pos_hint={"x": 0.03, "y": 0}))
    return slide


# ---------------------------------------------------------------------------- joke, trivia
def _prepare_joke(context: RenderContext) -> Any:
    rows = _random_media(context, context.host.db.Joke, "categoryId")
    if not rows:
        return None
    return {"setup": rows[0].setup, "punchline": rows[0].punchline}


class _Delayed:
    """Sets ``label.text`` to ``text`` once ``after`` seconds have passed."""

    def __init__(self, label: Any, text: str, after: float):
        self.label, self.text, self.after, self.t = label, text, after, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.after and self.label.text != self.text:
            self.label.text = self.text


@renderer(prepare=_prepare_joke)
def joke(context: RenderContext) -> Any:
    """The punchline appears after ``revealDelaySeconds`` (default: half the dwell)."""
    w = _w()
    slide = w.text_slide(context, "Joke", [context.data["setup"]], body_size=60)
    punchline = w.label("", context.font(60), context.theme.accents[0], bold=True, valign="top",
                        size_hint=(0.84, None), pos_hint={"x": 0.08, "top": 0.36})
    slide.add_widget(punchline)
    delay = config_number(context, "revealDelaySeconds", float(context.row.get("dwell_seconds") or 10) / 2, 0, 120)
    slide.animate(_Delayed(punchline, context.data["punchline"], delay))
    return slide


def _prepare_trivia(context: RenderContext) -> Any:
    rows = _random_media(context, context.host.db.TriviaQuestion, "categoryId")
    if not rows:
        return None
    row = rows[0]
    return {"question": row.question, "options": [row.option_a, row.option_b, row.option_c, row.option_d],
            "correct": row.correct_option}


class _Reveal:
    def __init__(self, labels: list, correct: int, after: float, color: Any):
        self.labels, self.correct, self.after, self.color, self.t = labels, correct, after, color, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.after and 0 <= self.correct < len(self.labels):
            self.labels[self.correct].color = self.color
            self.after = float("inf")


@renderer(prepare=_prepare_trivia)
def trivia(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(data["question"], context.font(60), fg, bold=True, valign="top",
                             size_hint=(0.84, 0.3), pos_hint={"x": 0.08, "top": 0.92}))
    labels = []
    show_options = config_flag(context, "showOptions", True)
    for i, option in enumerate(data["options"]):
        if not option:
            continue
        if not show_options:  # the question alone; the right answer appears after the delay
            if "ABCD"[i] == data["correct"]:
                item = w.label("", context.font(56), GREEN, bold=True, size_hint=(0.84, 0.12),
                               pos_hint={"x": 0.1, "top": 0.5})
                slide.add_widget(item)
                slide.animate(_Delayed(item, option, _answer_delay(context)))
            continue
        item = w.label(f"{'ABCD'[i]}.  {option}", context.font(50), fg, size_hint=(0.84, 0.1),
                       pos_hint={"x": 0.1, "top": 0.58 - i * 0.12})
        labels.append(item)
        slide.add_widget(item)
    if show_options:
        slide.animate(_Reveal(labels, "ABCD".find(data["correct"] or "?"), _answer_delay(context), GREEN))
    return slide


def _answer_delay(context: RenderContext) -> float:
    dwell = float(context.row.get("dwell_seconds") or 15)
    return config_number(context, "answerDelaySeconds", dwell * 0.6, 1, 300)


# ---------------------------------------------------------------------------- stocks
def _prepare_stocks(context: RenderContext) -> Any:
    db = context.host.db
    rows = list(db.StockQuote.select())
    wanted = [s.upper() for s in config_strings(context, "symbols")]
    if context.row.get("data_key"):
        wanted.append(str(context.row["data_key"]).upper())
    category = config_text(context, "category")
    if category and hasattr(db, "StockSymbol"):
        in_category = {s.id for s in db.StockSymbol.select(lambda s: s.category == category)}
        rows = [r for r in rows if r.symbol_id in in_category]
    if wanted:
        rank = {symbol: i for i, symbol in enumerate(wanted)}
        rows = [r for r in rows if r.symbol.upper() in rank or r.symbol_id.upper() in rank]
        rows.sort(key=lambda r: rank.get(r.symbol.upper(), rank.get(r.symbol_id.upper(), 0)))
    else:
        rows.sort(key=lambda r: r.symbol)
    if not rows:
        return None
    return [{"symbol": r.symbol, "name": r.display_name, "price": r.price, "change": r.change,
             "pct": r.change_percent, "currency": r.currency} for r in rows[:8]]


@renderer(prepare=_prepare_stocks)
def stock_quotes(context: RenderContext) -> Any:
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    show_change = config_flag(context, "showChange", True)
    slide.add_widget(w.label("Markets", context.font(72), fg, bold=True,
                             size_hint=(0.84, 0.14), pos_hint={"x": 0.08, "top": 0.94}))
    for i, q in enumerate(context.data):
        top = 0.78 - i * 0.09
        change = q["change"] or 0.0
        pct = f" ({q['pct']:+.2f}%)" if q["pct"] is not None else ""
        slide.add_widget(w.label(f"{q['symbol']}  {q['name']}", context.font(44), fg, size_hint=(0.5, 0.08),
                                 pos_hint={"x": 0.08, "top": top}))
        slide.add_widget(w.label(f"{q['price']:.2f} {q['currency']}", context.font(44), fg, halign="right",
                                 size_hint=(0.18, 0.08), pos_hint={"x": 0.56, "top": top}))
        if show_change:
            slide.add_widget(w.label(f"{change:+.2f}{pct}", context.font(44), GREEN if change >= 0 else RED,
                                     halign="right", size_hint=(0.18, 0.08), pos_hint={"x": 0.74, "top": top}))
    return slide


# ---------------------------------------------------------------------------- calendar, tasks
def _events(context: RenderContext, start_ms: int, end_ms: int, limit: int, key: str = "categoryIds") -> list:
    """Events overlapping [start, end): of the categories in config ``key`` (and ``data_key``)."""
    db = context.host.db
    query = db.CalendarEvent.select(lambda e: e.end_ms >= start_ms and e.start_ms < end_ms)
    categories = set(config_strings(context, key))
    if context.row.get("data_key"):
        categories.add(context.row["data_key"])
    rows = list(query.order_by(lambda e: e.start_ms))
    if categories:
        rows = [e for e in rows
                if e.category_id in categories or any(c.category_id in categories for c in e.categories)]
    return rows[:limit]


def _prepare_agenda(context: RenderContext, keys: tuple[str, str, str, str] = ("daysAhead", "maxEvents",
                                                                             "categoryIds", "showLocation")) -> Any:
    """Upcoming events; ``keys`` names the config keys (days ahead, max events, categories,
    show location) so the calendar_upcoming overlay shares this with its snake_case keys."""
    now = context.now_ms()
    days = int(config_number(context, keys[0], 14, 1, 60))
    rows = _events(context, now, now + days * 86_400_000, int(config_number(context, keys[1], 8, 1, 50)), keys[2])
    if not rows:
        return None
    show_location = config_flag(context, keys[3], True)
    return [{"title": e.title, "start_ms": e.start_ms, "all_day": e.all_day,
             "location": e.location if show_location else ""} for e in rows]


def _event_line(context: RenderContext, event: dict) -> str:
    start = dt.datetime.fromtimestamp(event["start_ms"] / 1000, context.tzinfo())
    when = context.format_date(start) + ("" if event["all_day"] else "  " + context.format_time(start))
    where = f"  \u00b7 {event['location']}" if event.get("location") else ""
    return f"{when}   {event['title']}{where}"


@renderer(prepare=_prepare_agenda)
def calendar_agenda(context: RenderContext) -> Any:
    size = 46 if len(context.data) <= 8 else 32
    return _w().text_slide(context, "Coming up", [_event_line(context, e) for e in context.data], body_size=size)


def _prepare_month(context: RenderContext, key: str = "categoryIds") -> Any:
    today = context.now().date()
    first = dt.datetime(today.year, today.month, 1, tzinfo=context.tzinfo())
    last_day = calendar.monthrange(today.year, today.month)[1]
    end = first + dt.timedelta(days=last_day)
    rows = _events(context, int(first.timestamp() * 1000), int(end.timestamp() * 1000), 1000, key)
    marked = set()
    for e in rows:
        day = dt.datetime.fromtimestamp(e.start_ms / 1000, context.tzinfo()).date()
        if day.month == today.month:
            marked.add(day.day)
    return {"year": today.year, "month": today.month, "today": today.day, "marked": sorted(marked)}


def month_grid(context: RenderContext, data: dict, font_px: float, week_starts_on: str = "monday",
               highlight_today: bool = True) -> Any:
    """A month calendar widget (also used by the calendar overlay)."""
    from kivy.uix.gridlayout import GridLayout

    w = _w()
    grid = GridLayout(cols=7, spacing=2)
    fg = context.theme.text
    first = 6 if week_starts_on == "sunday" else 0
    names = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")
    for name in names[first:] + names[:first]:
        grid.add_widget(w.label(name, context.font(font_px), context.theme.accents[1], bold=True, halign="center"))
    weeks = calendar.Calendar(firstweekday=first).monthdayscalendar(data["year"], data["month"])
    for week in weeks:
        for day in week:
            if highlight_today and day == data["today"]:
                cell = w.Slide()
                cell.add_widget(w.Backdrop([context.theme.accents[0]], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
                cell.add_widget(w.label(str(day), context.font(font_px), context.theme.secondary_fg, bold=True,
                                        halign="center", size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
                grid.add_widget(cell)
            else:
                color = context.theme.accents[2] if day in data["marked"] else fg
                grid.add_widget(w.label(str(day) if day else "", context.font(font_px), color,
                                        bold=day in data["marked"], halign="center"))
    return grid


@renderer(prepare=_prepare_month)
def calendar_month(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    title = dt.date(data["year"], data["month"], 1).strftime("%B %Y")
    slide.add_widget(w.label(title, context.font(72), context.theme.text, bold=True, size_hint=(0.84, 0.13),
                             pos_hint={"x": 0.08, "top": 0.95}))
    grid = month_grid(context, data, 48, config_text(context, "weekStartsOn", "monday"),
                      config_flag(context, "highlightToday", True))
    grid.size_hint = (0.84, 0.74)
    grid.pos_hint = {"x": 0.08, "y": 0.05}
    slide.add_widget(grid)
    return slide


def _prepare_tasks(context: RenderContext) -> Any:
    board = config_text(context, "boardKey") or context.row.get("data_key")
    if not board:
        return None
    rows = list(context.host.db.Task.select(lambda t: t.board_key == board))
    if not config_flag(context, "showCompleted", False):
        rows = [t for t in rows if not t.completed]
    if not rows:
        return None
    rows.sort(key=lambda t: (t.completed, t.due_at_ms or 2 ** 62, t.title))
    return [{"title": t.title, "list": t.list_label, "done": t.completed}
            for t in rows[:int(config_number(context, "maxTasks", 10, 1, 100))]]


@renderer(prepare=_prepare_tasks)
def task_board(context: RenderContext) -> Any:
    done, todo = "\u2611", "\u2610"
    lines = [f"{done if t['done'] else todo}  {t['title']}" + (f"  ({t['list']})" if t["list"] else "")
             for t in context.data]
    size = 46 if len(lines) <= 10 else max(20, 46 * 10 / len(lines))
    return _w().text_slide(context, config_text(context, "title", "Tasks"), lines, body_size=size)


# ---------------------------------------------------------------------------- alerts screen
def _prepare_alerts(context: RenderContext) -> Any:
    from builtin_plugins.display_program.source import program_source

    alerts = (program_source(context.host).snapshot() or {}).get("alerts") or []
    rank = {name: i for i, name in enumerate(ALERT_SEVERITIES)}
    least = rank.get(config_text(context, "minSeverity", "info"), 0)
    sources = set(config_strings(context, "sources"))
    alerts = [a for a in alerts if rank.get(a.get("severity"), 0) >= least
              and (not sources or a.get("source") in sources)]
    alerts.sort(key=lambda a: (-rank.get(a.get("severity"), 0), -(a.get("priority") or 0)))
    if not alerts:
        return None
    return [{"title": a.get("title", ""), "body": a.get("body", ""), "severity": a.get("severity", "")}
            for a in alerts[:int(config_number(context, "maxAlerts", 6, 1, 20))]]


@renderer(prepare=_prepare_alerts)
def alerts(context: RenderContext) -> Any:
    lines = [f"[{a['severity']}] {a['title']}: {a['body']}" if a["severity"] else f"{a['title']}: {a['body']}"
             for a in context.data]
    size = 44 if len(lines) <= 6 else 30
    return _w().text_slide(context, "Alerts", lines, accent=RED, body_size=size)


# ---------------------------------------------------------------------------- QR, invite, plugin
def qr_texture(payload: str, fg: Any = (0, 0, 0, 1), bg: Any = (1, 1, 1, 1)) -> Any:
    import qrcode

    def rgb(color: Any) -> tuple[int, int, int]:
        return tuple(int(c * 255) for c in color[:3])  # type: ignore[return-value]

    code = qrcode.QRCode(border=2, box_size=8, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(payload)
    code.make(fit=True)
    image = code.make_image(fill_color=rgb(fg), back_color=rgb(bg)).get_image()
    texture = _w().texture_from_pil(image)
    texture.mag_filter = "nearest"
    return texture


def _qr_slide(context: RenderContext, payload: str, title: str, caption: str,
             fg: Any = (0, 0, 0, 1), bg: Any = (1, 1, 1, 1)) -> Any:
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(title, context.font(72), fg, bold=True, valign="top", size_hint=(0.45, 0.3),
                             pos_hint={"x": 0.06, "top": 0.9}))
    slide.add_widget(w.label(caption, context.font(40), context.theme.accents[0], valign="top",
                             size_hint=(0.45, 0.4), pos_hint={"x": 0.06, "top": 0.55}))
    slide.add_widget(w.Backdrop([bg], size_hint=(0.4, 0.8), pos_hint={"right": 0.95, "center_y": 0.5}))
    slide.add_widget(w.ImageFill(qr_texture(payload, fg, bg), size_hint=(0.38, 0.76), pos_hint={"right": 0.94,
                                                                                                "center_y": 0.5}))
    return slide


def qr_code(context: RenderContext) -> Any:
    payload = config_text(context, "payload")
    if not payload:
        raise ValueError("qr_code needs config_json.payload")
    fg = parse_color(config_text(context, "foreground"), (0, 0, 0, 1))
    bg = parse_color(config_text(context, "background"), (1, 1, 1, 1))
    return _qr_slide(context, payload, config_text(context, "caption", "Scan me"), payload, fg, bg)


def _prepare_invite(context: RenderContext) -> Any:
    url = config_text(context, "urlOverride") or (context.host.settings.controller_public_url or "")
    return {"url": url} if url else None


@renderer(prepare=_prepare_invite)
def controller_invite(context: RenderContext) -> Any:
    url = context.data["url"]
    caption = f"Open {url} on your phone" if config_flag(context, "showUrl", True) else "Scan with your phone"
    return _qr_slide(context, url, config_text(context, "headline", "Control this display"), caption)


def template_lines(data: Any) -> tuple[str, list[str]]:
    """(title, lines) of a plugin template's ``data``: ``title`` (or ``headline``) and
    ``body``/``text``/``lines`` when present, else every scalar as ``key: value``."""
    data = data if isinstance(data, dict) else {}
    title = next((str(data[k]) for k in ("title", "headline") if isinstance(data.get(k), (str, int, float))), "")
    lines = [str(data[k]) for k in ("body", "text") if isinstance(data.get(k), (str, int, float))]
    if isinstance(data.get("lines"), list):
        lines += [str(line) for line in data["lines"] if isinstance(line, (str, int, float))]
    if not lines:
        lines = [f"{k}: {v}" for k, v in data.items()
                 if k not in ("title", "headline") and isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    return title, lines[:20]


def _prepare_template(context: RenderContext) -> Any:
    return {"background": context.blob_bytes(config_text(context, "backgroundBlobKey") or None)}


@renderer(prepare=_prepare_template)
def plugin_template(context: RenderContext) -> Any:
    """The template's ``data`` as a text slide over ``backgroundBlobKey`` (when it decodes).
    A plugin that wants its own drawing registers its own screen type."""
    w = _w()
    title, lines = template_lines(context.config.get("data"))
    slide = w.text_slide(context, title or context.row.get("name") or config_text(context, "template"), lines)
    texture = w.texture_from_bytes((context.data or {}).get("background"))
    if texture is not None:
        slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(1, 1), pos_hint={"x": 0, "y": 0}), index=len(
            slide.children) - 1)
    return slide


RENDERERS = {
    "message": message,
    "clock": clock,
    "weather_current": weather_current,
    "weather_forecast": weather_forecast,
    "news_headlines": news_headlines,
    "news_article": news_article,
    "photo": photo,
    "video": video,
    "joke": joke,
    "trivia": trivia,
    "stock_quotes": stock_quotes,
    "calendar_agenda": calendar_agenda,
    "calendar_month": calendar_month,
    "task_board": task_board,
    "alerts": alerts,
    "qr_code": qr_code,
    "controller_invite": controller_invite,
    "plugin_template": plugin_template,
}
