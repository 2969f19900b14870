"""The joke and trivia slide types and the quote ticker type: schemas, examples, item builder."""
from __future__ import annotations

from hookspecs import ScreenType, TickerType
from hookspecs.schema import SLUG, boolean, integer, number, obj
from builtin_plugins.content import items

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="joke",
        label="Joke",
        description="A setup, then the punchline after a delay.",
        renderer="builtin_plugins.content.display:joke",
        config_schema=obj("joke", {
            "categoryId": SLUG,
            "revealDelaySeconds": number(0, 120),
        }),
        example_config={"categoryId": "dad-jokes", "revealDelaySeconds": 6},
    ),
    ScreenType(
        id="trivia",
        label="Trivia",
        description="A question with options; the answer is revealed after a delay.",
        renderer="builtin_plugins.content.display:trivia",
        config_schema=obj("trivia", {
            "categoryId": SLUG,
            "answerDelaySeconds": number(1, 300),
            "showOptions": boolean(),
        }),
        example_config={"categoryId": "science", "answerDelaySeconds": 12, "showOptions": True},
    ),
]

TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="quote",
        label="Quotes",
        description="Quotes from the catalog.",
        config_schema=obj("quote", {
            "category": SLUG,
            "maxItems": integer(1, 50),
        }),
        example_config={"category": "general", "maxItems": 3},
        build_items=items.quote_items,
        reads=("Quote",),
    ),
]
