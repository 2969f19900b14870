"""The values plugins hand to the host through hooks.

Every hook that contributes something returns instances of these classes; the host
validates them at startup and names the plugin at fault when one is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

if TYPE_CHECKING:  # pragma: no cover
    from hookspecs.collect import CollectorContext
    from hookspecs.content import FeedItem, TextIndex
    from hookspecs.render import Layer, RenderContext, Stage

RendererSpec = Union[Callable[["RenderContext"], Any], str, None]
"""A renderer: the factory itself or a ``"module:attr"`` reference (``attr`` may be dotted and
index a mapping: ``"pkg.screens:RENDERERS.clock"``). A reference is checked at startup (its
module exists, without importing it) and resolved when a canvas starts, so a headless host
never imports Kivy; a reference that does not resolve names the plugin at fault."""

# Route access levels besides a permission string.
PUBLIC = "@public"
"""No credentials needed."""
AUTHENTICATED = "@authenticated"
"""Any valid API key or session token, no particular permission."""


@dataclass(frozen=True)
class Operation:
    """One HTTP method of a route: who may call it and what it takes and returns.

    ``permission`` is :data:`PUBLIC`, :data:`AUTHENTICATED` or a permission string.
    ``body``/``query``/``response`` are marshmallow schema classes or instances; the host
    validates the JSON body and the query string with them before the responder runs
    (the responder reads ``req.context.body`` and ``req.context.query``) and generates the
    OpenAPI document from the same objects.
    ``raw_body`` names a media type for non-JSON bodies (the responder reads the stream).
    ``max_body`` caps the request body in bytes (default: the host's cap, 1 MiB).
    ``scoped`` also admits a caller holding ``permission`` only for some resources
    (``Principal.scopes``); the responder must then check ``principal.may(permission, name)``.
    ``publishes`` names the change-event topics (``"screens"``, ``"alerts"`` ...) the host
    publishes once this operation succeeded, after its transaction committed, so the canvas
    (and any subscriber) sees the change within a second (``docs/hooks.md``, "Change events").
    ``response_alternatives`` names other media types the responder answers when the client's
    ``Accept`` asks for one (``text/csv``): listed in the OpenAPI document as text.
    """

    permission: str
    summary: str = ""
    body: Any = None
    query: Any = None
    response: Any = None
    status: int = 200
    response_content_type: str = "application/json"
    raw_body: str | None = None
    max_body: int | None = None
    tags: Sequence[str] = ()
    scoped: bool = False
    publishes: Sequence[str] = ()
    response_alternatives: Sequence[str] = ()


@dataclass(frozen=True)
class Route:
    """A path served by a Falcon resource.

    ``path`` is a Falcon URI template (``/v1/screens/{id}``); ``resource`` has
    ``on_get``/``on_post``/... responders; ``operations`` maps each upper-case method to
    its :class:`Operation`. A responder without an operation is never exposed.
    Responders run inside a Pony ``db_session`` unless ``db_session`` is False.
    """

    path: str
    resource: Any
    operations: Mapping[str, Operation]
    db_session: bool = True


@dataclass(frozen=True)
class WebSocketRoute:
    """A WebSocket path served by a small ``falcon.asgi`` resource (``on_websocket``)."""

    path: str
    resource: Any


@dataclass(frozen=True)
class Permission:
    """A permission string and the roles (besides ``admin``, which holds all) that hold it."""

    name: str
    description: str
    roles: Sequence[str] = ()


@dataclass(frozen=True)
class Migration:
    """One ordered, counted change to the database.

    ``id`` is unique within the plugin; ``apply(db)`` runs inside a ``db_session`` and
    must be safe on SQLite and PostgreSQL. Migrations run in the order a plugin returns
    them; plugins run in name order.
    """

    id: str
    apply: Callable[[Any], None]
    description: str = ""
    recorded_as: str = ""
    """When the migration moved from another plugin: that plugin's name, under which databases
    already record it as applied (so it never runs twice, and ``schema_version``, a count of
    applied migrations, does not jump). New databases record it under the same name."""


@dataclass(frozen=True)
class ConfigurableType:
    """Common shape of screen, ticker tape, overlay and integration types.

    ``config_schema`` is a JSON Schema (draft 2020-12) for ``config_json``;
    ``example_config`` must validate against it.
    """

    id: str
    label: str
    config_schema: Mapping[str, Any]
    example_config: Mapping[str, Any]
    description: str = ""


@dataclass(frozen=True)
class ScreenType(ConfigurableType):
    """A slide type. ``renderer`` (a :data:`RendererSpec`) builds the widget for a screen row."""

    renderer: RendererSpec = None


@dataclass(frozen=True)
class TickerType(ConfigurableType):
    """A ticker tape type, made one way: ``build_items(host, tape, now_ms)`` returns the tape's
    marquee strings, which ``GET /v1/ticker/items`` lists and the canvas's marquee shows (it
    calls it on its loader thread, in a ``db_session``; ``tape`` has the row's fields with
    ``config_json`` decoded). A ticker type has no renderer: it draws nothing itself.

    ``refresh_seconds`` (the time tape: 1): while a tape of this type is on screen, the
    marquee builds its items again this often and replaces its text in place; None builds
    them once per marquee cycle.

    ``reads``: the entity names (``host.db.<Name>``) ``build_items`` reads beside the tape and
    the display settings, e.g. ``("Quote",)``; ``()`` for none. ``GET /v1/ticker/items`` is
    cached while those tables are unchanged and within one second of ``now_ms`` (a builder's
    text may follow the clock to the second, no finer); a registered type with ``reads=None``
    (the default: not known) leaves the route uncached.
    """

    build_items: Callable[..., Sequence[str]] | None = None
    refresh_seconds: float | None = None
    reads: tuple[str, ...] | None = None


@dataclass(frozen=True)
class OverlayType(ConfigurableType):
    """An overlay effect type. ``renderer`` (a :data:`RendererSpec`) builds the overlay layer.

    ``zone`` is where its overlays go (:data:`hookspecs.render.ZONES`): ``fullscreen`` (the
    default) for decoration drawn over the whole content area, whose message goes in the
    celebration band; a corner or ``center`` for a panel. A panel type whose config has a
    ``position`` key takes the zone its row's ``position`` names (:meth:`zone_for`), its
    ``zone`` when the row names none (a ``fullscreen`` type ignores ``position``: it draws
    where it likes inside the content area, as before zones). A panel's renderer returns the
    panel itself, sized by its ``size_hint`` (fractions of the content area): the overlays layer
    puts it in its zone and the slides lay out in the area left free (``hookspecs.render.Layout``).
    """

    renderer: RendererSpec = None
    zone: str = "fullscreen"

    def zone_for(self, config: Mapping[str, Any] | None) -> str:
        """The zone of an overlay of this type with ``config``: a panel type's ``position`` when that
        names a zone, else ``zone``."""
        from hookspecs.render import ZONES

        position = (config or {}).get("position")
        if self.zone == "fullscreen" or not isinstance(position, str) or position not in ZONES:
            return self.zone
        return position


@dataclass(frozen=True)
class IntegrationType(ConfigurableType):
    """A scheduled collector. ``collect(context)`` fetches upstream data and upserts rows."""

    family: str = ""
    collect: Callable[["CollectorContext"], Any] | None = None
    requires_accounts: bool = False
    required_account_types: Sequence[str] = ()
    secret_fields: Sequence[str] = ()
    # of ``secret_fields``, those the collector works without (``secrets_configured`` does not wait for them)
    optional_secrets: Sequence[str] = ()


@dataclass(frozen=True)
class CuratorPredicate:
    """A schedule-rule predicate. ``evaluate(state, params)`` returns a bool."""

    id: str
    label: str
    description: str
    implemented: bool = True
    evaluate: Callable[..., bool] | None = field(default=None, compare=False)


LAYER_AREAS = ("screen", "content", "ticker", "free", "alert")
"""Where a layer's widget goes: the whole ``screen``, the slide ``content`` area, the
``ticker`` band, ``free``, the part of the content area the active overlays leave free (the
slides layer draws there), or the ``alert`` band at the top (the alerts layer's; the names of
:class:`hookspecs.render.Layout`)."""


@dataclass(frozen=True)
class LayerSpec:
    """A layer of the canvas (slides, overlays, alerts, the ticker marquee ...).

    ``layer`` is a factory ``layer(stage) -> Layer`` (:class:`hookspecs.render.Layer`), given
    as the callable or, for a Kivy-only module, as a ``"module:attr"`` reference: checked at
    startup (the module exists, nothing imported) and resolved only when a canvas starts, so
    a headless host never imports Kivy. ``z`` orders the layers bottom to top. ``area`` is
    where the compositor puts the layer's widget (:data:`LAYER_AREAS`). ``topics`` are the
    change events after which the layer is loaded again; ``surface`` is the navigation
    surface (``POST /v1/display/navigation``) it answers, if any.
    """

    id: str
    z: int
    layer: Union[Callable[["Stage"], "Layer"], str]
    area: str = "content"
    topics: Sequence[str] = ()
    surface: str | None = None
    description: str = ""


@dataclass(frozen=True)
class FeedBlob:
    """The blob a feed item names (its ``attribute``, a blob key), fetched by the cloud feed from
    ``{SVC_SAAS_API_URL}/v1/displays/{id}/blobs/{key}`` when the display does not hold it, under
    the owner's upload limits: a content type of ``types``, at most ``max_bytes``, and
    ``check(data, content_type)`` (raises ``ValueError`` when the bytes are not that type)."""

    attribute: str
    types: Sequence[str]
    max_bytes: int
    check: Callable[[bytes, str], Any] | None = None


@dataclass(frozen=True)
class FeedKind:
    """How a cloud-feed item of ``kind`` becomes a row of its :class:`ContentList` (CONTRACT "Cloud feed").

    ``values(item, now_ms)`` returns the attributes of the item's row and ``key(item)`` its
    primary-key attributes (by default ``{"id": item.row_id()}``), read with the typed readers of
    :class:`hookspecs.content.FeedItem` (which raise ``FeedError`` on a malformed field).
    ``provenance`` is the attribute that holds ``saas_feed``: feed deletes and snapshots touch
    only rows holding it. ``after_upsert(db, row, item)`` writes what the row links to (a
    calendar event's category rows). An update keeps the row's ``created_at_ms``. ``blob``: the
    media file the item names, which the cloud feed downloads (:class:`FeedBlob`).
    """

    kind: str
    values: Callable[["FeedItem", int], Mapping[str, Any]]
    key: Callable[["FeedItem"], Mapping[str, Any]] | None = None
    provenance: str = "integration_type"
    after_upsert: Callable[[Any, Any, "FeedItem"], None] | None = None
    blob: "FeedBlob | None" = None

    def key_of(self, item: "FeedItem") -> Mapping[str, Any]:
        """The primary-key attributes of ``item``'s row."""
        return self.key(item) if self.key is not None else {"id": item.row_id()}


@dataclass(frozen=True)
class ContentList:
    """A list of content rows a feature owns, offered to the plugins that act on any content.

    ``entity`` names an entity the contributing plugin declares itself (checked at startup);
    ``serialize(row)`` is the row's JSON everywhere (needed by a catalog list). Each domain
    takes what concerns it, never naming a feature's table:

    - the catalog (spec 4.6) lists it at ``GET /v1/catalog/<path>`` when ``catalog``: query
      name -> attribute substring ``filters``, ``order`` as (attribute, descending) pairs,
      ``search`` (a :class:`hookspecs.content.TextIndex`) for indexed filters; a
      ``category`` filter also matches the ``category_links`` rows;
    - moderation (spec 4.4): ``suppressible`` lists (a boolean ``suppressed`` attribute) get
      ``PATCH /v1/content/<path>/{id}`` and ``DELETE``, which releases the row's
      ``blob_attribute`` blob unless a row of any list still uses it; ``deletable`` lists get
      ``DELETE /v1/content/<path>/<primary key>`` (``delete_summary`` in the route table);
      suppressed rows are hidden from every reader that is not a moderator;
    - media (spec 4.8): ``GET /v1/media/<path>/{id}`` answers ``media(row)`` (404 when missing
      or suppressed);
    - curator categories (spec 4.11): a category a row uses through ``category_attribute``
      or ``category_links`` (junction entity, attribute pointing at the row, category
      attribute) cannot be deleted when ``category_guard`` names the 409 code
      (``"<label> use category ..."``);
    - the cloud feed: ``feed`` maps items of a feed kind onto the table.

    A list that only guards categories (``catalog=False``: joke interests) is fine.
    """

    path: str
    entity: str
    serialize: Callable[[Any], Mapping[str, Any]] | None = None
    label: str = ""
    catalog: bool = True
    filters: Mapping[str, str] = field(default_factory=dict)
    order: Sequence[tuple[str, bool]] = (("id", False),)
    search: "TextIndex | None" = None
    suppressible: bool = False
    deletable: bool = False
    delete_summary: str = ""
    blob_attribute: str | None = None
    media: Callable[[Any], Mapping[str, Any]] | None = None
    category_attribute: str = "category_id"
    category_links: tuple[str, str, str] | None = None
    category_guard: str | None = None
    feed: FeedKind | None = None
