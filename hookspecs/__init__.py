"""The svc-display plugin contract.

Every extension point of the host is a hook declared here. A plugin is a module (or
object) with functions decorated with :data:`hookimpl`, published as an entry point in
the group ``svc_display.plugins``. Builtins ship exactly that way.

Hooks that return a list of contributions are called on every plugin and the results are
collected (not ``firstresult``); hooks marked ``firstresult`` stop at the first plugin
that returns something other than ``None``. ``docs/hooks.md`` has an example per hook.
"""
from __future__ import annotations

from typing import Any, Sequence

import pluggy

from hookspecs.types import (  # noqa: F401  (re-exported for plugins)
    AUTHENTICATED,
    PUBLIC,
    ConfigurableType,
    CuratorPredicate,
    IntegrationType,
    Migration,
    Operation,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
    WebSocketRoute,
)

PROJECT = "svc_display"
ENTRY_POINT_GROUP = "svc_display.plugins"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_permissions() -> Sequence[Permission]:
    """Return the permissions this plugin introduces.

    Receives nothing. Returns a list of :class:`Permission`; each names the roles that
    hold it (``admin`` holds every permission anyway). A name declared twice with
    different roles stops startup. Collected from every plugin.
    """


@hookspec
def register_entities(db: Any) -> None:
    """Declare Pony entities on ``db`` (a ``pony.orm.Database``).

    Called once per database before the mapping is generated, so every entity of every
    plugin exists when tables are created. Declare classes inheriting ``db.Entity``;
    they are then reachable as ``db.<ClassName>``. Returns nothing. Collected.
    """


@hookspec
def register_migrations() -> Sequence[Migration]:
    """Return this plugin's ordered :class:`Migration` list.

    Applied migrations are recorded per plugin and id, each runs once. Collected.
    """


@hookspec
def register_routes(host: Any) -> Sequence[Route]:
    """Return the HTTP :class:`Route` objects this plugin serves.

    Receives the running host (settings, db, blobs, registries, clock). Each route names
    the permission of every method, so the permission table can be generated. A path
    registered twice stops startup. Collected.
    """


@hookspec
def register_websocket_routes(host: Any) -> Sequence[WebSocketRoute]:
    """Return :class:`WebSocketRoute` objects served by the ASGI side. Collected."""


@hookspec
def register_middleware(host: Any) -> Sequence[Any]:
    """Return Falcon WSGI middleware objects, run before the host's auth middleware.

    Used for cross-cutting concerns such as CORS. Collected.
    """


@hookspec
def register_screen_types() -> Sequence[ScreenType]:
    """Return the :class:`ScreenType` objects (slide types) this plugin provides. Collected."""


@hookspec
def register_ticker_types() -> Sequence[TickerType]:
    """Return the :class:`TickerType` objects (ticker tape types) this plugin provides. Collected."""


@hookspec
def register_overlay_types() -> Sequence[OverlayType]:
    """Return the :class:`OverlayType` objects (overlay effects) this plugin provides. Collected."""


@hookspec
def register_integration_types() -> Sequence[IntegrationType]:
    """Return the :class:`IntegrationType` objects (collectors) this plugin provides. Collected."""


@hookspec
def register_curator_predicates() -> Sequence[CuratorPredicate]:
    """Return the :class:`CuratorPredicate` objects usable in schedule rules. Collected."""


@hookspec
def register_commands(subparsers: Any) -> None:
    """Add ``svc-display`` sub-commands to the argparse ``subparsers`` object.

    Each parser sets ``handler=callable(host, args) -> int`` with ``set_defaults``.
    Returns nothing. Collected.
    """


@hookspec(firstresult=True)
def authenticate_token(host: Any, token: str) -> Any:
    """Resolve a Bearer token to a principal, or return ``None``.

    Receives the raw token. Returns an :class:`svc_host.auth.Principal` for a valid API
    key or session token. Implementations compare hashes in constant time.
    ``firstresult``: the first principal wins.
    """


@hookspec
def startup(host: Any) -> None:
    """Called once after storage and registries are ready, before serving. Returns nothing."""


@hookspec
def shutdown(host: Any) -> None:
    """Called once when the host stops, before the database closes. Returns nothing."""
