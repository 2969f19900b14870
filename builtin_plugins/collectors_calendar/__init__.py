"""Calendar collectors: ``calendar_ical`` (ICS by URL), ``calendar_google``, ``calendar_microsoft``."""

from __future__ import annotations

from hookspecs import hookimpl
from builtin_plugins.collectors_calendar import cloud, ical


@hookimpl
def register_integration_types() -> list:
    return [ical.INTEGRATION_TYPE, cloud.GOOGLE, cloud.MICROSOFT]
