"""``host.services``: the shared services, by declared :class:`hookspecs.services.ServiceKey` only.

pytest's ``Stash`` is the model: keys are objects hashed by identity, so a typo'd string or a
key nobody declared cannot reach a service. On top of that, this registry knows who publishes:
only the key's owner may set or withdraw its value.

Who is calling is read from the call stack (``sys._getframe``): the first frame outside this
module (and the ``hookspecs.services`` helpers) names a module, and the module names a plugin
(``builtin_plugins.<name>...`` -> ``<name>``; ``svc_host...`` -> ``host``; a registered plugin's
own module or package -> its name). Pluggy hands every plugin the same ``host``, so nothing
else tells the registry which plugin holds it; passing the publisher explicitly would let any
plugin claim any name. Code that belongs to no plugin (the test suite, benchmarks, an embedding
script) and throwaway plugins registered with origin ``test`` may publish anything: they
stand in for owners (test doubles). A plugin under test that replaces its installed copy is
not a throwaway: it is held to its own keys as in production.
"""
from __future__ import annotations

import sys
import threading
import types
from typing import Any, Callable, Iterable, Iterator, MutableMapping

from hookspecs.services import SERVICE_KEYS, ServiceKey

_SKIPPED_MODULES = frozenset({__name__, "hookspecs.services", "_collections_abc", "collections.abc"})
_MISSING = object()


class ServiceKeyError(LookupError):
    """A key that is not a declared :class:`ServiceKey`."""


class ServiceOwnerError(PermissionError):
    """A plugin publishing (or withdrawing) a service it does not own."""


def caller_module(skip: frozenset[str] = _SKIPPED_MODULES) -> str:
    """The ``__name__`` of the nearest calling module outside ``skip``."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in skip:
        frame = frame.f_back
    return frame.f_globals.get("__name__", "?") if frame is not None else "?"


def builtin_plugin_of(module: str) -> str | None:
    """``host`` for the host's modules, ``<name>`` for ``builtin_plugins.<name>``, else None."""
    if module == "svc_host" or module.startswith("svc_host."):
        return "host"
    parts = module.split(".")
    if parts[0] == "builtin_plugins" and len(parts) > 1:
        return parts[1]
    return None


class PluginModules:
    """Module name -> plugin name for the plugins of a :class:`svc_host.plugins.PluginHost`,
    and whether a plugin may stand in for owners (origin ``test``)."""

    def __init__(self, plugins: Any) -> None:
        self.plugins = plugins

    def _prefixes(self) -> Iterator[tuple[str, str]]:
        for name, plugin in list(self.plugins.pm.list_name_plugin()):
            module = plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__
            yield module, name

    def plugin_of(self, module: str) -> str | None:
        builtin = builtin_plugin_of(module)
        if builtin is not None:
            return builtin
        best: tuple[int, str] | None = None
        for prefix, name in self._prefixes():
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), name)
        return best[1] if best else None

    def stands_in(self, plugin: str) -> bool:
        """A throwaway test plugin may publish any key (a test double); a plugin under test that
        replaces its installed copy (the authors' kit registers it so) is held to its own keys."""
        info = self.plugins.info.get(plugin)
        return info is not None and info.origin == "test" and plugin not in self.plugins.disabled


class ServiceRegistry(MutableMapping):
    """The mapping behind ``host.services`` (:class:`hookspecs.services.ServiceRegistry`).

    Refuses (``TypeError``) a key that is not a :class:`ServiceKey`, refuses
    (:class:`ServiceKeyError`) a key not declared (:data:`hookspecs.services.SERVICE_KEYS`, or a
    plugin's ``register_service_keys``), and refuses (:class:`ServiceOwnerError`) a publish or
    withdrawal by a plugin other than ``key.owner``. Each message names the calling plugin.
    """

    def __init__(self, keys: Iterable[ServiceKey[Any]] = SERVICE_KEYS,
                 plugin_of: Callable[[str], str | None] = builtin_plugin_of,
                 stands_in: Callable[[str], bool] = lambda plugin: False) -> None:
        self._values: dict[ServiceKey[Any], Any] = {}
        self._declared: dict[str, ServiceKey[Any]] = {}
        self._plugin_of = plugin_of
        self._stands_in = stands_in
        self._lock = threading.RLock()  # setdefault is one step for concurrent first users
        for key in keys:
            self.declare(key, key.owner)

    # -- declaring ----------------------------------------------------------------------------

    def declare(self, key: Any, plugin: str) -> None:
        """Accept ``key`` as declared by ``plugin``; ``ValueError``/``TypeError`` say why not."""
        if not isinstance(key, ServiceKey):
            raise TypeError(f"declares {key!r}, not a hookspecs.services.ServiceKey")
        if key.owner != plugin:
            raise ValueError(f"declares service key {key.name!r} owned by {key.owner!r}; "
                             f"a plugin declares only its own keys (owner={plugin!r})")
        known = self._declared.get(key.name)
        if known is not None and known is not key:
            raise ValueError(f"declares service key {key.name!r}, already declared by {known.owner!r}")
        self._declared[key.name] = key

    def declared(self) -> list[ServiceKey[Any]]:
        return list(self._declared.values())

    # -- checks -------------------------------------------------------------------------------

    def _caller(self) -> tuple[str, str | None]:
        module = caller_module()
        return module, self._plugin_of(module)

    def _check_key(self, key: Any) -> None:
        if isinstance(key, ServiceKey) and self._declared.get(key.name) is key:
            return
        module, plugin = self._caller()
        who = f"plugin {plugin!r}" if plugin else f"module {module!r}"
        if not isinstance(key, ServiceKey):
            raise TypeError(f"{who} used {key!r} as a service key: host.services takes a ServiceKey "
                            "(hookspecs.services, or one its plugin declares), never a string")
        raise ServiceKeyError(f"{who} used service key {key.name!r} (owner {key.owner!r}), which is not "
                              "declared: declare it in hookspecs.services or return it from the owning "
                              "plugin's register_service_keys hook")

    def _check_owner(self, key: ServiceKey[Any], action: str) -> None:
        module, plugin = self._caller()
        if plugin is None or plugin == key.owner or self._stands_in(plugin):
            return
        raise ServiceOwnerError(f"plugin {plugin!r} ({module}) may not {action} service {key.name!r}: "
                                f"only its owner {key.owner!r} does")

    # -- the mapping --------------------------------------------------------------------------

    # Reads are on hot paths (per request, per frame): the check is inlined there.
    def __getitem__(self, key: ServiceKey[Any]) -> Any:
        if not (key.__class__ is ServiceKey and self._declared.get(key.name) is key):
            self._check_key(key)
        return self._values[key]

    def get(self, key: ServiceKey[Any], default: Any = None) -> Any:
        if not (key.__class__ is ServiceKey and self._declared.get(key.name) is key):
            self._check_key(key)
        return self._values.get(key, default)

    def __contains__(self, key: object) -> bool:
        self._check_key(key)
        return key in self._values

    def __setitem__(self, key: ServiceKey[Any], value: Any) -> None:
        self._check_key(key)
        self._check_owner(key, "publish")
        self._values[key] = value

    def setdefault(self, key: ServiceKey[Any], default: Any = None) -> Any:
        self._check_key(key)
        with self._lock:
            if key in self._values:
                return self._values[key]
            self._check_owner(key, "publish")
            self._values[key] = default
            return default

    def __delitem__(self, key: ServiceKey[Any]) -> None:
        self._check_key(key)
        self._check_owner(key, "withdraw")
        del self._values[key]

    def pop(self, key: ServiceKey[Any], default: Any = _MISSING) -> Any:
        self._check_key(key)
        self._check_owner(key, "withdraw")
        if default is _MISSING:
            return self._values.pop(key)
        return self._values.pop(key, default)

    def __iter__(self) -> Iterator[ServiceKey[Any]]:
        return iter(list(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"ServiceRegistry({sorted(key.name for key in self._values)})"
