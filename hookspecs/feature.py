"""A plugin's contributions declared once: ``FEATURE = Feature(...)`` at module level.

Without it, every plugin repeats the same forwarding for each contribution hook::

    @hookimpl
    def register_screen_types():
        return list(types.SCREEN_TYPES)

With it, the plugin states what it contributes and the host implements those hooks for it
(``svc_host.plugins`` reads ``FEATURE`` when it registers the plugin)::

    FEATURE = Feature(
        permissions=declare(INTERESTS_READ),
        entities=models.define_entities,
        types=load_types(__name__),   # types.json: slide, ticker, overlay, integration types
        routes=routes.routes,
        samples="my_plugin.samples:write",
    )

The generated implementations are plain ``@hookimpl`` functions of the plugin (same name,
same order, same failure handling as hand-written ones); the plugin keeps writing the hooks
that do work (``startup``, ``serving``, ``shutdown``, ``authenticate_token``, ...) itself,
with their ``tryfirst``/``trylast`` marks. A hook both declared here and implemented by hand
is refused when the plugin registers (one of the two would be silently ignored).

Fields that take a callable (``entities``, ``routes``, ``samples``) also take a
``"module:attr"`` reference, imported at the first call: a module the plugin only needs when
the hook runs (routes with heavy imports, gallery samples) stays unimported until then.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any, Callable, Sequence, Union

import pluggy

from hookspecs.settings import Setting
from hookspecs.types import (
    ContentList,
    CuratorPredicate,
    IntegrationType,
    LayerSpec,
    Migration,
    OverlayType,
    Permission,
    ScreenType,
    TickerType,
)

_hookimpl = pluggy.HookimplMarker("svc_display")  # hookspecs.hookimpl (that module imports this one)

Reference = Union[Callable[..., Any], str]

# field -> the collected hook it stands for (each returns the field's items as a list)
LIST_HOOKS = {
    "permissions": "register_permissions",
    "settings": "register_settings",
    "migrations": "register_migrations",
    "screen_types": "register_screen_types",
    "ticker_types": "register_ticker_types",
    "overlay_types": "register_overlay_types",
    "integration_types": "register_integration_types",
    "curator_predicates": "register_curator_predicates",
    "content_lists": "register_content_lists",
    "display_layers": "register_display_layers",
    "service_keys": "register_service_keys",
}
# field -> (hook, its one argument): the field's callables are called with it
CALL_HOOKS = {
    "entities": ("register_entities", "db"),
    "routes": ("register_routes", "host"),
    "samples": ("display_samples", "host"),
}


@dataclass(frozen=True)
class Feature:
    """What a plugin contributes; each field stands for one hook (``docs/plugins.md``).

    - ``permissions``, ``settings``, ``migrations``, ``screen_types``, ``ticker_types``,
      ``overlay_types``, ``integration_types``, ``curator_predicates``, ``content_lists``,
      ``display_layers``, ``service_keys``: the items the matching ``register_*`` hook returns;
    - ``entities``: ``define(db)`` (or several), called by ``register_entities``;
    - ``routes``: ``routes(host)`` (or several, their routes joined), for ``register_routes``;
    - ``samples``: ``write(host)``, called by ``display_samples`` (the gallery).
    """

    permissions: Sequence[Permission] = ()
    settings: Sequence[Setting] = ()
    entities: Reference | Sequence[Reference] | None = None
    migrations: Sequence[Migration] = ()
    routes: Reference | Sequence[Reference] | None = None
    screen_types: Sequence[ScreenType] = ()
    ticker_types: Sequence[TickerType] = ()
    overlay_types: Sequence[OverlayType] = ()
    integration_types: Sequence[IntegrationType] = ()
    curator_predicates: Sequence[CuratorPredicate] = ()
    content_lists: Sequence[ContentList] = ()
    display_layers: Sequence[LayerSpec] = ()
    service_keys: Sequence[Any] = ()  # hookspecs.services.ServiceKey (that module imports the host's types)
    samples: Reference | None = None
    stops: Sequence[Any] = ()
    """Service keys whose services this plugin starts: at ``shutdown`` the host calls ``stop()`` on
    each one published, in this order (a plugin whose shutdown does more writes it by hand)."""
    types: Any = None
    """A :class:`hookspecs.catalog.Catalog` (``load_types(__name__)``, the plugin's
    ``types.json``): its slide, ticker, overlay and integration types join the fields of the same
    names (that module imports this one, hence ``Any``)."""

    def items(self, name: str) -> tuple[Any, ...]:
        """What the list field ``name`` contributes: its own items, then the catalog's."""
        return tuple(getattr(self, name)) + tuple(getattr(self.types, name, ()) if self.types else ())

    def hooks(self) -> list[str]:
        """The hooks this declaration implements (the non-empty fields'), in field order."""
        names = []
        for item in fields(self):
            if item.name in LIST_HOOKS and self.items(item.name):
                names.append(LIST_HOOKS[item.name])
            elif item.name in CALL_HOOKS and getattr(self, item.name):
                names.append(CALL_HOOKS[item.name][0])
            elif item.name == "stops" and self.stops:
                names.append("shutdown")
        return names

    def hookimpls(self) -> dict[str, Callable[..., Any]]:
        """``{hook name: @hookimpl function}`` for every non-empty field: the one generic
        implementation of each contribution hook, bound to this declaration."""
        impls: dict[str, Callable[..., Any]] = {}
        for name, hook in LIST_HOOKS.items():
            items = self.items(name)
            if items:
                impls[hook] = _listing(items)
        for name, (hook, _arg) in CALL_HOOKS.items():
            value = getattr(self, name)
            if value:
                impls[hook] = _caller(hook, _references(value))
        if self.stops:
            impls["shutdown"] = _stopper(tuple(self.stops))
        return impls


def _listing(items: tuple[Any, ...]) -> Callable[[], list[Any]]:
    @_hookimpl
    def contribute() -> list[Any]:
        return list(items)

    return contribute


def _stopper(keys: tuple[Any, ...]) -> Callable[[Any], None]:
    @_hookimpl
    def shutdown(host: Any) -> None:
        for key in keys:
            started = host.services.get(key)
            if started is not None:
                started.stop()

    return shutdown


def _references(value: Reference | Sequence[Reference]) -> tuple[Reference, ...]:
    return (value,) if callable(value) or isinstance(value, str) else tuple(value)


def resolve(reference: Reference) -> Callable[..., Any]:
    """A callable, or the one ``"module:attr"`` names (imported now)."""
    if not isinstance(reference, str):
        return reference
    module, _, attr = reference.partition(":")
    return getattr(importlib.import_module(module), attr)


def _caller(hook: str, references: tuple[Reference, ...]) -> Callable[[Any], Any]:
    # pluggy passes arguments by the implementation's parameter names: one function per name
    if hook == "register_entities":
        @_hookimpl
        def register_entities(db: Any) -> None:
            for reference in references:
                resolve(reference)(db)

        return register_entities
    if hook == "register_routes":
        @_hookimpl
        def register_routes(host: Any) -> list[Any]:
            return [route for reference in references for route in resolve(reference)(host)]

        return register_routes

    @_hookimpl
    def display_samples(host: Any) -> None:
        for reference in references:
            resolve(reference)(host)

    return display_samples


def implementation(plugin: Any, hook: str) -> Callable[..., Any] | None:
    """``plugin``'s implementation of ``hook``: the hand-written function, or the one its
    ``FEATURE`` declares; None when it has neither (for tools and tests that read a plugin
    module without a host)."""
    own = getattr(plugin, hook, None)
    if callable(own):
        return own
    feature = getattr(plugin, "FEATURE", None)
    return feature.hookimpls().get(hook) if isinstance(feature, Feature) else None
