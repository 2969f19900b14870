"""``GET /v1/catalog/*``: the eleven catalog lists and who sees suppressed rows."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from builtin_plugins.common.text import Text, no_nul
from builtin_plugins.catalog.queries import Catalog, CatalogQuery
from builtin_plugins.catalog.search_index import INDEXED_COLUMNS, has_fts, has_word_index
from builtin_plugins.common.content import ROW_SERIALIZERS
from builtin_plugins.common.schemas import BooleanText, PageQuery
from hookspecs import Operation, Route
from svc_host.http.errors import ApiError
from svc_host.permissions import CONTENT_CATALOG_READ, CONTENT_MODERATE

FILTER_MAX = 500

NEWEST = (("created_at_ms", True), ("id", True))
CATALOGS = [
    Catalog("jokes", "Joke", {"setup": "setup", "punchline": "punchline", "category": "category_id"},
            NEWEST, suppressible=True),
    Catalog("trivia", "TriviaQuestion",
            {"question": "question", "option_a": "option_a", "option_b": "option_b", "option_c": "option_c",
             "option_d": "option_d", "integration_type": "integration_type", "category": "category_id"},
            NEWEST, suppressible=True),
    Catalog("rss-articles", "RssArticle",
            {"title": "title", "summary": "summary", "link": "link", "guid": "guid", "feed_id": "feed_id"},
            (("published_at_ms", True), ("id", True)), suppressible=True, fts_columns=frozenset(INDEXED_COLUMNS)),
    Catalog("photos", "Photo", {"alt_text": "alt_text", "photographer_name": "photographer_name",
                                "data_provider": "data_provider", "category": "category_id"},
            NEWEST, suppressible=True),
    Catalog("videos", "Video", {"alt_text": "alt_text", "photographer_name": "photographer_name",
                                "data_provider": "data_provider", "category": "category_id"},
            NEWEST, suppressible=True),
    Catalog("stock-quotes", "StockQuote", {"symbol": "symbol", "display_name": "display_name"},
            (("symbol", False), ("symbol_id", False))),
    Catalog("weather-current", "WeatherCurrent",
            {"description": "description", "location_name": "location_name", "location_id": "location_id"},
            (("location_name", False), ("location_id", False))),
    Catalog("weather-alerts", "WeatherAlert",
            {"event": "event", "headline": "headline", "severity": "severity", "excerpt": "excerpt",
             "location_name": "location_name", "location_id": "location_id"},
            (("location_id", False), ("starts_ms", True), ("alert_id", False))),
    Catalog("alerts", "Alert", {"title": "title", "body": "body", "source": "source", "severity": "severity"},
            (("id", True),)),
    Catalog("calendar-events", "CalendarEvent",
            {"title": "title", "location": "location", "description": "description", "source": "source",
             "category": "category_id"},
            (("start_ms", False), ("id", False))),
    Catalog("tasks", "Task", {"title": "title", "list_label": "list_label", "board_key": "board_key",
                              "integration_id": "integration_id"},
            (("completed", False), ("due_at_ms", False), ("id", False))),
]


def _query_schema(catalog: Catalog) -> type:
    attrs: dict[str, Any] = {
        name: Text(validate=[validate.Length(max=FILTER_MAX), no_nul]) for name in catalog.filters
    }
    if catalog.suppressible:
        attrs["suppressed"] = BooleanText(metadata={"description": "needs content.moderate for true"})
    name = "Catalog" + "".join(part.title() for part in catalog.path.split("-")) + "Query"
    return type(name, (PageQuery,), attrs)


class PageSchema(Schema):
    items = fields.List(fields.Dict(), required=True)
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)


class CatalogResource:
    def __init__(self, host: Any, catalog: Catalog, use_fts: bool, use_words: bool):
        self.host = host
        self.catalog = catalog
        self.use_fts = use_fts
        self.use_words = use_words

    def on_get(self, req: Any, resp: Any) -> None:
        principal = req.context.principal
        moderator = principal.has(CONTENT_MODERATE)
        query = req.context.query
        limit, offset = query["limit"], query["offset"]
        db = self.host.db
        entity = getattr(db, self.catalog.entity, None)
        if entity is None:  # the feature that owns the table is not installed
            resp.media = {"items": [], "total": 0, "limit": limit, "offset": offset}
            return
        sql = CatalogQuery(db, entity, self.catalog, self.use_fts, self.use_words)
        for name in self.catalog.filters:
            if name in query:
                sql.add_text_filter(name, query[name])
        if self.catalog.suppressible:
            suppressed = query.get("suppressed")
            if suppressed is True and not moderator:
                raise ApiError(403, "forbidden", "the suppressed filter needs the permission 'content.moderate'")
            if not moderator:
                sql.add_suppressed(False)
            elif suppressed is not None:
                sql.add_suppressed(suppressed)
        total, rows = sql.page(limit, offset)
        serialize = ROW_SERIALIZERS[self.catalog.entity]
        items = []
        for row in rows:
            item = serialize(row)
            if self.catalog.suppressible and moderator:
                item["suppressed"] = row.suppressed
            items.append(item)
        resp.media = {"items": items, "total": total, "limit": limit, "offset": offset}


def catalog_routes(host: Any) -> list[Route]:
    db = host.db
    use_fts = has_fts(db)
    use_words = use_fts and has_word_index(db)
    junction = {}
    link = getattr(db, "CalendarEventCategory", None)
    if link is not None:
        junction = {"category": (f'"{link._table_}"', link._adict_["event"].column,
                                 link._adict_["category_id"].column)}
    routes = []
    for catalog in CATALOGS:
        if catalog.path == "calendar-events":
            catalog = Catalog(catalog.path, catalog.entity, catalog.filters, catalog.order, junction=junction)
        routes.append(Route(f"/v1/catalog/{catalog.path}", CatalogResource(host, catalog, use_fts, use_words), {
            # Moderators (admin) hold content.catalog_read too, so the route table needs only it.
            "GET": Operation(CONTENT_CATALOG_READ, f"{catalog.path} catalog (content.catalog_read)",
                             query=_query_schema(catalog), response=PageSchema, tags=("catalog",)),
        }))
    return routes
