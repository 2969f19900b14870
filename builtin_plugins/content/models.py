"""The text content tables: jokes, trivia questions and quotes (catalog, spec 2.8) and the joke and
trivia interests (2.9), whose ids are curator categories."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class JokeCategory(db.Entity):
        _table_ = "svc_joke_category"
        id = orm.PrimaryKey(str, 64)  # a curator category id
        enabled = orm.Required(bool, default=True)
        pool_size = orm.Required(int, default=50)
        config_json = orm.Optional(orm.Json, nullable=True)

    class TriviaCategory(db.Entity):
        _table_ = "svc_trivia_category"
        id = orm.PrimaryKey(str, 64)  # a curator category id
        enabled = orm.Required(bool, default=True)
        pool_size = orm.Required(int, default=50)
        min_questions = orm.Required(int, default=10)
        max_questions = orm.Required(int, default=50)
        config_json = orm.Optional(orm.Json, nullable=True)

    # ---- catalog (spec 2.8) ---------------------------------------------------------
    class Joke(db.Entity):
        _table_ = "svc_joke"
        id = orm.PrimaryKey(str, 200)
        setup = orm.Required(str, 4000)
        punchline = orm.Optional(str, 4000, default="")
        category_id = orm.Required(str, 64, index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class TriviaQuestion(db.Entity):
        _table_ = "svc_trivia_question"
        id = orm.PrimaryKey(str, 200)
        question = orm.Required(str, 4000)
        option_a = orm.Required(str, 1000)
        option_b = orm.Required(str, 1000)
        option_c = orm.Optional(str, 1000, default="")
        option_d = orm.Optional(str, 1000, default="")
        correct_option = orm.Required(str, 1)  # A, B, C or D
        category_id = orm.Required(str, 64, index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Quote(db.Entity):
        _table_ = "svc_quote"
        id = orm.PrimaryKey(str, 200)
        text = orm.Required(str, 4000)
        author = orm.Optional(str, 500, default="")
        category_id = orm.Required(str, 64, default="general")
        integration_type = orm.Required(str, 100)
        created_at_ms = orm.Required(int, **MS)
