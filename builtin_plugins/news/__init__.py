"""News: the interests RSS feeds, the collectors that fill their articles (and Hacker News), the
articles' search index, and the slides and ticker tape that show them.

- tables (``models.py``): ``RssFeed`` (interests, spec 2.9), ``RssArticle`` (catalog, 2.8);
- the RSS article search indexes (``search_index.py``) and their migrations, recorded under
  the ``catalog`` plugin that made them first (``Migration.recorded_as``);
- collectors: ``news_rss`` (``rss.py``), ``news_hackernews`` (``hackernews.py``);
- REST (``routes.py``): ``/v1/interests/rss-feeds[/{id}]``;
- types (``types.json``): slides ``news_headlines``, ``news_article``; ticker ``news`` (items
  in ``items.py``); the two collectors;
- content list (``content.py``): ``rss-articles`` (catalog with its search index,
  moderation, media, cloud feed kind ``rss_article``);
- ``host.services[SEARCH]``: writers of articles sync the word index's term list.
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.news import content, models, routes
from builtin_plugins.news.search_index import (
    create_search_index,
    create_word_index,
    has_word_index,
    sync_terms,
)
from hookspecs import Feature, Migration, hookimpl
from hookspecs.catalog import load_types
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, declare
from svc_host.kit.services import add_writers
from hookspecs.services import SEARCH


class RssSearch:
    """``host.services[SEARCH]``: writers of RSS articles call :meth:`sync_terms` (inside their
    ``db_session``) after a batch, so that searches find the term list current."""

    def __init__(self, db: Any):
        self.db = db
        self.enabled = has_word_index(db)

    def sync_terms(self) -> None:
        if self.enabled:
            sync_terms(self.db)


@hookimpl
def startup(host: Any) -> None:
    host.services[SEARCH] = RssSearch(host.db)
    add_writers(host, content.LISTS)  # rss_article items (a sidecar's) are written with its mapping


TYPES = load_types(__name__)
FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE),
    entities=models.define_entities,
    # Recorded as the catalog's, whose migrations they were: a database that applied them
    # never runs them again.
    migrations=[Migration("rss_article_search_index", create_search_index,
                          "FTS5 trigram index (SQLite) or pg_trgm GIN indexes (PostgreSQL) for RSS articles",
                          recorded_as="catalog"),
                Migration("rss_article_word_index", create_word_index,
                          "FTS5 word index, its term list and pending queue for RSS articles (SQLite)",
                          recorded_as="catalog")],
    types=TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.news.samples:write",
)
