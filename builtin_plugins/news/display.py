"""The news slides' drawing (Kivy-only, imported when a canvas starts): ``news_headlines`` and
``news_article``. Content: unsuppressed ``RssArticle`` rows, newest first, of the feeds
``data_key``, ``feedIds`` and ``category`` name (every feed when none does), within
``maxAgeHours``, with a photo when the row asks ``require_news_photo``. Config keys: those of
``builtin_plugins/news/types.json``."""
from __future__ import annotations

import random
from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import (category_label, clip_text, config_flag, config_number, config_strings,
                                  config_text, slide_title)
from svc_host.kit.display import widgets as _w
from svc_host.kit.formatting import formats


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


def _sources(context: RenderContext, rows: list) -> dict[str, str]:
    """Feed id -> the feed's title (its id when it has none) for the feeds of ``rows``."""
    feeds = {}
    for feed_id in sorted({r.feed_id for r in rows}):
        feed = context.host.db.RssFeed.get(id=feed_id)
        feeds[feed_id] = (feed.title if feed is not None and feed.title else feed_id)
    return feeds


def _item(context: RenderContext, row: Any, sources: dict[str, str]) -> dict:
    """What a news slide shows of an article: its title, ``meta`` (``World News · 2 h ago``: the source
    unless ``showSource`` is false, the age) and its summary, link and picture key."""
    when = row.published_at_ms or row.created_at_ms
    source = sources.get(row.feed_id, "") if config_flag(context, "showSource", True) else ""
    meta = " \u00b7 ".join(p for p in (source, formats(context).format_age(when)) if p)
    return {"title": row.title, "meta": meta, "summary": row.summary or "", "link": row.link or "",
            "image_key": row.image_blob_key}


def _title(context: RenderContext, sources: dict[str, str], fallback: str) -> str:
    """The screen's title or name, else the one feed's name, else the category's label, else ``fallback``."""
    only = next(iter(sources.values())) if len(sources) == 1 else ""
    return slide_title(context, only, category_label(context, config_text(context, "category")), fallback)


def _prepare_headlines(context: RenderContext) -> Any:
    rows = _articles(context, int(config_number(context, "maxItems", 6, 1, 20)))
    if not rows:
        return None
    sources = _sources(context, rows)
    return {"title": _title(context, sources, "Latest news"), "items": [_item(context, r, sources) for r in rows]}


@renderer(prepare=_prepare_headlines)
def news_headlines(context: RenderContext) -> Any:
    """The headlines, newest first, each with its source and age under it; as many as fit."""
    w = _w()
    slide = w.themed_slide(context)
    w.add_title(context, slide, context.data["title"])
    w.body_column(context, slide, [w.entry(context, item["title"], meta=item["meta"])
                                   for item in context.data["items"]], keep=2)  # two at least, when they fit
    return slide


def _prepare_article(context: RenderContext) -> Any:
    rows = _articles(context, 10)
    if not rows:
        return None
    row = random.choice(rows)
    item = _item(context, row, _sources(context, [row]))
    item["summary"] = item["summary"] if config_flag(context, "showSummary", True) else ""
    item["link"] = item["link"] if config_flag(context, "showQrLink", False) else ""
    item["image"] = context.blob_bytes(item.pop("image_key"))
    return item


PICTURE_BAND = 0.36
"""The picture's share of the height on a slide taller than wide (it is on top there)."""


def _article_slide(context: RenderContext, data: dict, texture: Any) -> tuple[Any, float]:
    """The picture on the left 45 % (on top on a slide taller than wide) when there is one, the
    headline, its source and age and the summary on the rest, the QR code's corner kept free. The
    headline and summary shrink together down to their minimums; then the summary ends early at a
    sentence (its start always shown). Also the QR code's bottom (a share of the height): on a
    tall slide with a picture, the code sits on the picture's lower right corner, so the text
    has the whole width and height under the picture (it had a band above the code, an empty
    row beside it)."""
    w = _w()
    summary = clip_text(data["summary"], 360)
    slide = w.themed_slide(context)
    tall = w.stacked(context)  # a portrait screen or a slide higher than wide: picture above text
    left, top = 0.08, 0.06
    qr = _qr_side(context) if data.get("link") else 0.0
    on_picture = bool(qr) and texture is not None and tall and qr * 1.08 + 0.04 <= PICTURE_BAND
    if texture is not None and tall:
        slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(1, PICTURE_BAND),
                                     pos_hint={"x": 0, "top": 1}))
        top = PICTURE_BAND + 0.04
    elif texture is not None:
        slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(0.45, 1), pos_hint={"x": 0, "y": 0}))
        left = 0.5
    headline = w.entry(context, data["title"], step="title", bold=True, meta=data["meta"])
    headline.main.role = "title"
    entries = [headline] + ([w.entry(context, summary)] if summary else [])
    width, bottom = (0.96 if texture is not None and not tall else 0.92) - left, 0.06
    if qr and not on_picture:  # the QR code's corner: above it beside a picture or on a tall slide, beside it else
        bottom, width = (0.06 + qr + 0.03, width) if texture is not None or tall else \
            (0.06, width - qr * context.size[1] / context.size[0] - 0.04)
    w.body_column(context, slide, entries, (left, top, width, 1 - top - bottom), keep=len(entries))
    return slide, (1 - PICTURE_BAND + 0.02 if on_picture else 0.025)


def _qr_side(context: RenderContext) -> float:
    """The QR code's height, a fraction of the slide's: a fifth of the screen's short side."""
    width, height = context.size
    return 0.2 * min(width, height) / height


@renderer(prepare=_prepare_article)
def news_article(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide, low = _article_slide(context, data, w.texture_from_bytes(data.get("image")))
    if data.get("link"):
        high = _qr_side(context)
        side = high * context.size[1] / context.size[0]
        slide.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(side * 1.08, high * 1.08),
                                    pos_hint={"right": 0.985, "y": low}))
        slide.add_widget(w.ImageFill(w.qr_texture(data["link"]), size_hint=(side, high),
                                     pos_hint={"right": 0.98, "y": low + high * 0.04}))
        slide.says = "qr"  # one voice per fact: the QR panel yields while the article shows its link's code
    return slide
