"""The stock slide, overlay and ticker types: their ``config_json`` schemas, examples and item builder."""
from __future__ import annotations

from hookspecs import OverlayType, ScreenType, TickerType
from hookspecs.schema import OPACITY, POSITION, SLUG, array, boolean, obj
from builtin_plugins.stocks import items

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="stock_quotes",
        label="Stock quotes",
        description="Latest quotes of interests stock symbols.",
        renderer="builtin_plugins.stocks.display:stock_quotes",
        config_schema=obj("stock_quotes", {
            "symbols": array({"type": "string", "pattern": "^[A-Za-z0-9.^=\\-]{1,32}$"}, 30),
            "category": SLUG,
            "showChange": boolean(),
        }),
        example_config={"symbols": ["AAPL", "MSFT"], "showChange": True},
    ),
]

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="stock_quote",
        zone="top_right",
        label="Stock quote",
        description="One symbol highlighted.",
        renderer="builtin_plugins.stocks.display:stock_quote",
        config_schema=obj("stock_quote", {
            "symbol": {"type": "string", "pattern": "^[A-Za-z0-9.^=\\-]{1,32}$"},
            "position": POSITION,
            "show_change": boolean(),
            "opacity": OPACITY,
        }, required=("symbol",)),
        example_config={"symbol": "AAPL", "position": "top_right", "show_change": True},
    ),
]

TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="stocks",
        label="Stock quotes",
        description="Latest stock quotes, in the order of symbols (all when omitted).",
        config_schema=obj("stocks", {
            "symbols": array({"type": "string", "pattern": "^[A-Za-z0-9.^=\\-]{1,32}$"}, 50),
            "showChange": boolean(),
        }),
        example_config={"symbols": ["AAPL", "MSFT"]},
        build_items=items.stock_items,
        reads=("StockQuote",),
    ),
]
