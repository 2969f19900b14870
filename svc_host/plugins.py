"""The plugin manager and the registries built from what plugins contribute.

Builtins and third-party plugins alike are entry points of ``svc_display.plugins``,
discovered with stevedore and registered in pluggy. A builtin is an entry point of the
``svc-display`` distribution itself; a builtin that fails stops startup with its name, a
third-party plugin that fails is logged with its name and skipped.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import logging
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Mapping

import jsonschema
import pluggy
from stevedore import NamedExtensionManager

import hookspecs
from hookspecs import (
    ConfigurableType,
    ContentList,
    CuratorPredicate,
    IntegrationType,
    LayerSpec,
    Migration,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
)
from hookspecs.render import ZONES
from hookspecs.services import SERVICE_KEYS, ServiceKey
from hookspecs.types import LAYER_AREAS
from svc_host.permissions import ROLES, PermissionTable

log = logging.getLogger(__name__)

BUILTIN_DISTRIBUTION = "svc-display"
HOST_PLUGIN_NAME = "host"
_TYPE_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_LIST_PATH = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


class PluginError(RuntimeError):
    """A plugin failed to load or contributed something invalid; names the plugin."""

    def __init__(self, plugin: str, message: str):
        super().__init__(f"plugin {plugin!r}: {message}")
        self.plugin = plugin


class PluginSkipped(Exception):
    """A third-party plugin failed and was unregistered; whatever was built from it must be rebuilt.

    Registration is all or nothing per plugin: rather than undoing each contribution a
    half-registered plugin left behind (types, permissions, entities, routes), the stage
    that caught this starts over without the plugin. Plugins' contribution hooks are pure
    (they return lists), so calling them again is safe.
    """

    def __init__(self, plugin: str):
        super().__init__(plugin)
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
        # Entry points that are not loaded, for `GET /v1/plugins` and `plugins list`.
        self.disabled: dict[str, PluginInfo] = {}
        self.failed: dict[str, tuple[PluginInfo, str]] = {}
        # SVC_DISPLAY_DISABLE_PLUGINS names that are no entry point (folder plugins' ids, or typos)
        self.unknown_disabled: frozenset[str] = frozenset()

    def entry_point_names(self) -> set[str]:
        """Every plugin this host knows, loaded, disabled or failed."""
        return set(self.info) | set(self.disabled) | set(self.failed)

    def register(self, plugin: Any, name: str, origin: str, version: str = "") -> None:
        self.pm.register(_with_feature(plugin), name=name)
        module = getattr(plugin, "__name__", type(plugin).__name__)
        self.info[name] = PluginInfo(name, version, origin, module)

    def unregister(self, name: str) -> None:
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)
        self.info.pop(name, None)

    def fail(self, name: str, message: str) -> None:
        """Stop startup for a builtin (:class:`PluginError`); log and unregister anything else,
        then raise :class:`PluginSkipped` so the caller rebuilds without it."""
        info = self.info.get(name)
        if info is None or info.builtin:
            raise PluginError(name, message)
        log.error("skipping plugin %r: %s", name, message)
        self.failed[name] = (info, message)
        self.unregister(name)
        raise PluginSkipped(name)

    def _ordered_impls(self, hook_name: str) -> list[Any]:
        """The implementations of ``hook_name`` in the order the host calls them.

        Contribution hooks (``register_*``) build registries: builtins first, then registration
        order, so a third-party duplicate of a builtin's type, route or entity is the one
        skipped. Every other hook (``startup``, ``serving``, ``shutdown`` ...) runs in pluggy's
        own call order: ``tryfirst`` first, ``trylast`` last, otherwise the last registered
        first (``get_hookimpls()`` lists them the other way round).
        """
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        if hook_name.startswith("register_"):
            return sorted(impls, key=lambda i: not (self.info.get(i.plugin_name) and self.info[i.plugin_name].builtin))
        return impls[::-1]

    def implementers(self, hook_name: str) -> list[str]:
        """Names of the plugins implementing ``hook_name``, in calling order (see :meth:`_ordered_impls`)."""
        return [impl.plugin_name for impl in self._ordered_impls(hook_name)]

    def call_each(self, hook_name: str, only: Iterable[str] | None = None, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call one hook on every plugin (or those in ``only``) separately, so each result carries
        its plugin's name. A plugin that raises fails (see :meth:`fail`)."""
        results = []
        wanted = None if only is None else set(only)
        for impl in self._ordered_impls(hook_name):
            name = impl.plugin_name
            if name not in self.info or (wanted is not None and name not in wanted):
                continue
            try:
                result = impl.function(*[kwargs[arg] for arg in impl.argnames])
            except Exception as exc:  # a plugin's bug must name the plugin
                self.fail(name, f"{hook_name} raised {type(exc).__name__}: {exc}")
                continue
            if result is not None:
                results.append((name, result))
        return results

    def call_quietly(self, hook_name: str, only: Iterable[str] | None = None, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call a hook on every plugin (or those in ``only``) while serving or at teardown: a
        failure is logged with the plugin's name and the others still run. Returns each
        plugin's result that is not None, with its name."""
        wanted = None if only is None else set(only)
        results = []
        for impl in self._ordered_impls(hook_name):
            if wanted is not None and impl.plugin_name not in wanted:
                continue
            try:
                result = impl.function(*[kwargs[arg] for arg in impl.argnames])
            except Exception:  # noqa: BLE001  the others go on; the log names the plugin
                log.exception("plugin %r: %s raised", impl.plugin_name, hook_name)
                continue
            if result is not None:
                results.append((impl.plugin_name, result))
        return results

    def check_hooks(self) -> None:
        """Skip (or, for a builtin, refuse) every plugin implementing a hook no spec declares.

        pluggy's ``check_pending()`` raises for the first unknown hook of any plugin, which
        would stop every command (``--help`` included) for one misspelled name in one
        installed plugin: check plugin by plugin instead, so the log names the plugin.
        """
        for name in list(self.info):
            unknown = self.unknown_hooks(name)
            if unknown:
                try:
                    self.fail(name, f"implements unknown hooks {unknown} (misspelled? see docs/hooks.md)")
                except PluginSkipped:
                    pass
        self.pm.check_pending()

    def unknown_hooks(self, name: str) -> list[str]:
        """Hook implementations of plugin ``name`` that match no hookspec (misspelled names)."""
        plugin = self.pm.get_plugin(name)
        unknown = []
        for caller in self.pm.get_hookcallers(plugin) or ():
            if caller.spec is not None:
                continue
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin and not impl.optionalhook:
                    unknown.append(caller.name)
        return sorted(set(unknown))

    def describe(self) -> list[PluginInfo]:
        for name, info in self.info.items():
            plugin = self.pm.get_plugin(name)
            info.hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ())
        return sorted(self.info.values(), key=lambda i: (not i.builtin, i.name))

    def states(self, loaded: str = "running") -> list[dict[str, Any]]:
        """Every entry point as ``GET /v1/plugins`` lists it: ``loaded`` (``running`` in a server,
        ``stopped`` in the CLI), ``disabled``, or ``failed`` with the reason."""
        rows = [_state_row(info, loaded, None) for info in self.describe()]
        rows += [_state_row(info, "disabled", "disabled by SVC_DISPLAY_DISABLE_PLUGINS")
                 for name, info in self.disabled.items() if name not in self.info]
        rows += [_state_row(info, "failed", reason) for name, (info, reason) in self.failed.items()
                 if name not in self.info]
        return sorted(rows, key=lambda r: (r["origin"] != "builtin", r["id"]))


class _Declared:
    """A plugin with a ``FEATURE`` declaration as pluggy sees it: the plugin's own attributes
    (its hand-written hook implementations among them) plus the declaration's generic ones."""

    def __init__(self, plugin: Any, impls: dict[str, Any]):
        self._plugin = plugin
        self.__name__ = getattr(plugin, "__name__", type(plugin).__name__)
        marker = hookspecs.PROJECT + "_impl"
        # pluggy looks hook implementations up statically (no __getattr__): copy the plugin's own
        own = {attr: getattr(plugin, attr) for attr in dir(plugin) if not attr.startswith("__")}
        vars(self).update({attr: value for attr, value in own.items()
                           if callable(value) and hasattr(value, marker)})
        vars(self).update(impls)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._plugin, attr)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._plugin)) | set(vars(self)))


def _with_feature(plugin: Any) -> Any:
    """``plugin`` itself, or with the hooks its ``FEATURE`` (``hookspecs.Feature``) declares.

    A hook both declared and implemented by hand is refused: one of the two would be ignored."""
    feature = getattr(plugin, "FEATURE", None)
    if feature is None:
        return plugin
    if not isinstance(feature, hookspecs.Feature):
        raise TypeError(f"FEATURE is a {type(feature).__name__}, not a hookspecs.Feature")
    impls = feature.hookimpls()
    both = sorted(hook for hook in impls if callable(getattr(plugin, hook, None)))
    if both:
        raise TypeError(f"{', '.join(both)} both declared in FEATURE and implemented; keep one")
    return _Declared(plugin, impls)


def _state_row(info: PluginInfo, state: str, reason: str | None) -> dict[str, Any]:
    return {"id": info.name, "name": info.name, "kind": "entry_point", "origin": info.origin,
            "version": info.version, "module": info.module, "hooks": list(info.hooks), "state": state,
            "reason": reason}


def refuse_unknown_disabled(names: Iterable[str], known: Iterable[str]) -> None:
    """A ``SVC_DISPLAY_DISABLE_PLUGINS`` name that is no plugin is a typo that would leave the
    plugin running: refused, naming the plugins that can be disabled."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        from svc_host.config import ConfigError

        raise ConfigError("SVC_DISPLAY_DISABLE_PLUGINS", "names of installed plugins (one of "
                          + ", ".join(sorted(known)) + ")", ",".join(unknown))


def load_plugins(disabled: Iterable[str] = (), extra: Iterable[tuple[Any, ...]] = ()) -> PluginHost:
    """Discover entry-point plugins (minus ``disabled``), add ``extra`` (name, object[, origin])."""
    plugins = PluginHost()
    disabled = set(disabled)
    extra = list(extra)
    available = {ep.name: ep for ep in metadata.entry_points(group=hookspecs.ENTRY_POINT_GROUP)}
    # stevedore's cached entry points carry no distribution: keep importlib's for origin/version.
    dists = {name: ep.dist for name, ep in available.items()}
    wanted = sorted(name for name in available if name not in disabled)
    plugins.unknown_disabled = frozenset(disabled - set(available) - {item[0] for item in extra})
    for name in sorted(disabled & set(available)):
        log.info("plugin %r disabled by SVC_DISPLAY_DISABLE_PLUGINS", name)
        plugins.disabled[name] = _entry_point_info(name, available[name], dists.get(name))

    def skipped(name: str, message: str) -> None:
        log.error("skipping plugin %r: %s", name, message)
        plugins.failed[name] = (_entry_point_info(name, available[name], dists.get(name)), message)

    def on_failure(_manager: Any, entry_point: Any, exc: BaseException) -> None:
        if _is_builtin(dists.get(entry_point.name)):
            raise PluginError(entry_point.name, f"failed to load: {type(exc).__name__}: {exc}") from exc
        skipped(entry_point.name, f"failed to load: {type(exc).__name__}: {exc}")

    manager = NamedExtensionManager(
        namespace=hookspecs.ENTRY_POINT_GROUP,
        names=wanted,
        invoke_on_load=False,
        on_load_failure_callback=on_failure,
        name_order=True,
    )
    extensions = {extension.name: extension for extension in manager}
    # A plugin declares the plugins it imports (``REQUIRES`` in its module). When one is
    # disabled or failed to load, a builtin stops startup naming both; a third-party plugin
    # is skipped with one log line (instead of failing later at its first import or call).
    changed = True
    while changed:
        changed = False
        for name, extension in sorted(extensions.items()):
            missing = [r for r in getattr(extension.plugin, "REQUIRES", ()) or ()
                       if r in available and r not in extensions]
            if missing:
                message = (f"requires {', '.join(repr(m) for m in missing)}, which is disabled or failed to load; "
                           f"disable {name!r} too or enable it")
                if _is_builtin(dists.get(name)):
                    raise PluginError(name, message)
                skipped(name, message)
                del extensions[name]
                changed = True
    for extension in extensions.values():
        dist = dists.get(extension.name)
        origin = "builtin" if _is_builtin(dist) else "third-party"
        version = _name_and_version(dist)[1]
        try:
            plugins.register(extension.plugin, extension.name, origin, version)
        except Exception as exc:  # pluggy validation: unknown hook names, bad signatures
            if origin == "builtin":
                raise PluginError(extension.name, f"failed to register: {exc}") from exc
            skipped(extension.name, f"failed to register: {exc}")
    for name, plugin, *origin in extra:  # (name, object) or (name, object, origin)
        plugins.register(plugin, name, origin[0] if origin else "test")
    plugins.check_hooks()
    return plugins


def _is_builtin(dist: Any) -> bool:
    return _name_and_version(dist)[0] == BUILTIN_DISTRIBUTION


def _name_and_version(dist: Any) -> tuple[str, str]:
    """A distribution's name and version ("", "" for none), read from its metadata file once per
    file: importlib parses the file on every ``.name``/``.version``, a third of a host build."""
    if dist is None:
        return "", ""
    where = getattr(dist, "_path", None)
    if where is None:
        return dist.name, dist.version
    facts = _METADATA_FACTS.get(str(where))
    if facts is None:
        facts = _METADATA_FACTS[str(where)] = (dist.name, dist.version)
    return facts


_METADATA_FACTS: dict[str, tuple[str, str]] = {}  # metadata folder -> (name, version)


def _entry_point_info(name: str, entry_point: Any, dist: Any) -> PluginInfo:
    return PluginInfo(name, _name_and_version(dist)[1],
                      "builtin" if _is_builtin(dist) else "third-party", entry_point.value)


_REFERENCE = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<attr>[\w.]+)$")


def check_reference(value: str, what: str = "renderer") -> str:
    """Check a ``"module:attr"`` reference (a renderer, a layer) without importing it; return an
    error or ''.

    Only the module is looked up (``importlib.util.find_spec``), so a headless host never
    imports a renderer or layer module (they import Kivy); :func:`resolve_reference` imports it.
    """
    match = _REFERENCE.match(value)
    if match is None:
        return f"{what} {value!r} must be a callable or a 'module:attr' string"
    try:
        found = importlib.util.find_spec(match["module"]) is not None
    except (ImportError, ValueError) as exc:
        return f"{what} module of {value!r} cannot be found: {exc}"
    return "" if found else f"{what} module of {value!r} does not exist"


def resolve_reference(value: Any, what: str = "renderer") -> Any:
    """A renderer or layer factory: the callable itself, or what ``"module:attr"`` names (``attr``
    may be dotted; a mapping on the way is indexed by the next part, e.g.
    ``"pkg.screens:RENDERERS.clock"``)."""
    if not isinstance(value, str):
        return value
    match = _REFERENCE.match(value)
    if match is None:
        raise ValueError(f"{what} {value!r} must be a callable or a 'module:attr' string")
    target: Any = importlib.import_module(match["module"])
    for part in match["attr"].split("."):
        target = target[part] if isinstance(target, Mapping) else getattr(target, part)
    if not callable(target):
        raise TypeError(f"{what} {value!r} is a {type(target).__name__}, not callable")
    return target


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
    time, and every host of a process (tests, the gallery) registers the same types."""
    schema, example = json.loads(schema_and_example)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"has an invalid JSON Schema: {exc.message}"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(example))
    return f"example does not match its schema: {errors[0].message}" if errors else None


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

STATE_FILE = "plugins-state.json"


def _process_started(pid: int) -> str | None:
    """When process ``pid`` started (``/proc/<pid>/stat`` field 22), so a reused pid is not
    taken for the server; None when there is no such process (or no ``/proc``: then ``""``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return ""
    except OSError:
        return None
    fields_after_name = stat.rsplit(")", 1)[1].split()
    return fields_after_name[19] if fields_after_name[0] != "Z" else None


def write_state_file(data_dir: Path, items: list[dict[str, Any]]) -> None:
    """Replace ``<data dir>/plugins-state.json`` (0600) with ``items``, marked with this process."""
    body = {"pid": os.getpid(), "process_started": _process_started(os.getpid()),
            "written_at_ms": int(time.time() * 1000), "items": items}
    fd, tmp = tempfile.mkstemp(prefix=".plugins-state-", dir=data_dir)  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(body, handle)
        os.replace(tmp, Path(data_dir) / STATE_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_state_file(data_dir: Path) -> None:
    """Remove the state file this process wrote (a stopped server shows no live state)."""
    path = Path(data_dir) / STATE_FILE
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def read_live_state(data_dir: Path) -> dict[str, Any] | None:
    """The state file of the server running on ``data_dir``; None when no live server wrote one."""
    try:
        body = json.loads((Path(data_dir) / STATE_FILE).read_text())
        pid, started, items = body["pid"], body.get("process_started"), body["items"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(pid, int) or not isinstance(items, list):
        return None
    alive = _process_started(pid)
    if alive is None or (started and alive and alive != started):
        return None
    return body
