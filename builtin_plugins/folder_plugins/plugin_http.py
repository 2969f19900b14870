"""``plugin_http``: a folder plugin's sidecar collects, the display stores (spec 1, 4.14).

Request: ``POST {baseUrl}/collect`` with JSON
``{"integration_id", "integration_type": "plugin_http", "plugin_id", "config", "now_ms"}``
(``config`` is ``config_json`` without ``baseUrl``; the ``token`` secret, when set, is
sent as ``Authorization: Bearer <token>``).

Response: JSON ``{"items": [...], "ticker": "text"?}``, at most 1000 items, each with a
``kind`` and an ``id`` unique within the plugin:

- ``joke``: ``setup``, ``punchline``, ``category_id``;
- ``quote``: ``text``, ``author``, ``category_id``;
- ``rss_article``: ``feed_id``, ``title``, ``summary``, ``link``, ``published_at_ms``;
- ``trivia``: ``question``, ``option_a``..``option_d``, ``correct_option``, ``category_id``.

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
from hookspecs.collecting import CollectorError, clip, plain_text
from hookspecs.services import FOLDER_PLUGINS, MARQUEE_PREFIX, SETTINGS, service

TYPE_ID = "plugin_http"
ROW_PREFIX = TYPE_ID + "."
MAX_ITEMS = 1000
# What a sidecar without POST /collect answers (not found, method not allowed, not implemented).
NOT_COLLECTING = (404, 405, 501)
SCHEMA = {
    "type": "object",
    "properties": {
        "baseUrl": {"type": "string"},
        "pluginId": {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,63}$", "default": "plugin"},
        "options": {"type": "object"},
    },
    "additionalProperties": False,
}

ENTITIES = {"joke": "Joke", "quote": "Quote", "rss_article": "RssArticle", "trivia": "TriviaQuestion"}


def _values(kind: str, item: dict[str, Any], now: int) -> dict[str, Any]:
    text = lambda name, limit: plain_text(item.get(name), limit)  # noqa: E731
    if kind == "joke":
        return {
            "setup": text("setup", 4000) or "-",
            "punchline": text("punchline", 4000),
            "category_id": clip(item.get("category_id") or "general", 64),
        }
    if kind == "quote":
        return {
            "text": text("text", 4000) or "-",
            "author": text("author", 500),
            "category_id": clip(item.get("category_id") or "general", 64),
        }
    if kind == "rss_article":
        published = item.get("published_at_ms")
        return {
            "feed_id": clip(item.get("feed_id") or "plugin", 64),
            "guid": clip(item["id"], 2048),
            "title": text("title", 2000) or "-",
            "summary": text("summary", 20000),
            "link": clip(item.get("link") or "", 2048),
            "published_at_ms": published if isinstance(published, int) else None,
        }
    correct = str(item.get("correct_option") or "A").upper()
    if correct not in ("A", "B", "C", "D"):
        raise CollectorError(f"trivia item {item['id']!r}: correct_option must be A, B, C or D")
    return {
        "question": text("question", 4000) or "-",
        "option_a": text("option_a", 1000),
        "option_b": text("option_b", 1000),
        "option_c": text("option_c", 1000),
        "option_d": text("option_d", 1000),
        "correct_option": correct,
        "category_id": clip(item.get("category_id") or "general", 64),
    }


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
    wanted: dict[str, dict[str, tuple[str, dict]]] = {kind: {} for kind in ENTITIES}
    for item in items:
        if (
            not isinstance(item, dict)
            or item.get("kind") not in ENTITIES
            or not isinstance(item.get("id"), str)
            or not item["id"]
            or len(item["id"]) > 120
        ):
            raise CollectorError("every item needs a known kind and a string id of at most 120 characters")
        wanted[item["kind"]][prefix + item["id"]] = _values(item["kind"], item, ctx.now_ms())
    with orm.db_session:
        for kind, entity in ENTITIES.items():
            table = getattr(ctx.db, entity)
            stored = {r.id: r for r in table.select(lambda r: r.id.startswith(prefix))}
            for row_id, values in wanted[kind].items():
                if row_id in stored:
                    stored[row_id].set(**values)
                else:
                    table(id=row_id, integration_type=TYPE_ID, created_at_ms=ctx.now_ms(), **values)
            for row_id, row in stored.items():
                if row_id not in wanted[kind]:
                    row.delete()
        ticker = data.get("ticker")
        settings = service(ctx.host, SETTINGS)
        if isinstance(ticker, str) and settings is not None:
            settings.put_key_value(MARQUEE_PREFIX + plugin_id, clip(ticker, 8000))
    ctx.summary = f"{len(items)} items from sidecar {plugin_id}"
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
