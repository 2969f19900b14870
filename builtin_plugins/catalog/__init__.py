"""The content catalog (spec 2.8, 4.6): eleven paginated, filtered, read-only lists.

Each list is built as one SQL statement per page (``queries.CatalogQuery``) so that the
same filter runs on SQLite and PostgreSQL, and the RSS list can use its search index.
"""
from __future__ import annotations

from typing import Any

from hookspecs import hookimpl, Migration
from builtin_plugins.catalog.routes import catalog_routes
from builtin_plugins.catalog.search_index import create_search_index


@hookimpl
def register_migrations() -> list[Migration]:
    return [Migration("rss_article_search_index", create_search_index,
                      "FTS5 trigram index (SQLite) or pg_trgm GIN indexes (PostgreSQL) for RSS articles")]


@hookimpl
def register_routes(host: Any) -> list:
    return catalog_routes(host)
