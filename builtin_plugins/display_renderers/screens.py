"""Renderers of the builtin screen (slide) types. Interface: :mod:`.base`.

Content comes from the shared catalog tables (``host.db.RssArticle``, ...) in each
renderer's ``prepare`` step; a slide with no content returns ``None`` there and is
skipped. ``data_key`` (spec 2.6) narrows the content where a type has a natural key:
weather (location id), news (feed id), photo/video/joke/trivia (category id), stocks
(symbol), calendar (category id), task board (board key).

Config keys read (all optional unless noted): message ``text``/``title``/
``background_color``/``text_color``; clock ``timeZone``/``showSeconds``/``label``;
weather ``locationId``/``temperatureUnit``; news ``feedId``/``count``; photo/video
``category``; joke/trivia ``category``; stock_quotes ``symbols``; calendar ``category``/
``days``; task_board ``boardKey`` (required for content); qr_code ``payload``/``title``;
controller_invite ``url`` (default ``SVC_DISPLAY_CONTROLLER_PUBLIC_URL``);
plugin_template ``title``/``body``/``background_color``/``text_color``.
"""
from __future__ import annotations

import calendar
import datetime as dt
import random
from typing import Any

from builtin_plugins.display_renderers.base import (
    RenderContext,
    config_list,
    config_number,
    config_text,
    renderer,
)
from builtin_plugins.display_renderers.theme import parse_color

RED = (0.9, 0.25, 0.25, 1.0)
GREEN = (0.2, 0.8, 0.4, 1.0)


def _w():
    from builtin_plugins.display_renderers import widgets

    return widgets


def _key(context: RenderContext, config_key: str) -> str | None:
    value = context.row.get("data_key") or context.config.get(config_key)
    return value if isinstance(value, str) and value else None


def _background(context: RenderContext, key: str = "background_color") -> list | None:
    value = context.config.get(key)
    return [parse_color(value)] if isinstance(value, str) else None


def _text_color(context: RenderContext) -> Any:
    value = context.config.get("text_color")
    return parse_color(value) if isinstance(value, str) else None


# ---------------------------------------------------------------------------- message
def message(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title", context.row.get("name") or ""),
                           [config_text(context, "text", config_text(context, "message", ""))],
                           body_size=72, background=_background(context), text_color=_text_color(context))


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
        text = context.format_time(now, seconds=bool(context.config.get("showSeconds", True)))
        if text != self.shown:
            self.shown = text
            self.time_label.text = text
            self.date_label.text = f"{now.strftime('%A')}  {context.format_date(now)}"


def clock(context: RenderContext) -> Any:
    w = _w()
    slide = w.themed_slide(context, _background(context))
    fg = _text_color(context) or context.theme.text
    time_label = w.label("", context.font(220), fg, bold=True, halign="center", size_hint=(1, 0.4),
                         pos_hint={"x": 0, "center_y": 0.58})
    date_label = w.label("", context.font(64), context.theme.accents[0], halign="center", size_hint=(1, 0.15),
                         pos_hint={"x": 0, "center_y": 0.3})
    title = config_text(context, "label")
    if title:
        slide.add_widget(w.label(title, context.font(56), fg, halign="center", size_hint=(1, 0.12),
                                 pos_hint={"x": 0, "top": 0.95}))
    slide.add_widget(time_label)
    slide.add_widget(date_label)
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
    return {"name": row.location_name, "temp_c": row.temp_c, "description": row.description,
            "icon": context.blob_bytes(row.icon_blob_key), "observed_at_ms": row.observed_at_ms}


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
                             pos_hint={"x": 0.08, "y": 0.1}))
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
            return {"name": row.location_name, "days": [d for d in forecast if isinstance(d, dict)][:7]}
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
def _articles(context: RenderContext, limit: int) -> list:
    db = context.host.db
    query = db.RssArticle.select(lambda a: not a.suppressed)
    feed = _key(context, "feedId")
    if feed:
        query = query.filter(lambda a: a.feed_id == feed)
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
    rows = _articles(context, int(config_number(context, "count", 6, 1, 12)))
    if not rows:
        return None
    return {"titles": [r.title for r in rows]}


@renderer(prepare=_prepare_headlines)
def news_headlines(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title", "Headlines"),
                           [f"\u2022 {t}" for t in context.data["titles"]], body_size=48)


def _prepare_article(context: RenderContext) -> Any:
    rows = _articles(context, 10)
    if not rows:
        return None
    row = random.choice(rows)
    return {"title": row.title, "summary": row.summary or "", "image": context.blob_bytes(row.image_blob_key)}


@renderer(prepare=_prepare_article)
def news_article(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    texture = w.texture_from_bytes(data.get("image"))
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
def _random_media(context: RenderContext, entity: Any) -> Any:
    query = entity.select(lambda p: not p.suppressed)
    category = _key(context, "category")
    if category:
        query = query.filter(lambda p: p.category_id == category)
    rows = list(query.order_by(orm_desc(entity.created_at_ms)).limit(50))
    random.shuffle(rows)
    return rows


def _prepare_photo(context: RenderContext) -> Any:
    for row in _random_media(context, context.host.db.Photo)[:5]:
        data = context.blob_bytes(row.media_blob_key)
        if data:
            return {"image": data, "caption": row.alt_text, "credit": row.photographer_name}
    return None


@renderer(prepare=_prepare_photo)
def photo(context: RenderContext) -> Any:
    w = _w()
    texture = w.texture_from_bytes(context.data["image"])
    if texture is None:
        raise ValueError("photo blob is not a decodable image")
    slide = w.themed_slide(context, [(0, 0, 0, 1)])
    slide.add_widget(w.ImageFill(texture, mode=config_text(context, "fit", "cover"), size_hint=(1, 1),
                                 pos_hint={"x": 0, "y": 0}))
    caption = " \u2014 ".join(p for p in (context.data["caption"], context.data["credit"]) if p)
    if caption:
        slide.add_widget(w.Backdrop([(0, 0, 0, 0.5)], size_hint=(1, 0.09), pos_hint={"x": 0, "y": 0}))
        slide.add_widget(w.label(caption, context.font(34), (1, 1, 1, 1), size_hint=(0.94, 0.09),
                                 pos_hint={"x": 0.03, "y": 0}))
    return slide


def _prepare_video(context: RenderContext) -> Any:
    rows = _random_media(context, context.host.db.Video)
    if not rows:
        return None
    row = rows[0]
    return {"title": row.alt_text or "Video", "credit": row.photographer_name,
            "duration": row.duration_seconds, "provider": row.data_provider}


class _PlayPulse:
    def __init__(self, color_instruction: Any):
        self.color, self.t = color_instruction, 0.0

    def tick(self, dt: float) -> None:
        import math

        self.t += dt
        self.color.a = 0.6 + 0.4 * math.sin(self.t * 3)


@renderer(prepare=_prepare_video)
def video(context: RenderContext) -> Any:
    """A poster slide: playback needs a Kivy video provider, which this build does not ship."""
    from kivy.graphics import Color, Triangle

    w = _w()
    data = context.data
    slide = w.text_slide(context, data["title"],
                         [f"{data['credit']}".strip(), f"{int(data['duration'])} s \u00b7 {data['provider']}"])
    width, height = context.size
    with slide.canvas:
        color = Color(*context.theme.accents[1])
        cx, cy, r = width * 0.8, height * 0.3, height * 0.12
        Triangle(points=[cx - r * 0.6, cy - r, cx - r * 0.6, cy + r, cx + r, cy])
    slide.animate(_PlayPulse(color))
    return slide


# ---------------------------------------------------------------------------- joke, trivia
def _prepare_joke(context: RenderContext) -> Any:
    rows = _random_media(context, context.host.db.Joke)
    if not rows:
        return None
    return {"setup": rows[0].setup, "punchline": rows[0].punchline}


@renderer(prepare=_prepare_joke)
def joke(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title", "Joke"),
                           [context.data["setup"], "", context.data["punchline"]], body_size=60)


def _prepare_trivia(context: RenderContext) -> Any:
    rows = _random_media(context, context.host.db.TriviaQuestion)
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
    for i, option in enumerate(data["options"]):
        if not option:
            continue
        item = w.label(f"{'ABCD'[i]}.  {option}", context.font(50), fg, size_hint=(0.84, 0.1),
                       pos_hint={"x": 0.1, "top": 0.58 - i * 0.12})
        labels.append(item)
        slide.add_widget(item)
    dwell = float(context.row.get("dwell_seconds") or 15)
    slide.animate(_Reveal(labels, "ABCD".find(data["correct"] or "?"), dwell * 0.6, GREEN))
    return slide


# ---------------------------------------------------------------------------- stocks
def _prepare_stocks(context: RenderContext) -> Any:
    rows = list(context.host.db.StockQuote.select())
    wanted = config_list(context, "symbols") or ([context.row["data_key"]] if context.row.get("data_key") else [])
    if wanted:
        rows = [r for r in rows if r.symbol in wanted or r.symbol_id in wanted]
    if not rows:
        return None
    return [{"symbol": r.symbol, "name": r.display_name, "price": r.price, "change": r.change,
             "pct": r.change_percent, "currency": r.currency} for r in sorted(rows, key=lambda r: r.symbol)[:8]]


@renderer(prepare=_prepare_stocks)
def stock_quotes(context: RenderContext) -> Any:
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(config_text(context, "title", "Markets"), context.font(72), fg, bold=True,
                             size_hint=(0.84, 0.14), pos_hint={"x": 0.08, "top": 0.94}))
    for i, q in enumerate(context.data):
        top = 0.78 - i * 0.09
        change = q["change"] or 0.0
        pct = f" ({q['pct']:+.2f}%)" if q["pct"] is not None else ""
        slide.add_widget(w.label(f"{q['symbol']}  {q['name']}", context.font(44), fg, size_hint=(0.5, 0.08),
                                 pos_hint={"x": 0.08, "top": top}))
        slide.add_widget(w.label(f"{q['price']:.2f} {q['currency']}", context.font(44), fg, halign="right",
                                 size_hint=(0.18, 0.08), pos_hint={"x": 0.56, "top": top}))
        slide.add_widget(w.label(f"{change:+.2f}{pct}", context.font(44), GREEN if change >= 0 else RED,
                                 halign="right", size_hint=(0.18, 0.08), pos_hint={"x": 0.74, "top": top}))
    return slide


# ---------------------------------------------------------------------------- calendar, tasks
def _events(context: RenderContext, start_ms: int, end_ms: int, limit: int) -> list:
    db = context.host.db
    query = db.CalendarEvent.select(lambda e: e.end_ms >= start_ms and e.start_ms < end_ms)
    category = _key(context, "category")
    rows = list(query.order_by(lambda e: e.start_ms).limit(limit * 4))
    if category:
        rows = [e for e in rows if e.category_id == category or any(c.category_id == category for c in e.categories)]
    return rows[:limit]


def _prepare_agenda(context: RenderContext) -> Any:
    now = context.now_ms()
    days = int(config_number(context, "days", 14, 1, 366))
    rows = _events(context, now, now + days * 86_400_000, 8)
    if not rows:
        return None
    return [{"title": e.title, "start_ms": e.start_ms, "all_day": e.all_day, "location": e.location} for e in rows]


def _event_line(context: RenderContext, event: dict) -> str:
    start = dt.datetime.fromtimestamp(event["start_ms"] / 1000, context.tzinfo())
    when = context.format_date(start) + ("" if event["all_day"] else "  " + context.format_time(start))
    where = f"  \u00b7 {event['location']}" if event.get("location") else ""
    return f"{when}   {event['title']}{where}"


@renderer(prepare=_prepare_agenda)
def calendar_agenda(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title", "Coming up"),
                           [_event_line(context, e) for e in context.data], body_size=46)


def _prepare_month(context: RenderContext) -> Any:
    today = context.now().date()
    first = dt.datetime(today.year, today.month, 1, tzinfo=context.tzinfo())
    last_day = calendar.monthrange(today.year, today.month)[1]
    end = first + dt.timedelta(days=last_day)
    rows = _events(context, int(first.timestamp() * 1000), int(end.timestamp() * 1000), 200)
    marked = set()
    for e in rows:
        day = dt.datetime.fromtimestamp(e.start_ms / 1000, context.tzinfo()).date()
        if day.month == today.month:
            marked.add(day.day)
    return {"year": today.year, "month": today.month, "today": today.day, "marked": sorted(marked)}


def month_grid(context: RenderContext, data: dict, font_px: float) -> Any:
    """A month calendar widget (also used by the calendar overlay)."""
    from kivy.uix.gridlayout import GridLayout

    w = _w()
    grid = GridLayout(cols=7, spacing=2)
    fg = context.theme.text
    for name in ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"):
        grid.add_widget(w.label(name, context.font(font_px), context.theme.accents[1], bold=True, halign="center"))
    weeks = calendar.Calendar(firstweekday=0).monthdayscalendar(data["year"], data["month"])
    for week in weeks:
        for day in week:
            if day == data["today"]:
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
    grid = month_grid(context, data, 48)
    grid.size_hint = (0.84, 0.74)
    grid.pos_hint = {"x": 0.08, "y": 0.05}
    slide.add_widget(grid)
    return slide


def _prepare_tasks(context: RenderContext) -> Any:
    board = config_text(context, "boardKey") or context.row.get("data_key")
    if not board:
        return None
    rows = list(context.host.db.Task.select(lambda t: t.board_key == board))
    if not rows:
        return None
    rows.sort(key=lambda t: (t.completed, t.due_at_ms or 2 ** 62, t.title))
    return [{"title": t.title, "list": t.list_label, "done": t.completed} for t in rows[:10]]


@renderer(prepare=_prepare_tasks)
def task_board(context: RenderContext) -> Any:
    done, todo = "\u2611", "\u2610"
    lines = [f"{done if t['done'] else todo}  {t['title']}" + (f"  ({t['list']})" if t["list"] else "")
             for t in context.data]
    return _w().text_slide(context, config_text(context, "title", "Tasks"), lines, body_size=46)


# ---------------------------------------------------------------------------- alerts screen
def _prepare_alerts(context: RenderContext) -> Any:
    from builtin_plugins.display_program.source import program_source

    alerts = (program_source(context.host).snapshot() or {}).get("alerts") or []
    if not alerts:
        return None
    return [{"title": a.get("title", ""), "body": a.get("body", ""), "severity": a.get("severity", "")}
            for a in alerts[:6]]


@renderer(prepare=_prepare_alerts)
def alerts(context: RenderContext) -> Any:
    lines = [f"[{a['severity']}] {a['title']}: {a['body']}" if a["severity"] else f"{a['title']}: {a['body']}"
             for a in context.data]
    return _w().text_slide(context, config_text(context, "title", "Alerts"), lines, accent=RED, body_size=44)


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


def _qr_slide(context: RenderContext, payload: str, title: str, caption: str) -> Any:
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(title, context.font(72), fg, bold=True, valign="top", size_hint=(0.45, 0.3),
                             pos_hint={"x": 0.06, "top": 0.9}))
    slide.add_widget(w.label(caption, context.font(40), context.theme.accents[0], valign="top",
                             size_hint=(0.45, 0.4), pos_hint={"x": 0.06, "top": 0.55}))
    slide.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(0.4, 0.8), pos_hint={"right": 0.95, "center_y": 0.5}))
    slide.add_widget(w.ImageFill(qr_texture(payload), size_hint=(0.38, 0.76), pos_hint={"right": 0.94,
                                                                                        "center_y": 0.5}))
    return slide


def qr_code(context: RenderContext) -> Any:
    payload = config_text(context, "payload") or config_text(context, "url")
    if not payload:
        raise ValueError("qr_code needs config_json.payload")
    return _qr_slide(context, payload, config_text(context, "title", "Scan me"), config_text(context, "caption",
                                                                                              payload))


def _prepare_invite(context: RenderContext) -> Any:
    url = config_text(context, "url") or (context.host.settings.controller_public_url or "")
    return {"url": url} if url else None


@renderer(prepare=_prepare_invite)
def controller_invite(context: RenderContext) -> Any:
    url = context.data["url"]
    return _qr_slide(context, url, config_text(context, "title", "Control this display"),
                     config_text(context, "caption", f"Open {url} on your phone"))


def plugin_template(context: RenderContext) -> Any:
    return _w().text_slide(context, config_text(context, "title", context.row.get("name") or "Plugin"),
                           [config_text(context, "body", config_text(context, "text", ""))],
                           background=_background(context), text_color=_text_color(context))


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
