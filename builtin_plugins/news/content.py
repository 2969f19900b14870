"""The RSS article content list: catalog (with its search index), moderation, media, cloud feed."""
from __future__ import annotations

from typing import Any

from builtin_plugins.news.search_index import INDEX
from hookspecs import ContentList, FeedBlob, FeedKind
from svc_host.kit.collecting import IMAGE_TYPES


def rss_article_json(row: Any) -> dict:
    return {"id": row.id, "feed_id": row.feed_id, "guid": row.guid, "title": row.title,
            "summary": row.summary,
            "link": row.link, "image_blob_key": row.image_blob_key, "published_at_ms": row.published_at_ms,
            "integration_type": row.integration_type, "created_at_ms": row.created_at_ms}


def rss_article_media(row: Any) -> dict:
    item = rss_article_json(row)
    return {name: item[name] for name in ("id", "feed_id", "title", "summary", "link", "image_blob_key",
                                          "published_at_ms")}


DEFAULT_ARTICLE_IMAGE_BYTES = 5 * 1024 * 1024  # an article's picture: the RSS collector's default cap

RSS_ARTICLE_FEED = FeedKind("rss_article", lambda i, now: {
    "title": i.text("title", 2000, True), "summary": i.text("summary", 20000), "link": i.text("link", 2048),
    "guid": i.text("guid", 2048) or str(i.id), "feed_id": i.text("feed_id", 64) or i.source,
    "image_blob_key": i.text("image_blob_key", 512) or None, "published_at_ms": i.integer("published_at_ms"),
    "created_at_ms": now},
    # the picture is held to what the RSS collector accepts (its content types, its default cap)
    blob=FeedBlob("image_blob_key", tuple(IMAGE_TYPES), DEFAULT_ARTICLE_IMAGE_BYTES))


LISTS = [
    ContentList("rss-articles", "RssArticle", rss_article_json, label="RSS articles",
                filters={"title": "title", "summary": "summary", "link": "link", "guid": "guid",
                         "feed_id": "feed_id"},
                order=(("published_at_ms", True), ("id", True)), search=INDEX, suppressible=True,
                blob_attribute="image_blob_key", media=rss_article_media, feed=RSS_ARTICLE_FEED),
]
