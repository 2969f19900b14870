"""``joke_icanhazdadjoke``: dad jokes into joke categories (``GET {baseUrl}/`` with JSON Accept).

Fills every enabled joke category named in ``categoryIds`` (default: every enabled joke
category) up to its ``pool_size``, at most ``perRun`` new jokes per category and run.
A joke with a question mark splits into ``setup`` (through the ``?``) and ``punchline``.
"""

from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs.collect import CollectorError
from svc_host.kit.collecting import clip, each_unit
from builtin_plugins.content.pools import trim_oldest

TYPE_ID = "joke_icanhazdadjoke"
DEFAULT_BASE = "https://icanhazdadjoke.com"


def split_joke(text: str) -> tuple[str, str]:
    text = " ".join(text.split())
    if "? " in text:
        setup, punchline = text.split("? ", 1)
        return setup + "?", punchline
    return text, ""


def add_joke(ctx: Any, integration_type: str, key: str, setup: str, punchline: str, category_id: str) -> bool:
    """Store the joke ``<integration_type>:<key>`` unless it is stored already (inside a
    ``db_session``); True when added."""
    row_id = f"{integration_type}:{key}"
    if ctx.db.Joke.get(id=row_id) is not None:
        return False
    ctx.db.Joke(id=row_id, setup=clip(setup, 4000), punchline=clip(punchline, 4000), category_id=category_id,
                integration_type=integration_type, created_at_ms=ctx.now_ms())
    return True


def collect(ctx: Any) -> str:
    base = ctx.base_url(DEFAULT_BASE)
    wanted = ctx.config.get("categoryIds")
    per_run = int(ctx.config.get("perRun", 5))
    with orm.db_session:
        categories = [
            (c.id, c.pool_size)
            for c in ctx.db.JokeCategory.select(lambda c: c.enabled).order_by(lambda c: c.id)
            if wanted is None or c.id in wanted
        ]
    added = [0]

    def fill(unit: tuple[str, int]) -> None:
        category_id, pool_size = unit
        for _ in range(per_run):
            ctx.checkpoint()
            with orm.db_session:
                if (
                    ctx.db.Joke.select(lambda j: j.category_id == category_id).count() >= pool_size
                    and not ctx.force
                ):
                    break
            data = ctx.http.get_json(base + "/")
            if not isinstance(data, dict) or not isinstance(data.get("joke"), str) or not data.get("id"):
                raise CollectorError("answer has no joke")
            setup, punchline = split_joke(data["joke"])
            with orm.db_session:
                if add_joke(ctx, TYPE_ID, clip(data["id"], 100), setup, punchline, category_id):
                    added[0] += 1
        with orm.db_session:
            trim_oldest(
                list(
                    ctx.db.Joke.select(
                        lambda j: j.category_id == category_id and j.integration_type == TYPE_ID
                    )
                ),
                pool_size,
            )

    run = each_unit(ctx, categories, fill, lambda unit: f"category {unit[0]}")
    return run.finish(ctx, "joke categories", "no joke category", note=f"{added[0]} jokes added")
