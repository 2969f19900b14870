"""The svc-display plugin contract.

Every extension point of the host is a hook declared here. A plugin is a module (or
object) with functions decorated with :data:`hookimpl`, published as an entry point in
the group ``svc_display.plugins``. Builtins ship exactly that way.

Hooks that return a list of contributions are called on every plugin and the results are
collected (not ``firstresult``); hooks marked ``firstresult`` stop at the first plugin
that returns something other than ``None``. ``docs/hooks.md`` has an example per hook.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pluggy

from hookspecs.types import (  # noqa: F401  (re-exported for plugins)
    AUTHENTICATED,
    PUBLIC,
    ConfigurableType,
    ContentList,
    CuratorPredicate,
    FeedBlob,
    FeedKind,
    IntegrationType,
    LayerSpec,
    Migration,
    Operation,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
    WebSocketRoute,
)
from hookspecs.settings import Setting, SettingValues  # noqa: F401  (re-exported for plugins)
from hookspecs.feature import Feature  # noqa: F401  (re-exported for plugins)

if TYPE_CHECKING:  # pragma: no cover  (pytest's hookspec.py does the same: real classes, no import cost)
    import argparse

    from pony.orm import Database

    from hookspecs.host import Host, HostSettings as Settings
    from hookspecs.permissions import Principal
    from hookspecs.services import ServiceKey

PROJECT = "svc_display"
ENTRY_POINT_GROUP = "svc_display.plugins"
# The response header of ``GET /v1/health`` that carries the display's clock in epoch ms, read
# by a controller for its clock offset (the Date header has whole seconds).
CLOCK_HEADER = "X-Svc-Clock-Ms"

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
def register_settings() -> Sequence[Setting]:
    """Return the environment variables this plugin reads, as :class:`Setting` declarations.

    Receives nothing; must not read the environment itself. The host reads and checks every
    declared variable once at start, before ``prepare_storage``: a bad value stops the start
    naming the variable and this plugin (exit status 2); a variable declared twice, or one the
    host reads itself, stops it too. The typed values are then
    ``settings.plugin_values(<this plugin's name>)`` (``host.settings`` from ``startup`` on).
    ``svc-display serve --help`` lists the declarations under the plugin's name. Collected.
    """


@hookspec
def register_service_keys() -> Sequence[ServiceKey]:
    """Return the :class:`hookspecs.services.ServiceKey` objects of the services this plugin publishes.

    Receives nothing. A third-party plugin declares its keys in its own module
    (``THING = ServiceKey("myplugin.thing", ThingProtocol, owner="myplugin")``, ``owner`` its
    plugin name) and returns them here; ``host.services`` then accepts them, from this plugin
    alone as publisher. A key owned by another plugin, a name already taken or something not
    a ``ServiceKey`` skips the plugin (a builtin stops startup). Builtins' keys are declared
    in ``hookspecs.services``. Collected from every plugin.
    """


@hookspec
def register_entities(db: Database) -> None:
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
def register_routes(host: Host) -> Sequence[Route]:
    """Return the HTTP :class:`Route` objects this plugin serves.

    Receives the running host (settings, db, blobs, registries, clock). Each route names
    the permission of every method, so the permission table can be generated. A path
    registered twice stops startup. Collected.
    """


@hookspec
def register_websocket_routes(host: Host) -> Sequence[WebSocketRoute]:
    """Return :class:`WebSocketRoute` objects served by the ASGI side. Collected."""


@hookspec
def register_middleware(host: Host) -> Sequence[Any]:
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
def register_display_layers() -> Sequence[LayerSpec]:
    """Return the :class:`LayerSpec` objects (layers of the canvas) this plugin draws. Collected.

    Receives nothing. Each spec names a layer factory (a callable or a ``"module:attr"``
    reference to a Kivy-only module, checked at startup and resolved only when a canvas
    starts), its ``z`` order, the area it draws in, the change-event topics it follows and
    the navigation surface it answers. The host's compositor draws every layer; the
    layer asks its owners' services what to show (``hookspecs.render.Layer``). An id
    registered twice stops the later plugin.
    """


@hookspec
def display_samples(host: Host) -> None:
    """Write sample content for the types this plugin draws into ``host.db`` and ``host.blobs``.

    Called only by ``svc-display gallery`` (``svc_host.display.gallery``), on a throwaway data
    dir, inside a ``db_session``: realistic rows (a forecast, headlines, events ...) that the
    plugin's screen and overlay types, with their ``example_config``, find and draw, so no
    picture of the gallery is empty. Returns nothing. Called on every plugin.
    """


@hookspec
def register_integration_types() -> Sequence[IntegrationType]:
    """Return the :class:`IntegrationType` objects (collectors) this plugin provides. Collected."""


@hookspec
def register_curator_predicates() -> Sequence[CuratorPredicate]:
    """Return the :class:`CuratorPredicate` objects usable in schedule rules. Collected."""


@hookspec
def register_content_lists() -> Sequence[ContentList]:
    """Return the :class:`ContentList` objects this plugin offers: lists of content rows in
    tables it declares, which the catalog, moderation, media, curator categories and the
    cloud feed act on without naming the feature. A path or feed kind given twice, or an
    entity the plugin does not declare, stops startup naming the plugin. Collected.
    """


@hookspec
def register_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``svc-display`` sub-commands to the argparse ``subparsers`` object.

    Each parser sets ``handler=callable(host, args) -> int`` with ``set_defaults``.
    Returns nothing. Collected.
    """


@hookspec(firstresult=True)
def authenticate_token(host: Host, token: str) -> Principal | None:
    """Resolve a Bearer token to a principal, or return ``None``.

    Receives the raw token. Returns a :class:`hookspecs.permissions.Principal` for a valid API
    key or session token. Implementations compare hashes in constant time.
    ``firstresult``: the first principal wins.
    """


@hookspec
def prepare_storage(settings: Settings) -> None:
    """Called once per start with the host's settings (:class:`hookspecs.host.HostSettings`), before the database opens.

    For work on the data dir that must happen while nothing holds the database open
    (finishing or rolling back an interrupted restore). Raise to stop startup; the host
    names the plugin. Returns nothing. Collected.
    """


@hookspec
def startup(host: Host) -> None:
    """Called once after storage and registries are ready, before serving. Returns nothing.

    Plugins start in pluggy's call order: ``@hookimpl(tryfirst=True)`` first (mark it when
    other plugins' ``startup`` uses a service this one publishes), ``trylast`` last.
    """


@hookspec
def serving(host: Host) -> None:
    """Called once when the HTTP server accepts connections (after every ``startup``).

    For work that needs the display's own API reachable: the folder plugins start their
    sidecars here. Runs on the server's thread: return at once (start a thread for anything
    slow). A plugin that raises is logged with its name; serving goes on. Returns nothing.
    Collected.
    """


@hookspec
def health_fields(host: Host) -> Mapping[str, Any]:
    """Return top-level fields of ``GET /v1/health`` this plugin answers for.

    The interface's ``upgrade_capable`` (maintenance) and ``plugins_dir_configured`` (folder
    plugins) come from here; with their plugin disabled the host answers ``False``. Called on
    every health request: return at once. A field the host answers itself (``status``,
    ``version``...) is not replaced. Collected.
    """


@hookspec
def describe_plugins(settings: Settings) -> Sequence[Mapping[str, Any]]:
    """Return rows for plugins this plugin manages that are not entry points (folder plugins).

    ``svc-display plugins list`` calls it when no server runs on the data dir: each row is
    ``{id, name, kind, origin, version, state, reason}`` with ``state`` ``stopped`` (or
    ``failed``/``disabled``), as ``GET /v1/plugins`` would list it. Must not start anything.
    Collected.
    """


@hookspec
def shutdown(host: Host) -> None:
    """Called once when the host stops, before the database closes. Returns nothing."""
