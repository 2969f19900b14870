"""The plugin manager: discovery, registration, hook calls and failures naming the plugin.

Builtins and third-party plugins alike are entry points of ``svc_display.plugins``,
discovered with stevedore and registered in pluggy. A builtin is an entry point of the
``svc-display`` distribution itself; a builtin that fails stops startup with its name, a
third-party plugin that fails is logged with its name and skipped. What plugins contribute
is gathered in :mod:`svc_host.registries`; ``"module:attr"`` references are
:mod:`svc_host.references`; the live-state file a server writes is :mod:`svc_host.live_state`.
"""
from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Iterable, Sequence

import pluggy
from stevedore import NamedExtensionManager

import hookspecs

log = logging.getLogger(__name__)

BUILTIN_DISTRIBUTION = "svc-display"
HOST_PLUGIN_NAME = "host"


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


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, told where a ``FEATURE`` plugin's hooks are (see :class:`_Declared`)."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        # Every hook implementation of a _Declared plugin is in its own attributes; pluggy would
        # look each other name of its module up statically (inspect.getattr_static), two thirds
        # of a host's plugin registration, to find nothing.
        if isinstance(plugin, _Declared) and name not in vars(plugin):
            return None
        return super().parse_hookimpl_opts(plugin, name)


class PluginHost:
    """Pluggy manager plus what we know about each plugin (origin, version)."""

    def __init__(self) -> None:
        self.pm = _PluginManager(hookspecs.PROJECT)
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
            wrappers = self.wrapper_hooks(name)
            try:
                if unknown:
                    self.fail(name, f"implements unknown hooks {unknown} (misspelled? see docs/hooks.md)")
                if wrappers:
                    self.fail(name, f"implements {wrappers} as a wrapper (wrapper=True or hookwrapper=True): the host "
                                    "calls each plugin's implementation on its own, so a wrapper would never wrap "
                                    "anything; use tryfirst/trylast (docs/hooks.md, \"Order\")")
            except PluginSkipped:
                pass
        self.pm.check_pending()

    def wrapper_hooks(self, name: str) -> list[str]:
        """Hooks plugin ``name`` implements as a pluggy wrapper (``wrapper=True`` or
        ``hookwrapper=True``): refused, since :meth:`call_each` calls every implementation alone."""
        plugin = self.pm.get_plugin(name)
        return sorted({caller.name for caller in self.pm.get_hookcallers(plugin) or ()
                       for impl in caller.get_hookimpls()
                       if impl.plugin is plugin and (impl.wrapper or impl.hookwrapper)})

    def shutdown(self, host: Any, started: Sequence[str] | None = None) -> None:
        """``shutdown`` on each plugin, the reverse of the start order: the plugins that ran
        ``startup`` (``started``, in the order they started; by default every implementer of
        ``startup``, the order :func:`svc_host.host.build_host` starts them in) last started first,
        then those implementing ``shutdown`` without ``startup``. A plugin that started after
        another (it may use what that one publishes) stops before it. A failure is logged with
        the plugin's name and the others still stop."""
        order = list(reversed(self.implementers("startup") if started is None else list(started)))
        if started is None:
            order += [name for name in self.implementers("shutdown") if name not in order]
        for name in order:
            self.call_quietly("shutdown", only=[name], host=host)

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


# The last reading of each entry-point group, with what it depends on (see installed_entry_points).
_ENTRY_POINTS: dict[str, tuple[tuple[Any, ...], metadata.EntryPoints]] = {}


def _path_stamp() -> tuple[Any, ...]:
    """What a reading of the installed distributions depends on: each ``sys.path`` entry, its
    modification time and the names in it (two changes within one tick of the file system's
    clock can leave the time as it was)."""
    stamps: list[Any] = []
    for entry in sys.path:
        try:
            stamps.append((entry, os.stat(entry or ".").st_mtime_ns, tuple(sorted(os.listdir(entry or ".")))))
        except OSError:  # missing, or a file (a zip)
            stamps.append((entry, None, None))
    return tuple(stamps)


def installed_entry_points(group: str = hookspecs.ENTRY_POINT_GROUP) -> metadata.EntryPoints:
    """``importlib.metadata.entry_points(group=group)``, read again only when ``sys.path``, the
    modification time of one of its folders or the names in one changed since the last reading:
    installing or removing a distribution adds or removes a ``.dist-info`` folder in one of them
    (stevedore's entry-point cache keys its file on the times). Reading every installed distribution's
    metadata costs about 12 ms of CPU; a process that builds hosts many times (the test kit, by
    the thousand) read it twice a build. By hand: importlib.metadata keeps no cache, and
    stevedore's cached entry points carry no distribution (origin and version)."""
    stamp = _path_stamp()
    cached = _ENTRY_POINTS.get(group)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = metadata.entry_points(group=group)
    _ENTRY_POINTS[group] = (stamp, found)
    return found


def load_plugins(disabled: Iterable[str] = (), extra: Iterable[tuple[Any, ...]] = ()) -> PluginHost:
    """Discover entry-point plugins (minus ``disabled``), add ``extra`` (name, object[, origin])."""
    plugins = PluginHost()
    disabled = set(disabled)
    extra = list(extra)
    available = {ep.name: ep for ep in installed_entry_points()}
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


def builtin_names(group: str = hookspecs.ENTRY_POINT_GROUP) -> set[str]:
    """The names of the installed entry points of ``group`` that svc-display itself ships."""
    return {ep.name for ep in installed_entry_points(group) if _is_builtin(ep.dist)}


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
