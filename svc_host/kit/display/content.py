"""What a renderer shows of its row and its content (no Kivy): titles, category labels, and rows
and blobs for ``prepare`` steps (loader thread, inside a db_session)."""
from __future__ import annotations

import random
from typing import Any

from hookspecs.render import RenderContext
from hookspecs.services import CATEGORIES, service
from svc_host.kit.display.config import data_key


# -- titles -------------------------------------------------------------------------------------
def slide_title(context: RenderContext, *candidates: Any) -> str:
    """A slide's title: its config's ``title``, else the screen's ``name`` (spec 2.6), else the first
    non-empty of ``candidates`` (what the content is: a feed's name, a category's label)."""
    for value in (context.config.get("title"), context.row.get("name"), *candidates):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def category_label(context: RenderContext, category_id: str | None) -> str:
    """The curator's label of ``category_id``, else the id made readable (``dad-jokes`` -> ``Dad
    jokes``); ``""`` without one (loader thread, inside a db_session)."""
    if not category_id:
        return ""
    categories = service(context.host, CATEGORIES) if context.host is not None else None
    label = categories.label(category_id) if categories is not None else None
    if label:
        return label
    return category_id.replace("-", " ").replace("_", " ").capitalize()


def clip_text(text: str, limit: int) -> str:
    """``text`` cut at a word before ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:-")
    return cut + "\u2026"


# -- content for prepare steps (loader thread, inside a db_session) -----------------------------
def newest_shuffled(context: RenderContext, entity: Any, config_key: str = "category",
                    limit: int = 50) -> list:
    """The newest ``limit`` unsuppressed rows of ``entity`` in the category :func:`data_key` names
    (every category without one), shuffled."""
    from pony.orm import desc

    query = entity.select(lambda p: not p.suppressed)
    category = data_key(context, config_key)
    if category:
        query = query.filter(lambda p: p.category_id == category)
    rows = list(query.order_by(desc(entity.created_at_ms)).limit(limit))
    random.shuffle(rows)
    return rows


def blob_images(context: RenderContext, keys: list[str], limit: int = 8) -> list[bytes]:
    """The bytes of the first ``limit`` blobs of ``keys`` that exist (undecodable ones included)."""
    return [data for data in (context.blob_bytes(key) for key in keys[:limit]) if data]
