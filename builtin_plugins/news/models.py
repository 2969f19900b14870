"""The news tables: interests RSS feeds (spec 2.9) and their articles (catalog, spec 2.8)."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class RssFeed(db.Entity):
        _table_ = "svc_rss_feed"
        id = orm.PrimaryKey(str, 64)
        url = orm.Required(str, 2048)
        title = orm.Optional(str, 500, nullable=True)
        category = orm.Required(str, 64, default="news")
        poll_seconds = orm.Required(int, default=900)
        max_articles = orm.Required(int, default=50)
        enabled = orm.Required(bool, default=True)
        last_fetched_at = orm.Optional(int, nullable=True, **MS)
        consecutive_failures = orm.Required(int, default=0)
        next_retry_at = orm.Optional(int, nullable=True, **MS)
        etag = orm.Optional(str, 500, nullable=True)
        last_modified = orm.Optional(str, 200, nullable=True)

    class RssArticle(db.Entity):
        _table_ = "svc_rss_article"
        id = orm.PrimaryKey(str, 200)
        feed_id = orm.Required(str, 64, index=True)
        guid = orm.Required(str, 2048)
        title = orm.Required(str, 2000)
        summary = orm.Optional(str, 20000, default="")
        link = orm.Optional(str, 2048, default="")
        image_blob_key = orm.Optional(str, 512, nullable=True)
        published_at_ms = orm.Optional(int, nullable=True, index=True, **MS)
        integration_type = orm.Required(str, 100, default="news_rss")
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)
