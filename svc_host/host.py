"""The running host: settings, plugins, registries, storage, clock, routes.

``build_host()`` is the whole startup sequence; the server, the CLI and the tests all use
it, so each sees the same validated registries and the same migrated database.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from pony import orm

from hookspecs import Route, WebSocketRoute
from svc_host.auth import Principal
from svc_host.clock import Clock
from svc_host.config import Settings
from svc_host.plugins import PluginError, PluginHost, Registries, build_registries, collect_routes, load_plugins
from svc_host.storage import (
    BlobStore,
    apply_migrations,
    bind_database,
    new_database,
    read_instance_id,
    read_or_create_instance_id,
    schema_version,
)

log = logging.getLogger(__name__)


@dataclass
class Host:
    settings: Settings
    plugins: PluginHost
    registries: Registries
    db: orm.Database
    blobs: BlobStore
    clock: Clock
    started_at: float = field(default_factory=time.monotonic)
    routes: list[tuple[str, Route]] = field(default_factory=list)
    websocket_routes: list[tuple[str, WebSocketRoute]] = field(default_factory=list)
    middleware: list[tuple[str, Any]] = field(default_factory=list)
    # Set by the display runtime when a canvas runs; REST plugins post commands to it.
    display_bus: Any = None
    # Free slots for plugins to share runtime state by name (e.g. "alerts", "telemetry").
    services: dict[str, Any] = field(default_factory=dict)
    # Filled by the app factory: (uri template, method) -> Operation, and the OpenAPI document.
    operations: dict[tuple[str, str], Any] = field(default_factory=dict)
    openapi: dict[str, Any] | None = None

    @property
    def hook(self) -> Any:
        return self.plugins.pm.hook

    @property
    def instance_id(self) -> str | None:
        """The adoption HMAC secret, read fresh so a removed file is noticed (503)."""
        return read_instance_id(self.settings.data_dir)

    def schema_version(self) -> int:
        return schema_version(self.db)

    def authenticate(self, token: str) -> Principal | None:
        principal = self.hook.authenticate_token(host=self, token=token)
        if principal is None:
            return None
        permissions = frozenset(self.registries.permissions.for_role(principal.role))
        return dataclasses.replace(principal, permissions=permissions)

    def close(self) -> None:
        try:
            self.plugins.call_each("shutdown", host=self)
        finally:
            self.db.disconnect()
            if self.db.provider is not None:
                self.db.provider.disconnect()


def build_host(settings: Settings, extra_plugins: Iterable[tuple[str, Any]] = (),
               with_routes: bool = True) -> Host:
    """Load plugins, validate registries, bind and migrate storage, collect routes, start plugins."""
    plugins = load_plugins(settings.disable_plugins, extra_plugins)
    registries = build_registries(plugins)

    db = new_database()
    plugins.call_each("register_entities", db=db)
    provider = bind_database(db, settings.database_url, settings.sqlite_path)
    try:
        db.generate_mapping(create_tables=True)
    except Exception as exc:
        raise PluginError("storage", f"could not map entities: {type(exc).__name__}: {exc}") from exc
    read_or_create_instance_id(settings.data_dir)
    settings.media_dir.mkdir(parents=True, exist_ok=True)

    clock = Clock(settings.test_clock_file)
    applied = apply_migrations(db, registries.migrations, clock.now_ms())
    log.info("storage: %s, %d migrations applied", provider, applied)

    host = Host(settings=settings, plugins=plugins, registries=registries, db=db,
                blobs=BlobStore(settings.media_dir), clock=clock)
    if with_routes:
        host.routes = collect_routes(plugins, host)
        host.websocket_routes = [
            (name, item) for name, items in plugins.call_each("register_websocket_routes", host=host)
            for item in items
        ]
        host.middleware = [
            (name, item) for name, items in plugins.call_each("register_middleware", host=host) for item in items
        ]
    plugins.call_each("startup", host=host)
    return host
