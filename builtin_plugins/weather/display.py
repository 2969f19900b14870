"""The weather slides' drawing (Kivy-only, imported when a canvas starts): ``weather_current`` and
``weather_forecast``. Content comes from ``WeatherCurrent`` (and ``WeatherAlert``) in each
renderer's ``prepare`` step: the location ``data_key`` or ``locationId`` names, else the first
by name. Config keys: those of ``builtin_plugins/weather/types.json``."""
from __future__ import annotations

import datetime as dt
from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import config_flag, config_number, config_text, data_key
from svc_host.kit.display import widgets as _w
from builtin_plugins.weather.icons import air_quality, icon_name
from svc_host.kit.formatting import formats


def _weather_rows(context: RenderContext) -> list:
    wanted = data_key(context, "locationId")
    rows = list(context.host.db.WeatherCurrent.select())
    if wanted:
        rows = [r for r in rows if r.location_id == wanted]
    return sorted(rows, key=lambda r: r.location_name)


def _unit(context: RenderContext) -> str:
    return config_text(context, "temperatureUnit") or context.temperature_unit


def _forecast(row: Any) -> list[dict]:
    forecast = row.forecast_json
    if isinstance(forecast, dict):
        forecast = forecast.get("daily") or forecast.get("items")
    return [d for d in forecast if isinstance(d, dict)] if isinstance(forecast, list) else []


def _high_low(day: dict) -> tuple[Any, Any]:
    return day.get("max_c", day.get("temp_max_c")), day.get("min_c", day.get("temp_min_c"))


def _prepare_current(context: RenderContext) -> Any:
    rows = _weather_rows(context)
    if not rows:
        return None
    row = rows[0]
    days = _forecast(row)
    high, low = _high_low(days[0]) if days else (None, None)
    data = {"name": row.location_name, "temp_c": row.temp_c, "description": row.description,
            "icon": icon_name(None, row.description), "high_c": high, "low_c": low,
            "observed_at_ms": row.observed_at_ms, "air": "", "warnings": []}
    if config_flag(context, "showAirQuality", False):
        data["air"] = air_quality(row.air_quality_json)
    if config_flag(context, "showAlerts", False):
        location = row.location_id
        alerts = context.host.db.WeatherAlert.select(lambda a: a.location_id == location)
        data["warnings"] = [a.headline or a.event for a in alerts.limit(3)]
    return data


def _temperatures(context: RenderContext, high: Any, low: Any, sep: str) -> str:
    unit = _unit(context)
    return f"High {formats(context).format_temperature(high, unit)}{sep}Low {formats(context).format_temperature(low, unit)}"


@renderer(prepare=_prepare_current)
def weather_current(context: RenderContext) -> Any:
    """The location as the title; the temperature, the conditions, today's labelled high and low, the
    air quality (``showAirQuality``) and warnings (``showAlerts``) down the left; the condition's
    icon (Material Symbols) on the right, or above the text on a slide taller than wide (portrait)."""
    w = _w()
    data = context.data
    theme = context.theme
    slide = w.themed_slide(context)
    w.add_title(context, slide, data["name"])
    entries = [w.entry(context, formats(context).format_temperature(data["temp_c"], _unit(context)),
                       theme.accents[0], step="display", bold=True)]
    if data["description"]:
        entries.append(w.entry(context, data["description"]))
    if data["high_c"] is not None or data["low_c"] is not None:
        entries.append(w.entry(context, _temperatures(context, data["high_c"], data["low_c"], " \u00b7 ")))
    if data["air"]:
        entries.append(w.entry(context, f"Air quality: {data['air']}", marker="air"))
    for warning in data["warnings"]:
        entries.append(w.entry(context, warning, w.on_background(context, theme.accents[1]), marker="warning"))
    width, height = context.size  # the icon as large as its box holds (a narrow free area, a portrait screen)
    if w.stacked(context):  # a portrait screen or a slide higher than wide: the picture above the text
        # a squat free area (between a portrait screen's corner panels): a smaller icon, the column its room
        share = 0.22 if height > width * 1.3 else 0.13
        size = min(context.font(380), width * 0.84 * 0.8, height * share * 0.8)
        slide.add_widget(w.icon(data["icon"], size, theme.accents[1], size_hint=(0.84, share),
                                pos_hint={"x": 0.08, "top": 0.74}))
        # the hero temperature shrinks with the conditions and the high/low rather than crowd them out
        w.body_column(context, slide, entries, (0.08, 0.27 + share, 0.84, 0.67 - share),
                      keep=min(3, len(entries)))
        return slide
    w.body_column(context, slide, entries, (0.08, 0.27, 0.56, 0.67))
    size = min(context.font(380), width * 0.3 * 0.8, height * 0.6 * 0.8)
    slide.add_widget(w.icon(data["icon"], size, theme.accents[1], size_hint=(0.3, 0.6),
                            pos_hint={"right": 0.94, "center_y": 0.45}))
    return slide


def _prepare_forecast(context: RenderContext) -> Any:
    for row in _weather_rows(context):
        days = _forecast(row)
        if days:
            wanted = int(config_number(context, "days", 5, 1, 10))
            return {"name": row.location_name, "days": days[:wanted]}
    return None


def _day_name(context: RenderContext, day: dict, i: int) -> str:
    """``Today``, ``Tomorrow``, a weekday name: from the day's ISO ``date``, else its ``label``."""
    try:
        return formats(context).friendly_day(dt.date.fromisoformat(str(day.get("date"))[:10]))
    except ValueError:
        return str(day.get("label") or day.get("day") or f"+{i}")


def _uniform(context: RenderContext, labels: list, width: float) -> None:
    """``labels`` (one a day: their names, their highs...) at one size: the largest at which each one's
    longest word fits ``width`` px, from their nominal size down to their minimum (the text rule)."""
    if not labels:
        return
    first = labels[0]
    options = {name: getattr(first, name) for name in _w().FONT_OPTIONS}
    size = min(_w().fit_text(label.text, width, None, first.nominal, first.minimum, options)[0] for label in labels)
    for label in labels:
        label.nominal = size


@renderer(prepare=_prepare_forecast)
def weather_forecast(context: RenderContext) -> Any:
    """A box a day: its name, its icon, the labelled high and low, the conditions. Degrades: the
    texts shrink together (every day's name at one size) down to the body's minimum; the days that
    then do not fit side by side are left out (the nearest kept); on a portrait screen, or when
    fewer than three days fit side by side, a row a day (its icon, its name, the high and low and
    the conditions under it), the rows that do not fit left out."""
    w = _w()
    data = context.data
    theme = context.theme
    slide = w.themed_slide(context)
    days = data["days"] or [{}]
    width_px, height_px = context.size
    fg = theme.primary_fg
    # the narrowest box a day's longest word fits at the body's minimum (its padding around)
    smallest = w.minimum_px(context, "body")
    longest = max(w.text_extent({"bold": True}, word, smallest)[0]
                  for i, day in enumerate(days) for word in _day_name(context, day, i).split())
    fit = max(1, int(0.88 * width_px // (longest / (0.94 * 0.94) + 2)))
    rows = w.stacked(context) or fit < min(3, len(days))
    shown = days if rows else days[:fit]
    w.add_title(context, slide, f"{data['name']} \u00b7 forecast" if rows else f"{data['name']} \u00b7 {len(shown)}-day forecast"
                if len(shown) > 1 else data["name"])
    if rows:
        entries = []
        for i, day in enumerate(shown):
            high, low = _high_low(day)
            note = "\n".join(p for p in (_temperatures(context, high, low, " \u00b7 "), day.get("description")) if p)
            entries.append(w.entry(context, _day_name(context, day, i), fg, bold=True, meta=note, meta_color=fg,
                                   marker=icon_name(day.get("weather_code"), day.get("description")),
                                   marker_color=theme.accents[1], highlight=theme.primary_bg))
        w.body_column(context, slide, entries, keep=3)  # three days at least, when they fit
        return slide
    width = 0.88 / len(shown)
    names, temperatures = [], []
    for i, day in enumerate(shown):
        high, low = _high_low(day)
        box = (0.06 + i * width, 0.27, width * 0.94, 0.69)
        slide.add_widget(w.Backdrop([theme.primary_bg], **w.box_hints(box)))
        name = w.entry(context, _day_name(context, day, i), fg, bold=True, halign="center")
        names.append(name.main)
        entries = [name, w.Entry([w.icon(icon_name(day.get("weather_code"), day.get("description")),
                                         context.type_px("headline"), fg)])]
        lines = [w.entry(context, text, fg, halign="center")
                 for text in _temperatures(context, high, low, "\n").split("\n")]
        temperatures += [line.main for line in lines]
        entries += lines
        if day.get("description"):
            entries.append(w.entry(context, str(day["description"]), fg, step="secondary", halign="center", role=""))
        inner = (box[0] + box[2] * 0.03, box[1] + 0.03, box[2] * 0.94, box[3] - 0.06)
        # the name, the icon, the high and the low shrink until they fit together (a cramped box
        # dropped the low); only the conditions may be left out
        w.body_column(context, slide, entries, inner, keep=2 + len(lines))
    inner_px = width_px * width * 0.94 * 0.94
    _uniform(context, names, inner_px)
    _uniform(context, temperatures, inner_px)
    return slide
