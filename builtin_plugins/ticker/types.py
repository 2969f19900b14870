"""The builtin ticker tape types with their ``config_json`` schemas and item builders.

``TYPES`` is the list ``register_ticker_types`` returns. Time presets are documented in
``docs/display-configuration.md``.
"""
from __future__ import annotations

from hookspecs import TickerType
from builtin_plugins.common.jsonschema_parts import (
    DATE_ORDER,
    ID_REF,
    SLUG,
    TEMPERATURE_UNIT,
    TIME_ZONE,
    array,
    boolean,
    integer,
    obj,
    text,
)
from builtin_plugins.ticker import items
from builtin_plugins.ticker.items import TIME_PRESETS

TYPES: list[TickerType] = [
    TickerType(
        id="time",
        label="Date and time",
        description="Date and time; omitted keys follow controller_date_order, controller_time_format "
                    "and display_timezone.",
        config_schema=obj("time", {
            "dateOrder": DATE_ORDER,
            "timeFormatPreset": {"enum": list(TIME_PRESETS)},
            "timeZone": TIME_ZONE,
            "labelPrefix": text(100),
        }),
        example_config={"dateOrder": "dmy", "timeFormatPreset": "24h_hms", "timeZone": "Europe/Berlin",
                        "labelPrefix": "Berlin"},
        build_items=items.time_items,
    ),
    TickerType(
        id="weather",
        label="Weather",
        description="Current weather of one location (all locations when locationId is omitted).",
        config_schema=obj("weather", {
            "locationId": ID_REF,
            "temperatureUnit": TEMPERATURE_UNIT,
        }),
        example_config={"locationId": "home", "temperatureUnit": "f"},
        build_items=items.weather_items,
    ),
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
    ),
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
    ),
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
    ),
    TickerType(
        id="text",
        label="Static text",
        description="One fixed text.",
        config_schema=obj("text", {"text": text(500, 1)}, required=("text",)),
        example_config={"text": "Welcome to the lobby"},
        build_items=items.text_items,
    ),
    TickerType(
        id="plugin",
        label="Plugin marquee",
        description="Lines of key-value ticker.marquee.<pluginId>, written by a plugin.",
        config_schema=obj("plugin", {"pluginId": SLUG}, required=("pluginId",)),
        example_config={"pluginId": "lunch-menu"},
        build_items=items.plugin_items,
    ),
]
