"""The settings table and the service API other plugins use.

``SettingsService.get(key)`` returns the stored value or the default of
:data:`DEFAULTS`; ``set``/``delete`` need a ``db_session`` (the caller's request one).
Key-values (``{key, value}`` strings, spec 2.11) live in their own table; other plugins read
and write them only through the service (``key_value``, ``key_values``, ``put_key_value``,
``delete_key_value``), never through the table.
"""
from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from pony import orm

from svc_host.kit.formatting import zone_or_utc

ALL_ROLES = ["admin", "operator", "power_viewer", "viewer"]
SETTINGS_WRITE = "settings.write"
KEY_MAX = 256
VALUE_MAX = 8192

DEFAULTS: dict[str, Any] = {
    "display_theme_id": "navy_coral",
    "display_text_scale_screen": 1.0,
    "display_text_scale_ticker": 1.0,
    "display_overscan_percent": 0.0,
    "display_timezone": "UTC",
    "controller_time_format": "24h",
    "controller_date_order": "ymd",
    "display_weather_temperature_unit": "c",
    "adoption_allowed_roles": list(ALL_ROLES),
    "sync_group": "",
}


def define_entities(db: Any) -> None:
    class DisplaySetting(db.Entity):
        _table_ = "svc_display_setting"
        key = orm.PrimaryKey(str, 100)
        value = orm.Required(orm.Json)

    class KeyValue(db.Entity):
        _table_ = "svc_key_value"
        # stored exactly as given: Pony strips str attributes by default
        key = orm.PrimaryKey(str, KEY_MAX, autostrip=False)
        value = orm.Optional(str, VALUE_MAX, default="", autostrip=False)  # "" is a valid value


class SettingsService:
    def __init__(self, host: Any):
        self.db = host.db

    @orm.db_session
    def get(self, key: str) -> Any:
        row = self.db.DisplaySetting.get(key=key)
        if row is not None:
            return row.value
        if key == "adoption_allowed_roles":
            legacy = self.db.DisplaySetting.get(key="adoption_allow_new_requests")
            if legacy is not None:
                return list(ALL_ROLES) if legacy.value else []
        return DEFAULTS.get(key)

    def display_zone(self) -> ZoneInfo:
        """The ``display_timezone`` setting as a zone; UTC when unset or not an IANA zone.

        The one reader of that setting: everyone else calls ``svc_host.kit.services.display_zone``.
        """
        return zone_or_utc(self.get("display_timezone"))

    @orm.db_session
    def is_stored(self, key: str) -> bool:
        return self.db.DisplaySetting.get(key=key) is not None

    def set(self, key: str, value: Any) -> None:
        row = self.db.DisplaySetting.get(key=key)
        if row is None:
            self.db.DisplaySetting(key=key, value=value)
        else:
            row.value = value

    def delete(self, key: str) -> None:
        row = self.db.DisplaySetting.get(key=key)
        if row is not None:
            row.delete()

    @orm.db_session
    def key_value(self, key: str) -> str | None:
        row = self.db.KeyValue.get(key=key)
        return row.value if row is not None else None

    @orm.db_session
    def key_values(self, prefix: str) -> list[tuple[str, str]]:
        """``(key, value)`` of every key-value whose key starts with ``prefix``, by key."""
        rows = self.db.KeyValue.select(lambda kv: kv.key.startswith(prefix))
        return sorted((row.key, row.value) for row in rows)

    @orm.db_session
    def put_key_value(self, key: str, value: str) -> None:
        """Create or replace key-value ``key`` (``value`` cut to :data:`VALUE_MAX` characters).

        Inside the caller's ``db_session`` it joins that transaction (a row and the key-value
        that records it commit together); outside one it commits on its own.
        """
        if not isinstance(key, str) or not key or len(key) > KEY_MAX:
            raise ValueError(f"a key-value key is 1-{KEY_MAX} characters, not {key!r}")
        value = value[:VALUE_MAX]
        row = self.db.KeyValue.get(key=key)
        if row is None:
            self.db.KeyValue(key=key, value=value)
        else:
            row.value = value

    @orm.db_session
    def delete_key_value(self, key: str) -> bool:
        """Delete key-value ``key``; False when there was none. Joins the caller's ``db_session``."""
        row = self.db.KeyValue.get(key=key) if isinstance(key, str) and len(key) <= KEY_MAX else None
        if row is None:
            return False
        row.delete()
        return True
