"""Text content REST: the interests lists of joke and trivia categories (spec 4.7) and jokes and
trivia questions entered by hand (spec 4.5, ``POST /v1/curator/manual/{jokes,trivia}``)."""
from __future__ import annotations

import uuid
from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Operation, Route
from hookspecs.content import MANUAL_ENTRY
from hookspecs.permissions import CURATOR_WRITE, INTERESTS_READ, INTERESTS_WRITE
from svc_host.kit.rest import ApiError, EntityKind, IdSchema, StorableJsonObject, Text, entity_routes, require_category

MAX_POOL = 1000
TEXT = validate.Length(min=1, max=4000)
OPTION = validate.Length(min=1, max=1000)


class JokeCategoryBody(Schema):
    id = Text(required=True, validate=validate.Length(min=1, max=64))
    enabled = fields.Boolean()
    pool_size = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))
    config_json = StorableJsonObject(allow_none=True)


class JokeCategoryPatch(JokeCategoryBody):
    class Meta:
        exclude = ("id",)


class TriviaCategoryBody(JokeCategoryBody):
    min_questions = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))
    max_questions = fields.Integer(validate=validate.Range(min=1, max=MAX_POOL))


class TriviaCategoryPatch(TriviaCategoryBody):
    class Meta:
        exclude = ("id",)


def joke_category_json(row: Any) -> dict:
    return {"id": row.id, "enabled": row.enabled, "pool_size": row.pool_size, "config_json": row.config_json}


def trivia_category_json(row: Any) -> dict:
    return {**joke_category_json(row), "min_questions": row.min_questions, "max_questions": row.max_questions}


def _check_id_is_category(host: Any, data: dict, row: Any) -> None:
    if "id" in data:
        require_category(host, "id", data["id"])


def _check_trivia_bounds(host: Any, data: dict, row: Any) -> None:
    low = data.get("min_questions", row.min_questions if row is not None else 10)
    high = data.get("max_questions", row.max_questions if row is not None else 50)
    if low > high:
        raise ApiError(400, "validation_failed", "min_questions exceeds max_questions",
                       {"min_questions": ["must not exceed max_questions"]})


JOKE_CATEGORIES = EntityKind("joke-categories", "JokeCategory", "joke category", joke_category_json,
                             JokeCategoryBody, JokeCategoryPatch, lambda db, i: db.Joke.exists(category_id=i),
                             "jokes reference this category", _check_id_is_category)
TRIVIA_CATEGORIES = EntityKind("trivia-categories", "TriviaCategory", "trivia category", trivia_category_json,
                               TriviaCategoryBody, TriviaCategoryPatch,
                               lambda db, i: db.TriviaQuestion.exists(category_id=i),
                               "trivia questions reference this category",
                               lambda host, data, row: (_check_id_is_category(host, data, row),
                                                        _check_trivia_bounds(host, data, row)))


class JokeBody(Schema):
    category_id = Text(required=True, validate=validate.Length(min=1, max=64))
    setup = Text(required=True, validate=TEXT)
    punchline = Text(required=True, validate=validate.Length(max=4000))


class TriviaBody(Schema):
    category_id = Text(required=True, validate=validate.Length(min=1, max=64))
    question = Text(required=True, validate=TEXT)
    option_a = Text(required=True, validate=OPTION)
    option_b = Text(required=True, validate=OPTION)
    option_c = Text(required=True, validate=OPTION)
    option_d = Text(required=True, validate=OPTION)
    correct_option = Text(required=True, validate=validate.OneOf(["A", "B", "C", "D"]))


class JokeResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        require_category(self.host, "category_id", body["category_id"])
        row_id = uuid.uuid4().hex
        self.host.db.Joke(id=row_id, setup=body["setup"], punchline=body["punchline"],
                          category_id=body["category_id"], integration_type=MANUAL_ENTRY,
                          created_at_ms=self.host.clock.now_ms())
        resp.status = 201
        resp.media = {"id": row_id}


class TriviaResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        body = dict(req.context.body)
        require_category(self.host, "category_id", body["category_id"])
        row_id = uuid.uuid4().hex
        self.host.db.TriviaQuestion(id=row_id, integration_type=MANUAL_ENTRY,
                                    created_at_ms=self.host.clock.now_ms(), **body)
        resp.status = 201
        resp.media = {"id": row_id}


def routes(host: Any) -> list[Route]:
    def add(summary: str, body: type) -> dict:
        return {"POST": Operation(CURATOR_WRITE, summary, body=body, response=IdSchema, status=201,
                                  tags=("curator",), publishes=("catalog",))}

    return [
        *entity_routes(host, JOKE_CATEGORIES, "/v1/interests/joke-categories", INTERESTS_READ,
                       INTERESTS_WRITE, ("interests",), publishes=("catalog",)),
        *entity_routes(host, TRIVIA_CATEGORIES, "/v1/interests/trivia-categories", INTERESTS_READ,
                       INTERESTS_WRITE, ("interests",), publishes=("catalog",)),
        Route("/v1/curator/manual/jokes", JokeResource(host), add("add a joke", JokeBody)),
        Route("/v1/curator/manual/trivia", TriviaResource(host), add("add a trivia question", TriviaBody)),
    ]
