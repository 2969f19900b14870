"""News collectors: ``news_rss`` (interests RSS feeds) and ``news_hackernews``."""

from __future__ import annotations

from hookspecs import hookimpl
from builtin_plugins.collectors_news import hackernews, rss


@hookimpl
def register_integration_types() -> list:
    return [rss.INTEGRATION_TYPE, hackernews.INTEGRATION_TYPE]
