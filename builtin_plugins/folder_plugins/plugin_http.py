"""``plugin_http``: a folder plugin's sidecar collects, the display stores (spec 1, 4.14).

Request: ``POST {baseUrl}/collect`` with JSON
``{"integration_id", "integration_type": "plugin_http", "plugin_id", "config", "now_ms"}``
(``config`` is ``config_json`` without ``baseUrl``; the ``token`` secret, when set, is
sent as ``Authorization: Bearer <token>``).

Response: JSON ``{"items": [...], "ticker": "text"?}``, at most 1000 items, each with a
``kind`` and an ``id`` unique within the plugin:

- ``joke``: ``setup`` (required), ``punchline``, ``category_id``;
- ``quote``: ``text`` (required), ``author``, ``category_id``;
- ``rss_article``: ``title`` (required), ``feed_id``, ``guid``, ``summary``, ``link``,
  ``image_blob_key``, ``published_at_ms``;
- ``trivia``: ``question``, ``option_a``, ``option_b`` (required), ``option_c``, ``option_d``,
  ``correct_option`` (A-D, required), ``category_id``.

The collector never names those tables: each kind is written by the feature that owns it
(``content``, ``news``) through the content-ingest service (``hookspecs.content``), with
the same mapping (and required fields) as the cloud feed's items. An item of a kind whose
feature is disabled is refused with one log line naming the type; the rest are stored. A
malformed item fails the run and nothing of the answer is stored.

Rows get id ``plugin_http:<plugin_id>:<id>`` and ``integration_type`` ``plugin_http``;
rows of the plugin missing from the answer are removed (the answer is the full set).
``ticker`` (when present) is stored as key-value ``ticker.marquee.<plugin_id>`` (through the
settings service, in the same transaction as the rows).

Each folder plugin with a sidecar has its own integration row ``plugin_http.<plugin id>``
(made at startup, enabled, ``config_json`` ``{"pluginId": <id>}``): without a ``baseUrl``
the collector asks the folder plugins' registry where the plugin's sidecar listens now (its
port changes at every start), and a sidecar that answers 404, 405 or 501 to ``/collect``
has nothing to collect (the run is ``ok`` and changes nothing). A ``baseUrl`` in
``config_json`` still wins (a sidecar somewhere else, or a test's upstream).
"""

from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs import IntegrationType
from hookspecs.collect import UpstreamStatus
from svc_host.kit.collecting import CollectorError, clip
from hookspecs.content import FeedError, FeedItem
from hookspecs.services import CONTENT_INGEST, FOLDER_PLUGINS, MARQUEE_PREFIX, SETTINGS, require, service

TYPE_ID = "plugin_http"
ROW_PREFIX = TYPE_ID + "."
MAX_ITEMS = 1000
# What a sidecar without POST /collect answers (not found, method not allowed, not implemented).
NOT_COLLECTING = (404, 405, 501)
SCHEMA = {
    "type": "object",
    "properties": {
        "baseUrl": {"type": "string", "title": "Plugin address",
                    "description": "Where the plugin's helper program answers; empty: the installed plugin's own."},
        "pluginId": {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,63}$", "default": "plugin", "title": "Plugin"},
        "options": {"type": "object", "title": "Options", "description": "Settings passed to the plugin."},
    },
    "additionalProperties": False,
}

KINDS = ("joke", "quote", "rss_article", "trivia")
"""The item kinds a sidecar may send; each is written by the feature that owns its table
(``content``: joke, quote, trivia; ``news``: rss_article) through the content-ingest service."""


def row_id(plugin_id: str) -> str:
    """The integration row of a folder plugin's sidecar: ``plugin_http.<plugin id>``."""
    return ROW_PREFIX + plugin_id


def _sidecar_base(ctx: Any, plugin_id: str) -> str:
    """Where the folder plugin ``plugin_id``'s sidecar listens now; CollectorError when nowhere."""
    registry = service(ctx.host, FOLDER_PLUGINS)
    row = registry.row(plugin_id) if registry is not None else None
    if row is None or row["state"] == "failed" and row["sidecar"] is None:
        raise CollectorError(f"no folder plugin {plugin_id!r} is installed and config_json has no baseUrl")
    if row["sidecar"] is None:
        state = "is disabled" if row["state"] == "disabled" else "has no sidecar"
        raise CollectorError(f"folder plugin {plugin_id!r} {state} and config_json has no baseUrl")
    url = registry.sidecar_url(plugin_id)
    if url is None:
        why = f": {row['reason']}" if row.get("reason") else ""
        raise CollectorError(f"the sidecar of folder plugin {plugin_id!r} is {row['state']}{why}")
    return url


def collect(ctx: Any) -> str:
    plugin_id = ctx.config.get("pluginId", "plugin")
    base = ctx.config.get("baseUrl") or _sidecar_base(ctx, plugin_id)
    headers = {"Authorization": f"Bearer {ctx.secrets['token']}"} if ctx.secrets.get("token") else {}
    config = {k: v for k, v in ctx.config.items() if k != "baseUrl"}
    try:
        data = ctx.http.post_json(
            base.rstrip("/") + "/collect",
            {
                "integration_id": ctx.integration_id,
                "integration_type": TYPE_ID,
                "plugin_id": plugin_id,
                "config": config,
                "now_ms": ctx.now_ms(),
            },
            headers=headers,
        )
    except UpstreamStatus as exc:
        if exc.status in NOT_COLLECTING and not ctx.config.get("baseUrl"):
            ctx.summary = f"sidecar {plugin_id} has no POST /collect ({exc.status}): nothing collected"
            return ctx.summary
        raise
    if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
        raise CollectorError("the sidecar answer is not {items: [...]}")
    items = data.get("items", [])
    if len(items) > MAX_ITEMS:
        raise CollectorError(f"the sidecar sent {len(items)} items, more than {MAX_ITEMS}")
    prefix = f"{TYPE_ID}:{plugin_id}:"
    by_kind: dict[str, list[FeedItem]] = {kind: [] for kind in KINDS}
    for item in items:
        if (
            not isinstance(item, dict)
            or item.get("kind") not in KINDS
            or not isinstance(item.get("id"), str)
            or not item["id"]
            or len(item["id"]) > 120
        ):
            raise CollectorError("every item needs a known kind and a string id of at most 120 characters")
        by_kind[item["kind"]].append(FeedItem(item, source=TYPE_ID, id_prefix=prefix))
    ingest = require(ctx.host, CONTENT_INGEST)
    refused = ingest.refused(f"sidecar {plugin_id}", [kind for kind, found in by_kind.items() if found])
    try:
        with orm.db_session:
            for kind, found in by_kind.items():
                writer = ingest.writer(kind)
                if writer is not None:  # the answer is the full set: rows of the plugin not in it go
                    writer.replace(found, TYPE_ID, prefix, ctx.now_ms())
            ticker = data.get("ticker")
            settings = service(ctx.host, SETTINGS)
            if isinstance(ticker, str) and settings is not None:
                settings.put_key_value(MARQUEE_PREFIX + plugin_id, clip(ticker, 8000))
    except FeedError as exc:  # a malformed item: nothing of this answer is stored
        raise CollectorError(str(exc)) from None
    stored = len(items) - sum(len(by_kind[kind]) for kind in refused)
    ctx.summary = f"{stored} items from sidecar {plugin_id}" + (
        f" ({', '.join(refused)} refused: not stored by any enabled feature)" if refused else "")
    return ctx.summary


INTEGRATION_TYPE = IntegrationType(
    TYPE_ID,
    "Plugin sidecar (HTTP)",
    SCHEMA,
    {"pluginId": "plugin"},
    family="plugin",
    collect=collect,
    secret_fields=("token",),
    optional_secrets=("token",),  # a sidecar may need no token: its rows collect without one
)
