"""Where the program comes from: the data-source interface of the display.

The director asks ``host.services["display_program_source"]`` (when a plugin published
one) or :class:`EntityProgramSource` for a snapshot, about once a second, on its loader
thread inside a Pony ``db_session``::

    source.snapshot() -> {
        "screens":  [row, ...],   # spec 2.6 fields; config_json decoded to a dict
        "tapes":    [row, ...],   # spec 2.5 fields
        "overlays": [row, ...],   # spec 2.3 fields
        "alerts":   [row, ...],   # spec 2.2 fields, active ones, plus "display_only" (dict or None)
        "program_controls": {"screens_enabled": bool, "ticker_enabled": bool},
    }

Rows are plain dicts. The source returns the *effective* rows (curator membership
applied); the director applies ``enabled``, overlay windows, the overlay switch and the
renderers. A source may omit keys it does not know (an empty list is assumed).
"""
from __future__ import annotations

import json
import logging
from typing import Any

log = logging.getLogger("builtin_plugins.display_program")

ENTITY_NAMES = {"screens": "Screen", "tapes": "TickerTape", "overlays": "OverlaySchedule", "alerts": "Alert"}


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return {}
    return value if value is not None else {}


def _row_dict(row: Any) -> dict[str, Any]:
    data = row.to_dict() if hasattr(row, "to_dict") else dict(row)
    if "config_json" in data:
        data["config_json"] = _decode(data["config_json"])
    return data


class EntityProgramSource:
    """Reads ``host.db.Screen``, ``TickerTape``, ``OverlaySchedule`` and ``Alert`` when they exist.

    Curator membership: when ``host.services["curator"]`` has ``active_view()`` (the body
    of ``GET /v1/curator/active``), only ``effective_members`` ids are kept and its
    ``program_controls`` apply. Alerts: not dismissed, not expired; ``display_only`` is
    read from the row attribute of that name, else from
    ``host.services["alerts"].display_only(alert_id)`` when that service exists.
    """

    def __init__(self, host: Any):
        self.host = host

    def _rows(self, key: str) -> list[dict]:
        entity = getattr(self.host.db, ENTITY_NAMES[key], None)
        if entity is None:
            return []
        rows = []
        alerts_service = self.host.services.get("alerts")
        for row in entity.select():
            data = _row_dict(row)
            if key == "alerts":
                display_only = getattr(row, "display_only", None)
                if display_only is None and hasattr(alerts_service, "display_only"):
                    display_only = alerts_service.display_only(data.get("id"))
                data["display_only"] = _decode(display_only) if display_only else None
            rows.append(data)
        return rows

    def snapshot(self) -> dict[str, Any]:
        now = self.host.clock.now_ms()
        result: dict[str, Any] = {key: self._rows(key) for key in ENTITY_NAMES}
        result["alerts"] = [a for a in result["alerts"]
                            if not a.get("dismissed_at") and not (a.get("expires_at") and a["expires_at"] <= now)]
        controls = {"screens_enabled": True, "ticker_enabled": True}
        curator = self.host.services.get("curator")
        view = None
        if curator is not None and hasattr(curator, "active_view"):
            try:
                view = curator.active_view()
            except Exception:
                log.exception("display: curator active view failed; showing every row")
        if isinstance(view, dict):
            members = view.get("effective_members") or {}
            for key, member_key in (("screens", "screens"), ("tapes", "tickers"), ("overlays", "overlays")):
                if member_key in members:
                    ids = {m["id"] if isinstance(m, dict) else m for m in members[member_key]}
                    result[key] = [r for r in result[key] if r.get("id") in ids]
            controls.update({k: bool(v) for k, v in (view.get("program_controls") or {}).items()})
        result["program_controls"] = controls
        return result


def program_source(host: Any) -> Any:
    return host.services.get("display_program_source") or EntityProgramSource(host)
