"""The display timezone (setting ``display_timezone``), shared by the curator and manual entries."""
from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo


def display_zone(host: Any) -> ZoneInfo:
    """``display_timezone`` from ``host.services["settings"]``; UTC when unset, empty or unknown."""
    settings = host.services.get("settings")
    name = settings.get("display_timezone") if settings is not None else None
    try:
        return ZoneInfo(name) if isinstance(name, str) and name else ZoneInfo("UTC")
    except (ValueError, OSError, KeyError):
        return ZoneInfo("UTC")
