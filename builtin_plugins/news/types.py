"""The news slide and ticker types: their ``config_json`` schemas, examples and item builder."""
from __future__ import annotations

from hookspecs import ScreenType, TickerType
from hookspecs.schema import ID_REF, SLUG, array, boolean, integer, obj
from builtin_plugins.news import items

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="news_headlines",
        label="News headlines",
        description="A list of recent RSS headlines (suppressed articles never shown).",
        renderer="builtin_plugins.news.display:news_headlines",
        config_schema=obj("news_headlines", {
            "feedIds": array(ID_REF, 50),
            "category": SLUG,
            "maxItems": integer(1, 20),
            "maxAgeHours": integer(1, 720),
            "showSource": boolean(),
        }),
        example_config={"feedIds": ["bbc-world"], "maxItems": 6, "maxAgeHours": 24},
    ),
    ScreenType(
        id="news_article",
        label="News article",
        description="One RSS article with its image and summary; pair with require_news_photo.",
        renderer="builtin_plugins.news.display:news_article",
        config_schema=obj("news_article", {
            "feedIds": array(ID_REF, 50),
            "category": SLUG,
            "maxAgeHours": integer(1, 720),
            "showSummary": boolean(),
            "showQrLink": boolean(),
        }),
        example_config={"category": "news", "maxAgeHours": 48, "showSummary": True, "showQrLink": True},
    ),
]

TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="news",
        label="News headlines",
        description="Recent RSS headlines (suppressed articles never appear).",
        config_schema=obj("news", {
            "feedIds": array(ID_REF, 50),
            "category": SLUG,
            "maxItems": integer(1, 50),
            "maxAgeHours": integer(1, 720),
        }),
        example_config={"feedIds": ["bbc-world"], "maxItems": 8},
        build_items=items.news_items,
        reads=("RssArticle", "RssFeed"),
    ),
]
