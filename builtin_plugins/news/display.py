"""The news slides' drawing (Kivy-only, imported when a canvas starts): ``news_headlines`` and
``news_article``. Content: unsuppressed ``RssArticle`` rows, newest first, of the feeds
``data_key``, ``feedIds`` and ``category`` name (every feed when none does), within
``maxAgeHours``, with a photo when the row asks ``require_news_photo``. Config keys: those of
:mod:`builtin_plugins.news.types`."""
from __future__ import annotations

import random
from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.display.kit import config_flag, config_number, config_strings, config_text
from svc_host.display.kit import widgets as _w


def _feed_ids(context: RenderContext) -> list[str] | None:
    """The feeds a news slide reads: ``data_key``, ``feedIds`` and the feeds of ``category``
    (``None`` = every feed)."""
    feeds = config_strings(context, "feedIds")
    if isinstance(context.row.get("data_key"), str) and context.row["data_key"]:
        feeds.append(context.row["data_key"])
    category = config_text(context, "category")
    if category:
        feeds += [f.id for f in context.host.db.RssFeed.select(lambda f: f.category == category)]
    elif not feeds:
        return None
    return feeds


def _articles(context: RenderContext, limit: int) -> list:
    from pony.orm import coalesce, desc

    db = context.host.db
    query = db.RssArticle.select(lambda a: not a.suppressed)
    feeds = _feed_ids(context)
    if feeds is not None:
        query = query.filter(lambda a: a.feed_id in feeds)
    if context.config.get("maxAgeHours"):
        oldest = context.now_ms() - int(config_number(context, "maxAgeHours", 24, 1, 720)) * 3_600_000
        query = query.filter(lambda a: coalesce(a.published_at_ms, a.created_at_ms) >= oldest)
    if context.row.get("require_news_photo"):
        query = query.filter(lambda a: a.image_blob_key is not None and a.image_blob_key != "")
    rows = list(query.order_by(desc(db.RssArticle.published_at_ms), desc(db.RssArticle.created_at_ms))
                .limit(limit * 3))
    if context.row.get("require_news_photo"):
        rows = [r for r in rows if context.host.blobs.get(r.image_blob_key) is not None]
    return rows[:limit]


def _prepare_headlines(context: RenderContext) -> Any:
    rows = _articles(context, int(config_number(context, "maxItems", 6, 1, 20)))
    if not rows:
        return None
    sources = {}
    if config_flag(context, "showSource", False):
        feed_ids = sorted({r.feed_id for r in rows})  # a plain list: Pony cannot translate rows in the query
        for feed in context.host.db.RssFeed.select(lambda f: f.id in feed_ids):
            sources[feed.id] = feed.title or ""
    return {"titles": [f"{r.title}  \u00b7 {sources[r.feed_id]}" if sources.get(r.feed_id) else r.title
                       for r in rows]}


@renderer(prepare=_prepare_headlines)
def news_headlines(context: RenderContext) -> Any:
    size = 48 if len(context.data["titles"]) <= 8 else 34
    lines = [f"\u2022 {t}" for t in context.data["titles"]]
    return _w().text_slide(context, "Headlines", lines, body_size=size)


def _prepare_article(context: RenderContext) -> Any:
    rows = _articles(context, 10)
    if not rows:
        return None
    row = random.choice(rows)
    summary = (row.summary or "") if config_flag(context, "showSummary", True) else ""
    return {"title": row.title, "summary": summary,
            "link": row.link if config_flag(context, "showQrLink", False) else "",
            "image": context.blob_bytes(row.image_blob_key)}


def _article_slide(context: RenderContext, data: dict, texture: Any) -> Any:
    w = _w()
    if texture is None:
        return w.text_slide(context, data["title"], [data["summary"][:600]], body_size=44)
    slide = w.themed_slide(context)
    slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(0.45, 1), pos_hint={"x": 0, "y": 0}))
    fg = context.theme.text
    slide.add_widget(w.label(data["title"], context.font(64), fg, bold=True, valign="top",
                             size_hint=(0.47, 0.35), pos_hint={"x": 0.5, "top": 0.94}))
    slide.add_widget(w.label(data["summary"][:500], context.font(38), fg, valign="top",
                             size_hint=(0.47, 0.52), pos_hint={"x": 0.5, "top": 0.56}))
    return slide


@renderer(prepare=_prepare_article)
def news_article(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = _article_slide(context, data, w.texture_from_bytes(data.get("image")))
    if data.get("link"):
        side = 0.2 * context.size[1] / context.size[0]
        slide.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(side * 1.08, 0.216),
                                    pos_hint={"right": 0.985, "y": 0.025}))
        slide.add_widget(w.ImageFill(w.qr_texture(data["link"]), size_hint=(side, 0.2),
                                     pos_hint={"right": 0.98, "y": 0.033}))
    return slide
