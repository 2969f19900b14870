"""Text content collectors: trivia, jokes, quotes, and text generation."""

from __future__ import annotations

from hookspecs import hookimpl
from builtin_plugins.collectors_content import jokes, openai, quotes, trivia


@hookimpl
def register_integration_types() -> list:
    return [trivia.INTEGRATION_TYPE, jokes.INTEGRATION_TYPE, quotes.INTEGRATION_TYPE, openai.INTEGRATION_TYPE]
