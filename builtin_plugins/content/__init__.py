"""Text content: jokes, trivia questions and quotes, from their collectors (and text generation)
or entered by hand, with the joke and trivia interests that say what to fetch, and the slides
and ticker tape that show them.

- tables (``models.py``): ``Joke``, ``TriviaQuestion``, ``Quote`` (catalog, spec 2.8),
  ``JokeCategory``, ``TriviaCategory`` (interests, 2.9);
- collectors: ``joke_icanhazdadjoke`` (``jokes.py``), ``trivia_opentdb`` (``trivia.py``),
  ``quote_zenquotes`` (``quotes.py``), ``general_openai`` (``openai.py``); pools are kept
  to their size (``pools.py``);
- REST (``routes.py``): ``/v1/interests/{joke,trivia}-categories[/{id}]``,
  ``POST /v1/curator/manual/{jokes,trivia}``;
- types (``types.json``): slides ``joke``, ``trivia``; ticker ``quote`` (items in ``items.py``);
  the four collectors;
- content lists (``content.py``): ``jokes``, ``trivia`` (catalog, moderation, media, feed),
  ``quotes`` (feed), ``joke-categories``, ``trivia-categories`` (the ``category_in_use``
  guard of curator categories).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.content import content, models, routes
from hookspecs import Feature, hookimpl
from hookspecs.catalog import load_types
from svc_host.kit.services import add_writers
from hookspecs.permissions import CURATOR_WRITE, INTERESTS_READ, INTERESTS_WRITE, declare


TYPES = load_types(__name__)


@hookimpl
def startup(host: Any) -> None:
    add_writers(host, content.LISTS)  # joke, quote and trivia items (a sidecar's) are written with its mappings


FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE, CURATOR_WRITE),
    entities=models.define_entities,
    types=TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.content.samples:write",
)
