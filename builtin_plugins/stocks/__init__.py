"""Stocks: the interests stock symbols, the Finnhub collector of their latest quotes, and the
slide, overlay and ticker tape that show them.

- tables (``models.py``): ``StockSymbol`` (interests, spec 2.9), ``StockQuote`` (catalog, 2.8);
- collector: ``stock_finnhub`` (``finnhub.py``);
- REST (``routes.py``): ``/v1/interests/stock-symbols[/{id}]``;
- types (``types.py``): slide ``stock_quotes``, overlay ``stock_quote``, ticker ``stocks``;
- content list (``content.py``): ``stock-quotes`` (catalog, moderation deletes, cloud feed
  kind ``stock_quote``).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.stocks import content, finnhub, models, routes, types
from hookspecs import (
    ContentList,
    IntegrationType,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
    hookimpl,
)
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, declare


@hookimpl
def register_permissions() -> list[Permission]:
    return declare(INTERESTS_READ, INTERESTS_WRITE)


@hookimpl
def register_entities(db: Any) -> None:
    models.define_entities(db)


@hookimpl
def register_integration_types() -> list[IntegrationType]:
    return [finnhub.INTEGRATION_TYPE]


@hookimpl
def register_screen_types() -> list[ScreenType]:
    return list(types.SCREEN_TYPES)


@hookimpl
def register_overlay_types() -> list[OverlayType]:
    return list(types.OVERLAY_TYPES)


@hookimpl
def register_ticker_types() -> list[TickerType]:
    return list(types.TICKER_TYPES)


@hookimpl
def register_content_lists() -> list[ContentList]:
    return list(content.LISTS)


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return routes.routes(host)


@hookimpl
def display_samples(host: Any) -> None:
    from builtin_plugins.stocks import samples

    samples.write(host)
