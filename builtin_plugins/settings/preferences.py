"""``host.services[DISPLAY_PREFERENCES]``: the display preferences, read from the settings.

The one reader of the keys behind them, so the canvas, its layers, the renderers and the
REST snapshots format alike:

- theme: the setting ``display_theme_id`` when stored, else the key-value
  ``display.theme.id``, else ``navy_coral``; resolved through the themes service (builtin
  and custom themes); an unknown id is the default theme;
- text scales: ``display_text_scale_screen`` / ``_ticker``, numbers clamped to 0.25-4 (1 otherwise);
- ``controller_time_format`` (``12h``/``24h``), ``controller_date_order`` (``ymd``/``mdy``/``dmy``);
- the time zone: :meth:`SettingsService.display_zone` (``display_timezone``, UTC otherwise);
- the temperature unit: key-value ``display.weather.temperature_unit`` when it names a
  unit, else the setting ``display_weather_temperature_unit``, else ``c``.
"""
from __future__ import annotations

from typing import Any

from pony import orm

from builtin_plugins.settings.themes import THEME_KEY_VALUE
from svc_host.kit.formatting import temperature_unit
from hookspecs.render import DEFAULT_THEME_ID, Preferences, default_theme, theme_from_preview

TEMPERATURE_KEY_VALUE = "display.weather.temperature_unit"
TIME_FORMATS = ("12h", "24h")
DATE_ORDERS = ("ymd", "mdy", "dmy")


def _scale(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 1.0
    return min(4.0, max(0.25, float(value)))


def _overscan(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return min(10.0, max(0.0, float(value)))


def _choice(value: Any, allowed: tuple[str, ...], default: str) -> str:
    return value if value in allowed else default


class DisplayPreferencesService:
    def __init__(self, settings: Any, themes: Any):
        self.settings = settings
        self.themes = themes

    def current(self) -> Preferences:
        settings = self.settings
        with orm.db_session:
            stored = settings.get("display_theme_id") if settings.is_stored("display_theme_id") else None
            theme_id = stored or settings.key_value(THEME_KEY_VALUE) or DEFAULT_THEME_ID
            preview = self.themes.preview(theme_id)
            unit = temperature_unit(settings.get("display_weather_temperature_unit"))
            return Preferences(
                theme=theme_from_preview(theme_id, preview) if preview else default_theme(),
                text_scale_screen=_scale(settings.get("display_text_scale_screen")),
                text_scale_ticker=_scale(settings.get("display_text_scale_ticker")),
                overscan_percent=_overscan(settings.get("display_overscan_percent")),
                time_format=_choice(settings.get("controller_time_format"), TIME_FORMATS, "24h"),
                date_order=_choice(settings.get("controller_date_order"), DATE_ORDERS, "ymd"),
                timezone=settings.display_zone().key,
                temperature_unit=temperature_unit(settings.key_value(TEMPERATURE_KEY_VALUE), unit),
            )
