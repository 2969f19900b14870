"""The time ticker tape's items: the date and time, formatted by the shared formatters."""
from __future__ import annotations

import datetime as dt
from typing import Any

from svc_host.kit.formatting import SETTING_PRESETS, format_date, format_time, zone, zone_or_utc
from svc_host.kit.services import preferences


def time_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    """Omitted keys follow the display preferences (date order, 12h/24h, time zone).

    The spec makes the tape ``[labelPrefix ]<date> <time>`` whatever the preset; ``showDate: false``
    (a key beyond the spec, default true) leaves the date out, so a ``24h_hm`` tape can read ``14:05``.
    """
    config = tape.config_json or {}
    prefs = preferences(host)
    order = config.get("dateOrder") or prefs.date_order
    preset = config.get("timeFormatPreset") or SETTING_PRESETS.get(prefs.time_format, "24h_hm")
    tz = zone(config.get("timeZone")) or zone_or_utc(prefs.timezone)
    moment = dt.datetime.fromtimestamp(now_ms / 1000, tz=tz)
    text = format_time(moment, preset)
    if config.get("showDate", True):
        text = f"{format_date(moment, order)} {text}"
    prefix = (config.get("labelPrefix") or "").strip()
    return [f"{prefix} {text}" if prefix else text]
