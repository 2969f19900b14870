"""Reading display settings and key-values from any plugin, with safe fallbacks.

The settings plugin owns the store (``host.services["settings"]``, ``host.db.KeyValue``);
these helpers let the ticker, overlays and others read it and still work, with the
documented defaults, when that plugin is disabled. IANA zone checks live here too.
"""
from __future__ import annotations

import functools
import zoneinfo
from typing import Any

DEFAULT_TIMEZONE = "UTC"


@functools.lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_iana_zone(name: Any) -> bool:
    """True for a zone name of the IANA database (``Europe/Berlin``, ``UTC``)."""
    return isinstance(name, str) and name in _zones()


def zone(name: Any) -> zoneinfo.ZoneInfo | None:
    if not is_iana_zone(name):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def setting(host: Any, key: str, default: Any = None) -> Any:
    service = host.services.get("settings")
    if service is None:
        return default
    value = service.get(key)
    return default if value is None else value


def key_value(host: Any, key: str) -> str | None:
    entity = getattr(host.db, "KeyValue", None)
    if entity is None:
        return None
    row = entity.get(key=key)
    return row.value if row is not None else None


def key_values_with_prefix(host: Any, prefix: str) -> list[tuple[str, str]]:
    entity = getattr(host.db, "KeyValue", None)
    if entity is None:
        return []
    rows = entity.select(lambda kv: kv.key.startswith(prefix)).order_by(lambda kv: kv.key)
    return [(row.key, row.value) for row in rows]


def display_zone(host: Any) -> zoneinfo.ZoneInfo:
    """The display timezone setting, or UTC when unset or not a known zone."""
    return zone(setting(host, "display_timezone", DEFAULT_TIMEZONE)) or zoneinfo.ZoneInfo(DEFAULT_TIMEZONE)


def temperature_unit(host: Any, override: Any = None) -> str:
    """``c`` or ``f``: the override, then key-value ``display.weather.temperature_unit``, then the setting."""
    for candidate in (override, key_value(host, "display.weather.temperature_unit"),
                      setting(host, "display_weather_temperature_unit", "c")):
        if isinstance(candidate, str) and candidate.strip().lower() in ("c", "f"):
            return candidate.strip().lower()
    return "c"
