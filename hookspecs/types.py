"""The values plugins hand to the host through hooks.

Every hook that contributes something returns instances of these classes; the host
validates them at startup and names the plugin at fault when one is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

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
    """A slide type. ``renderer`` builds the display widget for a screen row (display issue)."""

    renderer: Callable[..., Any] | None = None


@dataclass(frozen=True)
class TickerType(ConfigurableType):
    """A ticker tape type.

    ``build_items(host, tape, now_ms)`` returns the tape's marquee strings (the REST
    snapshot of ``/v1/ticker/items``); ``renderer`` builds the display's tape content.
    """

    build_items: Callable[..., Sequence[str]] | None = None
    renderer: Callable[..., Any] | None = None


@dataclass(frozen=True)
class OverlayType(ConfigurableType):
    """An overlay effect type. ``renderer`` builds the overlay layer (display issue)."""

    renderer: Callable[..., Any] | None = None


@dataclass(frozen=True)
class IntegrationType(ConfigurableType):
    """A scheduled collector. ``collect(context)`` fetches upstream data and upserts rows."""

    family: str = ""
    collect: Callable[..., Any] | None = None
    requires_accounts: bool = False
    required_account_types: Sequence[str] = ()
    secret_fields: Sequence[str] = ()


@dataclass(frozen=True)
class CuratorPredicate:
    """A schedule-rule predicate. ``evaluate(state, params)`` returns a bool."""

    id: str
    label: str
    description: str
    implemented: bool = True
    evaluate: Callable[..., bool] | None = field(default=None, compare=False)
