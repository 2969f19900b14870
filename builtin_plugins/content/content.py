"""The text content lists: jokes, trivia and quotes (catalog, moderation, media, cloud feed), and
the joke and trivia interests, which keep the curator categories they fill from being deleted."""
from __future__ import annotations

from typing import Any

from hookspecs import ContentList, FeedKind
from hookspecs.content import FeedItem

NEWEST = (("created_at_ms", True), ("id", True))


def joke_json(row: Any) -> dict:
    return {"id": row.id, "setup": row.setup, "punchline": row.punchline, "category_id": row.category_id,
            "integration_type": row.integration_type, "created_at_ms": row.created_at_ms}


def trivia_json(row: Any) -> dict:
    return {"id": row.id, "question": row.question, "option_a": row.option_a, "option_b": row.option_b,
            "option_c": row.option_c, "option_d": row.option_d, "correct_option": row.correct_option,
            "category_id": row.category_id, "integration_type": row.integration_type,
            "created_at_ms": row.created_at_ms}


def quote_json(row: Any) -> dict:
    return {"id": row.id, "text": row.text, "author": row.author, "category_id": row.category_id,
            "integration_type": row.integration_type, "created_at_ms": row.created_at_ms}


def _category(item: FeedItem) -> str:
    return item.text("category_id", 64) or "general"


JOKE_FEED = FeedKind("joke", lambda i, now: {
    "setup": i.text("setup", 4000, True), "punchline": i.text("punchline", 4000), "category_id": _category(i),
    "created_at_ms": now})
QUOTE_FEED = FeedKind("quote", lambda i, now: {
    "text": i.text("text", 4000, True), "author": i.text("author", 500), "category_id": _category(i),
    "created_at_ms": now})
TRIVIA_FEED = FeedKind("trivia", lambda i, now: {
    "question": i.text("question", 4000, True), "option_a": i.text("option_a", 1000, True),
    "option_b": i.text("option_b", 1000, True), "option_c": i.text("option_c", 1000),
    "option_d": i.text("option_d", 1000),
    "correct_option": i.choice("correct_option", ("A", "B", "C", "D"), upper=True),
    "category_id": _category(i), "created_at_ms": now})


LISTS = [
    ContentList("jokes", "Joke", joke_json, label="jokes",
                filters={"setup": "setup", "punchline": "punchline", "category": "category_id"}, order=NEWEST,
                suppressible=True, media=joke_json, feed=JOKE_FEED),
    ContentList("trivia", "TriviaQuestion", trivia_json, label="trivia questions",
                filters={"question": "question", "option_a": "option_a", "option_b": "option_b",
                         "option_c": "option_c", "option_d": "option_d",
                         "integration_type": "integration_type",
                         "category": "category_id"},
                order=NEWEST, suppressible=True, media=trivia_json, feed=TRIVIA_FEED),
    ContentList("quotes", "Quote", quote_json, label="quotes", catalog=False, feed=QUOTE_FEED),
    ContentList("joke-categories", "JokeCategory", label="joke interests", catalog=False,
                category_attribute="id", category_guard="category_in_use"),
    ContentList("trivia-categories", "TriviaCategory", label="trivia interests", catalog=False,
                category_attribute="id", category_guard="category_in_use"),
]
