"""The plugin ticker tape's items: the lines of key-value ``ticker.marquee.<pluginId>``."""
from __future__ import annotations

from typing import Any

from hookspecs.services import MARQUEE_PREFIX, SETTINGS, service
from svc_host.kit.services import marquee_lines


def plugin_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    plugin_id = (tape.config_json or {}).get("pluginId")
    settings = service(host, SETTINGS)
    if not plugin_id or settings is None:
        return []
    return marquee_lines(settings.key_value(MARQUEE_PREFIX + plugin_id))
