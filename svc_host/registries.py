"""The registries built from what plugins contribute (types, entities, content lists, routes,
permissions, service keys, layers), each item validated and the plugin at fault named: a builtin
stops startup (:class:`~svc_host.plugins.PluginError`), a third-party plugin is skipped."""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

import jsonschema

from hookspecs import (ConfigurableType, ContentList, CuratorPredicate, IntegrationType, LayerSpec, Migration,
                      OverlayType, Permission, Route, ScreenType, TickerType)
from hookspecs.render import ZONES
from hookspecs.services import SERVICE_KEYS, ServiceKey
from hookspecs.types import LAYER_AREAS
from svc_host.permissions import ROLES, PermissionTable
from svc_host.plugins import HOST_PLUGIN_NAME, PluginError, PluginHost, PluginSkipped, log
from svc_host.references import check_reference, resolve_reference
from svc_host.schema_checks import checked_schemas

_TYPE_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_LIST_PATH = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


class TypeRegistry:
    """Types of one kind (screen, ticker, overlay, integration), keyed by id."""

    def __init__(self, kind: str, id_field: str):
        self.kind = kind
        self.id_field = id_field
        self.types: dict[str, ConfigurableType] = {}
        self.owner: dict[str, str] = {}
        self._renderers: dict[str, Any] = {}

    def renderer(self, type_id: str) -> Any:
        """The type's renderer, resolved once (None without one); a reference that does not
        resolve raises :class:`PluginError` naming the type's plugin."""
        if type_id in self._renderers:
            return self._renderers[type_id]
        definition = self.types.get(type_id)
        value = getattr(definition, "renderer", None)
        try:
            resolved = resolve_reference(value)
        except Exception as exc:  # noqa: BLE001  import errors, missing names, non-callables
            raise PluginError(self.owner.get(type_id, "unknown"),
                              f"{self.kind} type {type_id!r}: renderer {value!r} does not resolve: "
                              f"{type(exc).__name__}: {exc}") from exc
        self._renderers[type_id] = resolved
        return resolved

    def drop_renderer(self, type_id: str) -> None:
        self._renderers[type_id] = None

    def __contains__(self, type_id: object) -> bool:
        return type_id in self.types

    def __iter__(self):
        return iter(self.types.values())

    def get(self, type_id: str) -> ConfigurableType | None:
        return self.types.get(type_id)

    def validate_config(self, type_id: str, config: Any) -> list[tuple[str, str]]:
        """JSON-pointer paths and messages for every schema error of ``config``."""
        validator = jsonschema.Draft202012Validator(self.types[type_id].config_schema)
        return [
            ("/" + "/".join(str(p) for p in error.absolute_path), error.message)
            for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
        ]


@dataclass
class Registries:
    permissions: PermissionTable
    screen_types: TypeRegistry
    ticker_types: TypeRegistry
    overlay_types: TypeRegistry
    integration_types: TypeRegistry
    curator_predicates: dict[str, CuratorPredicate]
    # (the plugin name a migration is recorded under, the migration), in the order they run
    migrations: list[tuple[str, Migration]]
    # permission name -> the first plugin that declared it, and every plugin that declared it
    permission_owners: dict[str, str] = field(default_factory=dict)
    permission_declarers: dict[str, list[str]] = field(default_factory=dict)
    # path -> content list, and path -> the plugin that contributed it
    content_lists: dict[str, ContentList] = field(default_factory=dict)
    content_list_owners: dict[str, str] = field(default_factory=dict)
    # (recorded name, migration id) -> the plugin that contributes it now
    migration_owners: dict[tuple[str, str], str] = field(default_factory=dict)

    def feed_kinds(self) -> dict[str, ContentList]:
        """Feed kind -> the content list it lands in."""
        return {item.feed.kind: item for item in self.content_lists.values() if item.feed is not None}
    # (plugin, layer) of every canvas layer, bottom (lowest z) first
    display_layers: list[tuple[str, LayerSpec]] = field(default_factory=list)
    # every declared service key: the builtins' (hookspecs.services) then plugins' own
    service_keys: list[ServiceKey] = field(default_factory=lambda: list(SERVICE_KEYS))


def _check_type(item: Any, cls: type, plugin: str, hook: str) -> None:
    if not isinstance(item, cls):
        raise PluginError(plugin, f"{hook} returned {type(item).__name__}, expected {cls.__name__}")


def _check_configurable(item: ConfigurableType, plugin: str) -> None:
    if not isinstance(item.id, str) or not _TYPE_ID.match(item.id):
        raise PluginError(plugin, f"type id {item.id!r} must match {_TYPE_ID.pattern}")
    if not isinstance(item.label, str) or not item.label:
        raise PluginError(plugin, f"type {item.id!r} needs a label")
    try:
        text = json.dumps([item.config_schema, item.example_config], sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise PluginError(plugin, f"type {item.id!r}: schema and example must be JSON: {exc}") from None
    problem = _schema_problem(text)
    if problem:
        raise PluginError(plugin, f"type {item.id!r} {problem}")


@functools.lru_cache(maxsize=1024)
def _schema_problem(schema_and_example: str) -> str | None:
    """What is wrong with a type's schema or example (JSON text of both), or None. Checked once
    per process for each distinct pair: meta-schema validation is most of a host build's CPU
    time, and every host of a process (tests, the gallery) registers the same types. A pair that
    passed in an earlier process is not checked again (:mod:`svc_host.schema_checks`)."""
    checked = checked_schemas()
    if checked.passed(schema_and_example):
        return None
    schema, example = json.loads(schema_and_example)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"has an invalid JSON Schema: {exc.message}"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(example))
    if errors:
        return f"example does not match its schema: {errors[0].message}"
    checked.remember(schema_and_example)
    return None


def _check_renderer(item: ConfigurableType, plugin: str) -> None:
    value = getattr(item, "renderer", None)
    if value is None or callable(value):
        return
    problem = check_reference(value) if isinstance(value, str) else \
        f"renderer must be a callable or a 'module:attr' string, not {type(value).__name__}"
    if problem:
        raise PluginError(plugin, f"type {item.id!r}: {problem}")


def _check_ticker_type(item: TickerType, plugin: str) -> None:
    if not callable(item.build_items):
        raise PluginError(plugin, f"ticker type {item.id!r} needs build_items(host, tape, now_ms)")
    refresh = item.refresh_seconds
    if refresh is not None and (isinstance(refresh, bool) or not isinstance(refresh, (int, float)) or refresh <= 0):
        raise PluginError(plugin, f"ticker type {item.id!r}: refresh_seconds must be a positive number or None")


def resolve_renderers(host: Any) -> None:
    """Import every type's renderer before the canvas draws (the display runtime calls this).

    A builtin's renderer that does not resolve stops startup with the plugin's name; a
    third-party one is logged with its name and that type is drawn as missing.
    """
    registries = host.registries
    for registry in (registries.screen_types, registries.overlay_types):  # ticker types draw nothing
        for type_id in list(registry.types):
            try:
                registry.renderer(type_id)
            except PluginError as exc:
                info = host.plugins.info.get(exc.plugin)
                if info is None or info.builtin:
                    raise
                log.error("%s; the type is not drawn", exc)
                registry.drop_renderer(type_id)


def _check_layer(item: LayerSpec, plugin: str, seen: dict[str, str]) -> None:
    if not isinstance(item.id, str) or not _TYPE_ID.match(item.id):
        raise PluginError(plugin, f"display layer id {item.id!r} must match {_TYPE_ID.pattern}")
    if item.id in seen:
        raise PluginError(plugin, f"display layer {item.id!r} is already provided by {seen[item.id]!r}")
    if isinstance(item.z, bool) or not isinstance(item.z, int):
        raise PluginError(plugin, f"display layer {item.id!r}: z must be an integer, not {item.z!r}")
    if item.area not in LAYER_AREAS:
        raise PluginError(plugin, f"display layer {item.id!r}: area {item.area!r} is not one of "
                                  f"{LAYER_AREAS}")
    if isinstance(item.topics, str) or not all(isinstance(t, str) and t for t in item.topics):
        raise PluginError(plugin, f"display layer {item.id!r}: topics must be a list of non-empty strings")
    if item.surface is not None and not isinstance(item.surface, str):
        raise PluginError(plugin, f"display layer {item.id!r}: surface must be a string or None")
    if not callable(item.layer):
        problem = check_reference(item.layer, "layer") if isinstance(item.layer, str) else \
            f"layer must be a callable or a 'module:attr' string, not {type(item.layer).__name__}"
        if problem:
            raise PluginError(plugin, f"display layer {item.id!r}: {problem}")


def resolve_layers(host: Any) -> list[tuple[str, LayerSpec, Any]]:
    """``(plugin, spec, factory)`` of every display layer, bottom first, factories imported.

    The display runtime calls this when a canvas starts. A builtin's layer that does not
    resolve stops startup with the plugin's name; a third-party one is logged with its name
    and left out.
    """
    resolved = []
    for plugin, spec in host.registries.display_layers:
        try:
            factory = resolve_reference(spec.layer, "layer")
        except Exception as exc:  # noqa: BLE001  import errors, missing names, non-callables
            error = PluginError(plugin, f"display layer {spec.id!r}: {spec.layer!r} does not resolve: "
                                        f"{type(exc).__name__}: {exc}")
            info = host.plugins.info.get(plugin)
            if info is None or info.builtin:
                raise error from exc
            log.error("%s; the layer is not drawn", error)
            continue
        resolved.append((plugin, spec, factory))
    return resolved


def build_registries(plugins: PluginHost) -> Registries:
    """Collect and validate every contribution; a bad one names its plugin.

    All or nothing per plugin: when a third-party plugin fails at any hook, it is dropped
    and the registries are built again from scratch, so nothing it contributed stays.
    """
    while True:
        try:
            return _build_registries(plugins)
        except PluginSkipped:
            continue


def _build_registries(plugins: PluginHost) -> Registries:
    permissions: dict[str, Permission] = {}
    declarers: dict[str, list[str]] = {}
    for plugin, items in _collect(plugins, "register_permissions", Permission):
        for item in items:
            bad_roles = set(item.roles) - set(ROLES)
            if bad_roles:
                plugins.fail(plugin, f"permission {item.name!r} names unknown roles {sorted(bad_roles)}")
            known = permissions.get(item.name)
            if known is not None and (set(known.roles), known.description) != (set(item.roles),
                                                                                item.description):
                plugins.fail(plugin, f"permission {item.name!r} is already declared differently by "
                                     f"{declarers[item.name][0]!r}")
        for item in items:
            permissions.setdefault(item.name, item)
            if plugin not in declarers.setdefault(item.name, []):
                declarers[item.name].append(plugin)

    registries = Registries(
        permissions=PermissionTable(permissions.values()),
        screen_types=TypeRegistry("screen", "screen_type"),
        ticker_types=TypeRegistry("ticker", "ticker_type"),
        overlay_types=TypeRegistry("overlay", "overlay_type"),
        integration_types=TypeRegistry("integration", "integration_type"),
        curator_predicates={},
        migrations=[],
        permission_owners={name: names[0] for name, names in declarers.items()},
        permission_declarers=declarers,
    )
    for hook, cls, registry in (
        ("register_screen_types", ScreenType, registries.screen_types),
        ("register_ticker_types", TickerType, registries.ticker_types),
        ("register_overlay_types", OverlayType, registries.overlay_types),
        ("register_integration_types", IntegrationType, registries.integration_types),
    ):
        for plugin, items in _collect(plugins, hook, cls):
            try:
                for item in items:
                    _check_configurable(item, plugin)
                    _check_renderer(item, plugin)
                    if cls is TickerType:
                        _check_ticker_type(item, plugin)
                    if cls is OverlayType and item.zone not in ZONES:
                        raise PluginError(plugin, f"overlay type {item.id!r}: zone must be one of {ZONES}")
                    if item.id in registry.types:
                        raise PluginError(plugin, f"{registry.kind} type {item.id!r} is already provided by "
                                                  f"{registry.owner[item.id]!r}")
                if cls is IntegrationType:
                    for item in items:
                        if "_" not in item.id or not item.family or not item.id.startswith(item.family + "_"):
                            raise PluginError(plugin, f"integration type {item.id!r} must be <family>_<provider>")
            except PluginError as exc:
                plugins.fail(plugin, str(exc).split(": ", 1)[1])
            for item in items:
                registry.types[item.id] = item
                registry.owner[item.id] = plugin

    for plugin, items in _collect(plugins, "register_curator_predicates", CuratorPredicate):
        for item in items:
            if item.id in registries.curator_predicates:
                plugins.fail(plugin, f"curator predicate {item.id!r} is already registered")
                break
            registries.curator_predicates[item.id] = item

    for plugin, items in _collect(plugins, "register_content_lists", ContentList):
        for item in items:
            _check_content_list(registries, item, plugin, plugins)
        for item in items:
            registries.content_lists[item.path] = item
            registries.content_list_owners[item.path] = plugin

    layer_owner: dict[str, str] = {}
    for plugin, items in _collect(plugins, "register_display_layers", LayerSpec):
        try:
            seen = dict(layer_owner)
            for item in items:
                _check_layer(item, plugin, seen)
                seen[item.id] = plugin
        except PluginError as exc:
            plugins.fail(plugin, str(exc).split(": ", 1)[1])
        for item in items:
            layer_owner[item.id] = plugin
            registries.display_layers.append((plugin, item))
    registries.display_layers.sort(key=lambda entry: (entry[1].z, entry[1].id))

    names = {key.name: key for key in registries.service_keys}
    for plugin, items in _collect(plugins, "register_service_keys", ServiceKey):
        for item in items:
            if item.owner != plugin:
                plugins.fail(plugin, f"declares service key {item.name!r} owned by {item.owner!r} "
                                     f"(a plugin declares only its own keys: owner={plugin!r})")
            if item.name in names and names[item.name] is not item:
                plugins.fail(plugin, f"service key {item.name!r} is already declared by {names[item.name].owner!r}")
        for item in items:
            if item.name not in names:
                names[item.name] = item
                registries.service_keys.append(item)

    migrations = _collect(plugins, "register_migrations", Migration)
    for plugin, items in sorted(migrations, key=lambda pair: pair[0]):
        keys = [(m.recorded_as or plugin, m.id) for m in items]
        if len(keys) != len(set(keys)):
            plugins.fail(plugin, "register_migrations returned duplicate migration ids")
        for key in keys:
            if key in registries.migration_owners:
                plugins.fail(plugin, f"migration {key[1]!r} recorded as {key[0]!r} is already contributed by "
                                     f"{registries.migration_owners[key]!r}")
        for key, migration in zip(keys, items):
            registries.migrations.append((key[0], migration))
            registries.migration_owners[key] = plugin
    return registries


def _check_content_list(registries: Registries, item: ContentList, plugin: str, plugins: PluginHost) -> None:
    if not isinstance(item.path, str) or not _LIST_PATH.match(item.path):
        plugins.fail(plugin, f"content list path {item.path!r} must match {_LIST_PATH.pattern}")
    if not isinstance(item.entity, str) or not item.entity:
        plugins.fail(plugin, f"content list {item.path!r} needs an entity name")
    if item.catalog and not callable(item.serialize):
        plugins.fail(plugin, f"content list {item.path!r} is in the catalog: it needs a serialize callable")
    if item.path in registries.content_lists:
        plugins.fail(plugin, f"content list {item.path!r} is already provided by "
                             f"{registries.content_list_owners[item.path]!r}")
    kinds = registries.feed_kinds()
    if item.feed is not None and item.feed.kind in kinds:
        plugins.fail(plugin, f"feed kind {item.feed.kind!r} is already provided by "
                             f"{registries.content_list_owners[kinds[item.feed.kind].path]!r}")


def content_list_entities(item: ContentList) -> list[str]:
    """The entities a content list names: its own and its category junction's."""
    return [item.entity] + ([item.category_links[0]] if item.category_links else [])


def _collect(plugins: PluginHost, hook: str, cls: type, **kwargs: Any) -> list[tuple[str, list[Any]]]:
    """Each plugin's contributions to ``hook``, type-checked; a plugin returning a wrong type fails."""
    collected = []
    for plugin, items in plugins.call_each(hook, **kwargs):
        try:
            items = list(items)
            for item in items:
                _check_type(item, cls, plugin, hook)
        except (PluginError, TypeError) as exc:
            plugins.fail(plugin, str(exc))
        collected.append((plugin, items))
    return collected


def collect_routes(plugins: PluginHost, host: Any, taken: Iterable[str] = ()) -> list[tuple[str, Route]]:
    """Every plugin's routes, each path served once: a plugin that registers a path twice, or
    one already served (by the host: ``taken``, or by a plugin called earlier: builtins come
    first) fails (a third-party plugin is skipped, a builtin stops startup)."""
    owners = dict.fromkeys(taken, HOST_PLUGIN_NAME)
    collected = []
    for plugin, items in _collect(plugins, "register_routes", Route, host=host):
        mine: set[str] = set()
        for route in items:
            if route.path in mine:
                plugins.fail(plugin, f"registers route {route.path!r} twice")
            if route.path in owners:
                plugins.fail(plugin, f"route {route.path!r} is already served by {owners[route.path]!r}")
            mine.add(route.path)
        owners.update(dict.fromkeys(mine, plugin))
        collected += [(plugin, route) for route in items]
    return collected


# ---- the live state a running server shares with `svc-display plugins list` ----------------
