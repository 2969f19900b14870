"""``GET /v1/catalog/<path>``: one paginated list per contributed content list, and who sees
suppressed rows."""
from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from svc_host.kit.rest import ApiError, BooleanText, PageQuery, Text, cached_list, no_nul
from builtin_plugins.catalog.queries import Catalog, CatalogQuery
from hookspecs import ContentList, Operation, Permission, Route
from hookspecs.permissions import CONTENT_MODERATE, POWER_VIEWERS, declare
from hookspecs.records import record

FILTER_MAX = 500
CONTENT_CATALOG_READ = "content.catalog_read"
# content.moderate is moderation's too: here it shows moderators suppressed rows.
PERMISSIONS = [Permission(CONTENT_CATALOG_READ, "read the content catalog (active rows only)", POWER_VIEWERS),
               *declare(CONTENT_MODERATE)]


def _query_schema(catalog: Catalog) -> type:
    attrs: dict[str, Any] = {
        name: Text(validate=[validate.Length(max=FILTER_MAX), no_nul]) for name in catalog.filters
    }
    if catalog.suppressible:
        attrs["suppressed"] = BooleanText(metadata={"description": "needs content.moderate for true"})
    name = "Catalog" + "".join(part.title() for part in catalog.path.split("-")) + "Query"
    return type(name, (PageQuery,), attrs)


PageSchema = record("PageSchema", items=fields.List(fields.Dict()), total=fields.Integer, limit=fields.Integer,
                    offset=fields.Integer)


class CatalogResource:
    def __init__(self, host: Any, catalog: Catalog):
        self.host = host
        self.catalog = catalog
        # What a page is read from: the rows and their category links (search indexes and
        # counts follow the rows in the writer's transaction).
        self.tables = [getattr(host.db, catalog.entity)._table_,
                       *(table.strip('"') for table, _row, _category in catalog.junction.values())]

    @cached_list(lambda self: self.tables, lambda self, req: req.context.principal.has(CONTENT_MODERATE))
    def on_get(self, req: Any, resp: Any) -> None:
        principal = req.context.principal
        moderator = principal.has(CONTENT_MODERATE)
        query = req.context.query
        limit, offset = query["limit"], query["offset"]
        db = self.host.db
        sql = CatalogQuery(db, getattr(db, self.catalog.entity), self.catalog)
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
        items = []
        for row in rows:
            item = dict(self.catalog.serialize(row))
            if self.catalog.suppressible and moderator:
                item["suppressed"] = row.suppressed
            items.append(item)
        resp.media = {"items": items, "total": total, "limit": limit, "offset": offset}


def catalog_tables(host: Any) -> dict[str, bool]:
    """Table name -> has a ``suppressed`` column, for every catalog list (their totals are kept
    by ``row_counts.py``)."""
    return {getattr(host.db, item.entity)._table_: item.suppressible
            for item in host.registries.content_lists.values() if item.catalog}


def catalog_of(db: Any, item: ContentList) -> Catalog:
    """The catalog list of a content list: its search index tables when they exist in ``db``,
    its category junction resolved to (table, row column, category column)."""
    fts_table, words_table = item.search.tables(db) if item.search is not None else (None, None)
    junction = {}
    if item.category_links and "category" in item.filters:
        entity, row_attribute, category_attribute = item.category_links
        link = getattr(db, entity)
        junction = {"category": (f'"{link._table_}"', link._adict_[row_attribute].column,
                                 link._adict_[category_attribute].column)}
    return Catalog(item.path, item.entity, dict(item.filters), tuple(item.order), item.suppressible,
                   item.search if fts_table else None, fts_table, words_table, junction, item.serialize)


def catalog_routes(host: Any) -> list[Route]:
    routes = []
    for item in host.registries.content_lists.values():
        if not item.catalog:
            continue
        catalog = catalog_of(host.db, item)
        routes.append(Route(f"/v1/catalog/{catalog.path}", CatalogResource(host, catalog), {
            # Moderators (admin) hold content.catalog_read too, so the route table needs only it.
            "GET": Operation(CONTENT_CATALOG_READ, f"{catalog.path} catalog (content.catalog_read)",
                             query=_query_schema(catalog), response=PageSchema, tags=("catalog",)),
        }))
    return routes
