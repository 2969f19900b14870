"""Stored allowed origins (spec 5.11-5.12): ``env`` seeds and ``adoption`` grants."""
from __future__ import annotations

from typing import Any

from pony import orm

from svc_host.kit.rest import ORIGIN_MAX, normalize_origin

SOURCES = ("env", "adoption")


def define_entities(db: Any) -> None:
    class AllowedOrigin(db.Entity):
        _table_ = "svc_allowed_origin"
        origin = orm.PrimaryKey(str, ORIGIN_MAX)
        source = orm.Required(str, 16)
        created_at_ms = orm.Required(int, size=64)


class OriginStore:
    """``host.services[CORS]``: read and add allowed origins."""

    def __init__(self, host: Any):
        self.host = host

    @orm.db_session
    def is_allowed(self, origin: str) -> bool:
        return self.host.db.AllowedOrigin.get(origin=origin) is not None

    @orm.db_session
    def list(self) -> list[dict]:
        rows = self.host.db.AllowedOrigin.select().order_by(lambda o: o.origin)
        return [{"origin": r.origin, "source": r.source, "created_at_ms": r.created_at_ms} for r in rows]

    def forget(self, origin: str) -> bool:
        """Remove the stored ``origin`` (normalised); False when it is not stored. Use inside a db_session."""
        row = self.host.db.AllowedOrigin.get(origin=origin)
        if row is None:
            return False
        row.delete()
        return True

    def remember(self, origin: str | None, source: str) -> str | None:
        """Store ``origin`` (normalised) with ``source`` unless present. Use inside a db_session.

        Returns the stored origin, or None when ``origin`` is not an http(s) origin.
        """
        if source not in SOURCES:
            raise ValueError(f"unknown origin source {source!r}")
        normalised = normalize_origin(origin)
        if normalised is None:
            return None
        if self.host.db.AllowedOrigin.get(origin=normalised) is None:
            self.host.db.AllowedOrigin(origin=normalised, source=source, created_at_ms=self.host.clock.now_ms())
        return normalised

    def seed_from_settings(self) -> None:
        """Insert ``SVC_DISPLAY_HTTP_CORS_ORIGINS`` with source ``env`` (idempotent)."""
        for origin in self.host.settings.http_cors_origins:
            try:
                with orm.db_session:
                    self.remember(origin, "env")
            except orm.TransactionIntegrityError:  # another process seeded it at the same moment
                pass
