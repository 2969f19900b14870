"""What the weather slides draw for a condition and an air quality index (no Kivy).

- :func:`icon_name`: a WMO weather code (Open-Meteo's ``weather_code``), else the words of a
  description, as a Material Symbols icon name (the icon font the renderer kit ships);
- :func:`air_quality`: an index as ``Good (21)``, in the European scale (``european_aqi``) or the
  US one (``us_aqi``; ``aqi`` and ``index`` are read as US).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.weather.collectors import WMO

WMO_ICONS: dict[int, str] = {
    0: "sunny", 1: "sunny", 2: "partly_cloudy_day", 3: "cloud", 45: "foggy", 48: "foggy",
    51: "rainy_light", 53: "rainy_light", 55: "rainy", 56: "weather_mix", 57: "weather_mix",
    61: "rainy_light", 63: "rainy", 65: "rainy_heavy", 66: "weather_mix", 67: "weather_mix",
    71: "weather_snowy", 73: "weather_snowy", 75: "snowing", 77: "weather_snowy",
    80: "rainy_light", 81: "rainy", 82: "rainy_heavy", 85: "weather_snowy", 86: "snowing",
    95: "thunderstorm", 96: "thunderstorm", 99: "thunderstorm",
}
"""WMO weather interpretation code -> Material Symbols icon name."""

WORDS: tuple[tuple[str, str], ...] = (
    ("thunder", "thunderstorm"), ("storm", "thunderstorm"), ("sleet", "weather_mix"), ("freezing", "weather_mix"),
    ("snow", "weather_snowy"), ("heavy rain", "rainy_heavy"), ("drizzle", "rainy_light"),
    ("shower", "rainy_light"), ("rain", "rainy"), ("fog", "foggy"), ("mist", "foggy"), ("haze", "foggy"),
    ("overcast", "cloud"), ("bright spell", "partly_cloudy_day"), ("partly", "partly_cloudy_day"),
    ("mainly clear", "sunny"), ("cloud", "cloud"), ("clear", "sunny"), ("sun", "sunny"),
)
"""Words of a description -> icon name, the first that occurs wins (descriptions from any provider)."""

FALLBACK_ICON = "thermostat"
EUROPEAN_AQI = ((20, "Good"), (40, "Fair"), (60, "Moderate"), (80, "Poor"), (100, "Very poor"))
US_AQI = ((50, "Good"), (100, "Moderate"), (150, "Unhealthy for sensitive groups"), (200, "Unhealthy"),
          (300, "Very unhealthy"))


def icon_name(code: Any = None, description: str | None = "") -> str:
    """The icon of WMO ``code``, else of the words of ``description`` (Open-Meteo's own wording
    included), else :data:`FALLBACK_ICON`."""
    if isinstance(code, (int, float)) and not isinstance(code, bool) and int(code) in WMO_ICONS:
        return WMO_ICONS[int(code)]
    text = (description or "").strip().lower()
    for wmo_code, words in WMO.items():
        if text == words.lower() and wmo_code in WMO_ICONS:
            return WMO_ICONS[wmo_code]
    return next((icon for words, icon in WORDS if words in text), FALLBACK_ICON)


def air_quality(values: Any) -> str:
    """``Good (21)`` from an air quality record (``european_aqi``, else ``us_aqi``/``aqi``/``index``);
    ``""`` when it has no index."""
    if not isinstance(values, dict):
        return ""
    for key, scale in (("european_aqi", EUROPEAN_AQI), ("us_aqi", US_AQI), ("aqi", US_AQI), ("index", US_AQI)):
        value = values.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            word = next((name for limit, name in scale if value <= limit),
                        "Extremely poor" if scale is EUROPEAN_AQI else "Hazardous")
            return f"{word} ({round(value)})"
    return ""
