"""The interests list of RSS feeds (spec 4.7): ``/v1/interests/rss-feeds[/{id}]``."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Route
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE
from svc_host.kit.rest import EntityKind, Text, client_id, entity_routes, no_nul, require_category

MIN_POLL_SECONDS = 60
MAX_POLL_SECONDS = 7 * 24 * 3600
MAX_ARTICLES = 500
CATEGORY = validate.Length(min=1, max=64)


class RssFeedBody(Schema):
    id = Text(validate=client_id)
    url = fields.Url(required=True, schemes={"http", "https"}, require_tld=False,
                     validate=[validate.Length(max=2048), no_nul])
    title = Text(allow_none=True, validate=validate.Length(max=500))
    category = Text(validate=CATEGORY)
    poll_seconds = fields.Integer(validate=validate.Range(min=MIN_POLL_SECONDS, max=MAX_POLL_SECONDS))
    max_articles = fields.Integer(validate=validate.Range(min=1, max=MAX_ARTICLES))
    enabled = fields.Boolean()


class RssFeedPatch(RssFeedBody):
    class Meta:
        exclude = ("id",)

    url = fields.Url(schemes={"http", "https"}, require_tld=False,
                     validate=[validate.Length(max=2048), no_nul])


def rss_feed_json(row: Any) -> dict:
    return {"id": row.id, "url": row.url, "title": row.title or None, "category": row.category,
            "poll_seconds": row.poll_seconds, "max_articles": row.max_articles, "enabled": row.enabled,
            "last_fetched_at": row.last_fetched_at, "consecutive_failures": row.consecutive_failures,
            "next_retry_at": row.next_retry_at}


def _check_feed(host: Any, data: dict, row: Any) -> None:
    if "category" in data:
        require_category(host, "category", data["category"])


FEEDS = EntityKind("rss-feeds", "RssFeed", "RSS feed", rss_feed_json, RssFeedBody, RssFeedPatch,
                   lambda db, i: db.RssArticle.exists(feed_id=i), "RSS articles exist for this feed",
                   _check_feed)


def routes(host: Any) -> list[Route]:
    return entity_routes(host, FEEDS, "/v1/interests/rss-feeds", INTERESTS_READ, INTERESTS_WRITE,
                         ("interests",), publishes=("catalog",))
