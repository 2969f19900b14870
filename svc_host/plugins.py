"""The plugin manager and the registries built from what plugins contribute.

Builtins and third-party plugins alike are entry points of ``svc_display.plugins``,
discovered with stevedore and registered in pluggy. A builtin is an entry point of the
``svc-display`` distribution itself; a builtin that fails stops startup with its name, a
third-party plugin that fails is logged with its name and skipped.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Iterable

import jsonschema
import pluggy
from stevedore import NamedExtensionManager

import hookspecs
from hookspecs import (
    ConfigurableType,
    CuratorPredicate,
    IntegrationType,
    Migration,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
)
from svc_host.permissions import BUILTIN_PERMISSIONS, ROLES, PermissionTable

log = logging.getLogger(__name__)

BUILTIN_DISTRIBUTION = "svc-display"
HOST_PLUGIN_NAME = "host"
_TYPE_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class PluginError(RuntimeError):
    """A plugin failed to load or contributed something invalid; names the plugin."""

    def __init__(self, plugin: str, message: str):
        super().__init__(f"plugin {plugin!r}: {message}")
        self.plugin = plugin


@dataclass
class PluginInfo:
    name: str
    version: str
    origin: str  # "builtin", "third-party" or "test"
    module: str
    hooks: list[str] = field(default_factory=list)

    @property
    def builtin(self) -> bool:
        return self.origin == "builtin"


class PluginHost:
    """Pluggy manager plus what we know about each plugin (origin, version)."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.info: dict[str, PluginInfo] = {}

    def register(self, plugin: Any, name: str, origin: str, version: str = "") -> None:
        self.pm.register(plugin, name=name)
        module = getattr(plugin, "__name__", type(plugin).__name__)
        self.info[name] = PluginInfo(name, version, origin, module)

    def unregister(self, name: str) -> None:
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)
        self.info.pop(name, None)

    def fail(self, name: str, message: str) -> None:
        """Stop startup for a builtin, skip (and log) anything else."""
        info = self.info.get(name)
        if info is None or info.builtin:
            raise PluginError(name, message)
        log.error("skipping plugin %r: %s", name, message)
        self.unregister(name)

    def call_each(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call one hook on every plugin separately, so each result carries its plugin's name."""
        results = []
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        # Builtins first, then registration order: a third-party duplicate is the one skipped.
        impls = sorted(impls, key=lambda i: not (self.info.get(i.plugin_name) and self.info[i.plugin_name].builtin))
        for impl in impls:
            name = impl.plugin_name
            if name not in self.info:  # unregistered by an earlier failure in this same call
                continue
            try:
                result = impl.function(*[kwargs[arg] for arg in impl.argnames])
            except Exception as exc:  # a plugin's bug must name the plugin
                self.fail(name, f"{hook_name} raised {type(exc).__name__}: {exc}")
                continue
            if result is not None:
                results.append((name, result))
        return results

    def describe(self) -> list[PluginInfo]:
        for name, info in self.info.items():
            plugin = self.pm.get_plugin(name)
            info.hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ())
        return sorted(self.info.values(), key=lambda i: (not i.builtin, i.name))


def load_plugins(disabled: Iterable[str] = (), extra: Iterable[tuple[str, Any]] = ()) -> PluginHost:
    """Discover entry-point plugins (minus ``disabled``), add ``extra`` (name, object) pairs."""
    plugins = PluginHost()
    disabled = set(disabled)
    available = {ep.name: ep for ep in metadata.entry_points(group=hookspecs.ENTRY_POINT_GROUP)}
    # stevedore's cached entry points carry no distribution: keep importlib's for origin/version.
    dists = {name: ep.dist for name, ep in available.items()}
    wanted = sorted(name for name in available if name not in disabled)
    for name in sorted(disabled & set(available)):
        log.info("plugin %r disabled by SVC_DISPLAY_DISABLE_PLUGINS", name)

    def on_failure(_manager: Any, entry_point: Any, exc: BaseException) -> None:
        if _is_builtin(dists.get(entry_point.name)):
            raise PluginError(entry_point.name, f"failed to load: {type(exc).__name__}: {exc}") from exc
        log.error("skipping plugin %r: failed to load: %s: %s", entry_point.name, type(exc).__name__, exc)

    manager = NamedExtensionManager(
        namespace=hookspecs.ENTRY_POINT_GROUP,
        names=wanted,
        invoke_on_load=False,
        on_load_failure_callback=on_failure,
        name_order=True,
    )
    for extension in manager:
        dist = dists.get(extension.name)
        origin = "builtin" if _is_builtin(dist) else "third-party"
        version = dist.version if dist is not None else ""
        try:
            plugins.register(extension.plugin, extension.name, origin, version)
        except Exception as exc:  # pluggy validation: unknown hook names, bad signatures
            if origin == "builtin":
                raise PluginError(extension.name, f"failed to register: {exc}") from exc
            log.error("skipping plugin %r: failed to register: %s", extension.name, exc)
    for name, plugin in extra:
        plugins.register(plugin, name, "test")
    plugins.pm.check_pending()
    return plugins


def _is_builtin(dist: Any) -> bool:
    return dist is not None and dist.name == BUILTIN_DISTRIBUTION


class TypeRegistry:
    """Types of one kind (screen, ticker, overlay, integration), keyed by id."""

    def __init__(self, kind: str, id_field: str):
        self.kind = kind
        self.id_field = id_field
        self.types: dict[str, ConfigurableType] = {}
        self.owner: dict[str, str] = {}

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
    migrations: list[tuple[str, Migration]]


def _check_type(item: Any, cls: type, plugin: str, hook: str) -> None:
    if not isinstance(item, cls):
        raise PluginError(plugin, f"{hook} returned {type(item).__name__}, expected {cls.__name__}")


def _check_configurable(item: ConfigurableType, plugin: str) -> None:
    if not isinstance(item.id, str) or not _TYPE_ID.match(item.id):
        raise PluginError(plugin, f"type id {item.id!r} must match {_TYPE_ID.pattern}")
    if not isinstance(item.label, str) or not item.label:
        raise PluginError(plugin, f"type {item.id!r} needs a label")
    try:
        jsonschema.Draft202012Validator.check_schema(item.config_schema)
    except jsonschema.SchemaError as exc:
        raise PluginError(plugin, f"type {item.id!r} has an invalid JSON Schema: {exc.message}") from None
    errors = list(jsonschema.Draft202012Validator(item.config_schema).iter_errors(item.example_config))
    if errors:
        raise PluginError(plugin, f"type {item.id!r} example does not match its schema: {errors[0].message}")


def build_registries(plugins: PluginHost) -> Registries:
    """Collect and validate every contribution; a bad one names its plugin."""
    permissions = list(BUILTIN_PERMISSIONS)
    known = {p.name: "host" for p in permissions}
    for plugin, items in _collect(plugins, "register_permissions", Permission):
        for item in items:
            bad_roles = set(item.roles) - set(ROLES)
            if bad_roles:
                plugins.fail(plugin, f"permission {item.name!r} names unknown roles {sorted(bad_roles)}")
                break
            if item.name in known:
                plugins.fail(plugin, f"permission {item.name!r} is already declared by {known[item.name]!r}")
                break
            known[item.name] = plugin
            permissions.append(item)

    registries = Registries(
        permissions=PermissionTable(permissions),
        screen_types=TypeRegistry("screen", "screen_type"),
        ticker_types=TypeRegistry("ticker", "ticker_type"),
        overlay_types=TypeRegistry("overlay", "overlay_type"),
        integration_types=TypeRegistry("integration", "integration_type"),
        curator_predicates={},
        migrations=[],
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
                    if item.id in registry.types:
                        raise PluginError(plugin, f"{registry.kind} type {item.id!r} is already provided by "
                                                  f"{registry.owner[item.id]!r}")
                if cls is IntegrationType:
                    for item in items:
                        if "_" not in item.id or not item.family or not item.id.startswith(item.family + "_"):
                            raise PluginError(plugin, f"integration type {item.id!r} must be <family>_<provider>")
            except PluginError as exc:
                plugins.fail(plugin, str(exc).split(": ", 1)[1])
                continue
            for item in items:
                registry.types[item.id] = item
                registry.owner[item.id] = plugin

    for plugin, items in _collect(plugins, "register_curator_predicates", CuratorPredicate):
        for item in items:
            if item.id in registries.curator_predicates:
                plugins.fail(plugin, f"curator predicate {item.id!r} is already registered")
                break
            registries.curator_predicates[item.id] = item

    for plugin, items in sorted(_collect(plugins, "register_migrations", Migration)):
        ids = [m.id for m in items]
        if len(ids) != len(set(ids)):
            plugins.fail(plugin, "register_migrations returned duplicate migration ids")
            continue
        registries.migrations.extend((plugin, m) for m in items)
    return registries


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
            continue
        collected.append((plugin, items))
    return collected


def collect_routes(plugins: PluginHost, host: Any) -> list[tuple[str, Route]]:
    return [(plugin, route) for plugin, items in _collect(plugins, "register_routes", Route, host=host)
            for route in items]


