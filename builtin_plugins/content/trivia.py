"""``trivia_opentdb``: Open Trivia DB questions into the trivia categories of the interests.

For every enabled trivia category below ``min_questions`` (or on a manual run), asks
``GET {baseUrl}/api.php?amount=N&type=multiple[&category=<opentdbCategory>][&difficulty=...]``
for up to ``max_questions - stored`` questions (at most 50 per call, the API limit);
``opentdbCategory`` and ``difficulty`` come from the category's ``config_json``. HTML
entities are decoded; options are shuffled deterministically per question. Rows carry the
integration id as ``integration_type`` (spec 2.8); pools are trimmed to ``max_questions``.
"""

from __future__ import annotations

import html
import random
from typing import Any

from pony import orm

from hookspecs.collect import CollectorError
from svc_host.kit.collecting import SKIPPED, clip, digest, each_unit
from builtin_plugins.content.pools import trim_oldest

TYPE_ID = "trivia_opentdb"
DEFAULT_BASE = "https://opentdb.com"
RESPONSE_CODES = {
    1: "no results for this query",
    2: "invalid parameter",
    3: "session token not found",
    4: "session token exhausted",
    5: "rate limited",
}


def _question(item: Any) -> dict[str, str] | None:
    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
        return None
    correct = item.get("correct_answer")
    wrong = item.get("incorrect_answers")
    if not isinstance(correct, str) or not isinstance(wrong, list) or not 1 <= len(wrong) <= 3:
        return None
    question = html.unescape(item["question"]).strip()
    options = [html.unescape(correct)] + [html.unescape(str(w)) for w in wrong]
    order = list(range(len(options)))
    random.Random(digest(question)).shuffle(order)
    shuffled = [options[i] for i in order]
    letters = "ABCD"
    row = {"question": clip(question, 4000), "correct_option": letters[order.index(0)]}
    for i, letter in enumerate(letters):
        row[f"option_{letter.lower()}"] = clip(shuffled[i], 1000) if i < len(shuffled) else ""
    return row


def collect(ctx: Any) -> str:
    base = ctx.base_url(DEFAULT_BASE)
    batch = int(ctx.config.get("batchSize", 50))
    with orm.db_session:
        categories = [
            (c.id, c.min_questions, c.max_questions, dict(c.config_json or {}))
            for c in ctx.db.TriviaCategory.select(lambda c: c.enabled).order_by(lambda c: c.id)
        ]
    added = [0]

    def fill(unit: tuple[str, int, int, dict]) -> Any:
        category_id, minimum, maximum, config = unit
        with orm.db_session:
            stored = ctx.db.TriviaQuestion.select(
                lambda q: q.category_id == category_id and not q.suppressed
            ).count()
        if (stored >= minimum and not ctx.force) or stored >= maximum:
            return SKIPPED
        params: dict[str, Any] = {"amount": min(batch, maximum - stored), "type": "multiple"}
        if isinstance(config.get("opentdbCategory"), int):
            params["category"] = config["opentdbCategory"]
        if config.get("difficulty") in ("easy", "medium", "hard"):
            params["difficulty"] = config["difficulty"]
        data = ctx.http.get_json(f"{base}/api.php", params=params)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise CollectorError("answer has no results list")
        code = data.get("response_code", 0)
        if code != 0:
            raise CollectorError(
                f"Open Trivia DB response_code {code}: {RESPONSE_CODES.get(code, 'unknown')}"
            )
        with orm.db_session:
            for item in data["results"]:
                row = _question(item)
                if row is None:
                    continue
                row_id = f"{TYPE_ID}:{digest(category_id, row['question'])}"
                if ctx.db.TriviaQuestion.get(id=row_id) is None:
                    ctx.db.TriviaQuestion(
                        id=row_id,
                        category_id=category_id,
                        integration_type=ctx.integration_id,
                        created_at_ms=ctx.now_ms(),
                        **row,
                    )
                    added[0] += 1
            pool = list(
                ctx.db.TriviaQuestion.select(
                    lambda q: q.category_id == category_id and q.integration_type == ctx.integration_id
                )
            )
            trim_oldest(pool, maximum)

    run = each_unit(ctx, categories, fill, lambda unit: f"category {unit[0]}")
    return run.finish(ctx, "trivia categories", "every trivia pool is full enough",
                      note=f"{added[0]} questions added")
