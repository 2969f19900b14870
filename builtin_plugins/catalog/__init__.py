"""The content catalog (spec 2.8, 4.6): eleven paginated, filtered, read-only lists.

Each list is built as one SQL statement per page (``queries.CatalogQuery``) so that the
same filter runs on SQLite and PostgreSQL, and the RSS list can use its search index.
"""
from __future__ import annotations

from typing import Any

from hookspecs import hookimpl, Migration
from builtin_plugins.catalog.routes import catalog_routes
from builtin_plugins.catalog.search_index import create_search_index, create_word_index, has_word_index, sync_terms


@hookimpl
def register_migrations() -> list[Migration]:
    return [Migration("rss_article_search_index", create_search_index,
                      "FTS5 trigram index (SQLite) or pg_trgm GIN indexes (PostgreSQL) for RSS articles"),
            Migration("rss_article_word_index", create_word_index,
                      "FTS5 word index, its term list and pending queue for RSS articles (SQLite)")]


@hookimpl
def register_routes(host: Any) -> list:
    return catalog_routes(host)


class RssSearch:
    """``host.services["rss_search"]``: writers of RSS articles call :meth:`sync_terms`
    (inside their ``db_session``) after a batch, so that searches find the term list current."""

    def __init__(self, db: Any):
        self.db = db
        self.enabled = has_word_index(db)

    def sync_terms(self) -> None:
        if self.enabled:
            sync_terms(self.db)


@hookimpl
def startup(host: Any) -> None:
    host.services["rss_search"] = RssSearch(host.db)
