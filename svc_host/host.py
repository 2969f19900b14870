"""The running host: settings, plugins, registries, storage, clock, routes.

``build_host()`` is the whole startup sequence; the server, the CLI and the tests all use
it, so each sees the same validated registries and the same migrated database.
"""
from __future__ import annotations

import dataclasses
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from pony import orm

from hookspecs import Route, WebSocketRoute
from hookspecs.content import ContentIngest
from hookspecs.services import CONTENT_INGEST, EVENTS, HEALTH_SECTIONS, HTTP_SERVER_STOP
from hookspecs.permissions import Principal
from svc_host.clock import Clock
from svc_host.config import Settings, make_data_dir, read_plugin_settings, refuse_unknown_disabled
from svc_host.events import ChangeBus, PublishAfterCommit
from svc_host.http.core_routes import core_routes
from svc_host.plugins import PluginError, PluginHost, PluginSkipped, load_plugins
from svc_host.registries import Registries, build_registries, collect_routes, content_list_entities
from svc_host.service_registry import PluginModules, ServiceRegistry
from svc_host.schema import TableCheckError, check_tables, map_entities, table_owners
from svc_host.storage import (
    BlobStore,
    apply_migrations,
    bind_database,
    close_host_reader,
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
    # Shared services by declared key (hookspecs.services; only a key's owner publishes it).
    services: ServiceRegistry = field(default_factory=ServiceRegistry)
    # Filled by the app factory: (uri template, method) -> Operation, and the OpenAPI document
    # (``openapi``: built by the factory, or on first read when the factory was asked to defer it).
    operations: dict[tuple[str, str], Any] = field(default_factory=dict)
    openapi_builder: Callable[[], dict[str, Any]] | None = field(default=None, repr=False)
    _openapi: dict[str, Any] | None = field(default=None, repr=False)
    # What `svc-display serve` exits with; a plugin sets it through request_exit().
    exit_code: int = 0

    @property
    def openapi(self) -> dict[str, Any] | None:
        """The OpenAPI document of the app built last (built now if its factory deferred it)."""
        if self._openapi is None and self.openapi_builder is not None:
            self._openapi = self.openapi_builder()
        return self._openapi

    @openapi.setter
    def openapi(self, document: dict[str, Any] | None) -> None:
        self._openapi, self.openapi_builder = document, None

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
        if principal.fixed:  # the authenticator chose them (a folder plugin's key): keep the known ones
            known = self.registries.permissions.permissions
            return dataclasses.replace(
                principal, permissions=frozenset(p for p in principal.permissions if p in known),
                scopes={p: frozenset(r) for p, r in principal.scopes.items() if p in known})
        permissions = frozenset(self.registries.permissions.for_role(principal.role))
        return dataclasses.replace(principal, permissions=permissions, scopes={})

    def request_exit(self, code: int) -> None:
        """Stop serving after in-flight requests finish; ``svc-display serve`` then exits with ``code``
        (a restore asks for 75 so that its supervisor starts it again on the restored data)."""
        self.exit_code = code
        stop = self.services.get(HTTP_SERVER_STOP)
        if stop is not None:
            stop()

    def close(self) -> None:
        try:
            self.plugins.shutdown(self)  # the reverse of the start order
        finally:
            close_host_reader(self)
            self.db.disconnect()
            if self.db.provider is not None:
                self.db.provider.disconnect()


def build_host(settings: Settings, extra_plugins: Iterable[tuple[str, Any]] = (),
               with_routes: bool = True, plugins: PluginHost | None = None) -> Host:
    """Load plugins (unless already loaded: ``plugins``), validate registries, bind and migrate storage, collect routes, start plugins.

    Every failure names its plugin. A builtin's stops startup (:class:`PluginError`); a
    third-party plugin's is logged, the plugin is unregistered and the host is built again
    without it (all or nothing: none of its types, permissions, entities, routes or
    services stay live).
    """
    make_data_dir(settings)  # before any plugin: a bad path is the variable's fault, not a plugin's
    if plugins is None:
        plugins = load_plugins(settings.disable_plugins, extra_plugins)
    if settings.plugin_settings is None:  # svc-display's main() read them already
        settings = read_plugin_settings(settings, plugins)
    # A name in SVC_DISPLAY_DISABLE_PLUGINS must be an entry point or a plugin another plugin
    # manages and describes (describe_plugins: folder plugins, refused ones by their label).
    described = {row["id"] for _name, rows in plugins.call_each("describe_plugins", settings=settings)
                 for row in rows}
    refuse_unknown_disabled(plugins.unknown_disabled, plugins.entry_point_names() | described)
    plugins.call_each("prepare_storage", settings=settings)
    while True:
        try:
            return _build_host(settings, plugins, with_routes)
        except PluginSkipped as exc:
            log.debug("starting again without plugin %r", exc.plugin)  # fail() logged the one line


def _build_host(settings: Settings, plugins: PluginHost, with_routes: bool) -> Host:
    registries = build_registries(plugins)
    db = new_database()
    try:
        entity_owner = _declare_entities(plugins, db)
        _check_content_lists(plugins, registries, entity_owner)
        provider = bind_database(db, settings.database_url, settings.sqlite_path)
        _map_entities(plugins, db, entity_owner)
        read_or_create_instance_id(settings.data_dir)
        settings.media_dir.mkdir(parents=True, exist_ok=True)

        clock = Clock(settings.test_clock_file)
        applied = _apply_migrations(plugins, db, registries, clock.now_ms())
        _check_tables(plugins, db, entity_owner)
        log.info("storage: %s, %d migrations applied", provider, applied)
    except BaseException:
        _disconnect(db)
        raise

    modules = PluginModules(plugins)
    host = Host(settings=settings, plugins=plugins, registries=registries, db=db,
                blobs=BlobStore(settings.media_dir), clock=clock,
                services=ServiceRegistry(registries.service_keys, modules.plugin_of, modules.stands_in))
    events = host.services[EVENTS] = ChangeBus()
    host.services[CONTENT_INGEST] = ContentIngest()  # the owners add their kinds' writers in startup
    host.services[HEALTH_SECTIONS] = {}  # plugins add their blocks in startup
    started: list[str] = []
    try:
        if with_routes:
            host.routes = collect_routes(plugins, host, taken=[route.path for route in core_routes(host)])
            host.websocket_routes = [
                (name, item) for name, items in plugins.call_each("register_websocket_routes", host=host)
                for item in items
            ]
            # the host's own first: events of a request are delivered after its commit
            host.middleware = [("host", PublishAfterCommit(host, events))] + [
                (name, item) for name, items in plugins.call_each("register_middleware", host=host)
                for item in items
            ]
        for name in plugins.implementers("startup"):
            started.append(name)
            plugins.call_each("startup", only=[name], host=host)
    except BaseException:
        # Stop what already started (threads, schedulers), then let the caller decide.
        plugins.shutdown(host, started)
        _disconnect(db)
        raise
    return host


def _declare_entities(plugins: PluginHost, db: orm.Database) -> dict[str, str]:
    """Call ``register_entities`` plugin by plugin; return entity name -> declaring plugin."""
    owner: dict[str, str] = {}
    for name in plugins.implementers("register_entities"):
        before = set(db.entities)
        plugins.call_each("register_entities", only=[name], db=db)
        owner.update({entity: name for entity in set(db.entities) - before})
    return owner


def _map_entities(plugins: PluginHost, db: orm.Database, entity_owner: dict[str, str]) -> None:
    try:
        map_entities(db)
    except Exception as exc:  # noqa: BLE001  a mapping error: name the entity's plugin when we can
        message = f"{type(exc).__name__}: {exc}"
        culprit = next((plugin for entity, plugin in sorted(entity_owner.items())
                        if re.search(rf"\b{re.escape(entity)}\b", message)), None)
        if culprit is None:
            raise PluginError("storage", f"could not map entities: {message}") from exc
        plugins.fail(culprit, f"its entities could not be mapped: {message}")


def _check_content_lists(plugins: PluginHost, registries: Registries, entity_owner: dict[str, str]) -> None:
    """A content list names only entities its own plugin declares (no feature names another's tables)."""
    for path, item in registries.content_lists.items():
        plugin = registries.content_list_owners[path]
        for entity in content_list_entities(item):
            if entity_owner.get(entity) != plugin:
                plugins.fail(plugin, f"content list {path!r} names entity {entity!r}, "
                                     "which it does not declare")


def _apply_migrations(plugins: PluginHost, db: orm.Database, registries: Registries, now_ms: int) -> int:
    by_plugin: dict[str, list[tuple[str, Any]]] = {}
    for recorded, migration in registries.migrations:
        owner = registries.migration_owners.get((recorded, migration.id), recorded)
        by_plugin.setdefault(owner, []).append((recorded, migration))
    applied = apply_migrations(db, [], now_ms)
    for plugin, migrations in by_plugin.items():
        try:
            applied = apply_migrations(db, migrations, now_ms)
        except Exception as exc:  # noqa: BLE001  a migration's bug names its plugin
            migration_id = _pending_migration(db, migrations)
            plugins.fail(plugin, f"migration {migration_id!r} failed: {type(exc).__name__}: {exc}")
    return applied


def _pending_migration(db: orm.Database, migrations: list[tuple[str, Any]]) -> str:
    with orm.db_session:
        for plugin, migration in migrations:
            if not db.AppliedMigration.get(plugin=plugin, migration_id=migration.id):
                return migration.id
    return "?"


def _check_tables(plugins: PluginHost, db: orm.Database, entity_owner: dict[str, str]) -> None:
    try:
        check_tables(db)
    except TableCheckError as exc:
        owner = table_owners(db, entity_owner).get(exc.table, "storage")
        if owner == "storage":
            raise PluginError("storage", str(exc)) from exc
        plugins.fail(owner, f"{exc} (add a migration, e.g. svc_host.schema.add_column)")


def _disconnect(db: orm.Database) -> None:
    try:
        db.disconnect()
        if db.provider is not None:
            db.provider.disconnect()
    except Exception:  # noqa: BLE001  best effort while failing
        log.debug("disconnect after a failed start", exc_info=True)
