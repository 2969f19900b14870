"""The weather slides' drawing (Kivy-only, imported when a canvas starts): ``weather_current`` and
``weather_forecast``. Content comes from ``WeatherCurrent`` (and ``WeatherAlert``) in each
renderer's ``prepare`` step: the location ``data_key`` or ``locationId`` names, else the first
by name. Config keys: those of :mod:`builtin_plugins.weather.types`."""
from __future__ import annotations

from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.display.kit import config_flag, config_number, config_text, data_key
from svc_host.display.kit import widgets as _w


def _weather_rows(context: RenderContext) -> list:
    wanted = data_key(context, "locationId")
    rows = list(context.host.db.WeatherCurrent.select())
    if wanted:
        rows = [r for r in rows if r.location_id == wanted]
    return sorted(rows, key=lambda r: r.location_name)


def _unit(context: RenderContext) -> str:
    return config_text(context, "temperatureUnit") or context.temperature_unit


def _prepare_current(context: RenderContext) -> Any:
    rows = _weather_rows(context)
    if not rows:
        return None
    row = rows[0]
    data = {"name": row.location_name, "temp_c": row.temp_c, "description": row.description,
            "icon": context.blob_bytes(row.icon_blob_key), "observed_at_ms": row.observed_at_ms, "extra": []}
    if config_flag(context, "showAirQuality", False) and isinstance(row.air_quality_json, dict):
        aq = row.air_quality_json
        names = ("us_aqi", "european_aqi", "aqi", "index")
        value = next((aq[k] for k in names if aq.get(k) is not None), None)
        if value is not None:
            data["extra"].append(f"Air quality {value}")
    if config_flag(context, "showAlerts", False):
        location = row.location_id
        alerts = context.host.db.WeatherAlert.select(lambda a: a.location_id == location)
        data["extra"] += [f"Warning: {a.headline or a.event}" for a in alerts.limit(3)]
    return data


def _location_slide(context: RenderContext) -> Any:
    """A themed slide titled with the location's name."""
    w = _w()
    slide = w.themed_slide(context)
    slide.add_widget(w.label(context.data["name"], context.font(72), context.theme.text, bold=True,
                             size_hint=(0.84, 0.15), pos_hint={"x": 0.08, "top": 0.92}))
    return slide


@renderer(prepare=_prepare_current)
def weather_current(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = _location_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(context.format_temperature(data["temp_c"], _unit(context)), context.font(240),
                             context.theme.accents[0], bold=True, size_hint=(0.5, 0.4),
                             pos_hint={"x": 0.08, "center_y": 0.48}))
    slide.add_widget(w.label(data["description"] or "", context.font(64), fg, size_hint=(0.5, 0.15),
                             pos_hint={"x": 0.08, "y": 0.14}))
    if data.get("extra"):
        slide.add_widget(w.label("\n".join(data["extra"]), context.font(44), context.theme.accents[1],
                                 size_hint=(0.84, 0.1), pos_hint={"x": 0.08, "y": 0.03}))
    texture = w.texture_from_bytes(data.get("icon"))
    if texture is not None:
        slide.add_widget(w.ImageFill(texture, size_hint=(0.3, 0.5),
                                     pos_hint={"right": 0.92, "center_y": 0.45}))
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
    slide = _location_slide(context)
    fg = context.theme.text
    days = data["days"] or [{}]
    width = 0.84 / len(days)
    unit = _unit(context)
    for i, day in enumerate(days):
        name = str(day.get("label") or day.get("date") or day.get("day") or f"+{i}")
        high = day.get("max_c", day.get("temp_max_c"))
        low = day.get("min_c", day.get("temp_min_c"))
        text = (f"{name}\nHigh {context.format_temperature(high, unit)}\nLow {context.format_temperature(low, unit)}\n"
                f"{day.get('description', '')}")
        slide.add_widget(w.Backdrop([context.theme.primary_bg], size_hint=(width * 0.9, 0.55),
                                    pos_hint={"x": 0.08 + i * width, "y": 0.12}))
        slide.add_widget(w.label(text, context.font(56 if len(days) <= 5 else 44), fg, halign="center",
                                 size_hint=(width * 0.9, 0.55),
                                 pos_hint={"x": 0.08 + i * width, "y": 0.12}))
    return slide
