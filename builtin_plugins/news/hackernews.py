"""``news_hackernews``: the Hacker News front page (official Firebase API) as RSS articles.

``GET {baseUrl}/v0/topstories.json`` gives story ids; ``GET {baseUrl}/v0/item/<id>.json``
gives ``{id, type, title, url, by, time, score}``. Stories become RSS articles of the
virtual feed ``feedId`` (default ``hackernews``), trimmed to ``maxStories``.
"""

from __future__ import annotations

from typing import Any

from pony import orm

from svc_host.kit.collecting import CollectorError, clip, plain_text
from builtin_plugins.news.rss import upsert_articles

TYPE_ID = "news_hackernews"
DEFAULT_BASE = "https://hacker-news.firebaseio.com"


def collect(ctx: Any) -> str:
    base = ctx.base_url(DEFAULT_BASE)
    limit = int(ctx.config.get("maxStories", 30))
    feed_id = ctx.config.get("feedId", "hackernews")
    ids = ctx.http.get_json(f"{base}/v0/topstories.json")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise CollectorError("topstories.json is not a list of item ids")
    entries = []
    for story_id in ids[:limit]:
        ctx.checkpoint()
        item = ctx.http.get_json(f"{base}/v0/item/{story_id}.json")
        if not isinstance(item, dict) or item.get("type") not in ("story", "job") or not item.get("title"):
            continue
        link = clip(item.get("url") or f"https://news.ycombinator.com/item?id={story_id}", 2048)
        by = plain_text(item.get("by"), 100)
        entries.append(
            {
                "guid": f"hn:{story_id}",
                "title": plain_text(item["title"], 2000),
                "link": link,
                "summary": plain_text(f"{item.get('score', 0)} points by {by}", 20000),
                "published_at_ms": int(item["time"]) * 1000 if isinstance(item.get("time"), int) else None,
                "image_url": None,
            }
        )
    with orm.db_session:
        changed, _ = upsert_articles(ctx, feed_id, entries, limit, TYPE_ID)
    ctx.summary = f"{len(entries)} stories, {changed} new or changed"
    return ctx.summary
