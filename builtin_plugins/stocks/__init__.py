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


from builtin_plugins.stocks import content, finnhub, models, routes, types
from hookspecs import Feature
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, declare


FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE),
    entities=models.define_entities,
    integration_types=[finnhub.INTEGRATION_TYPE],
    screen_types=types.SCREEN_TYPES,
    overlay_types=types.OVERLAY_TYPES,
    ticker_types=types.TICKER_TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.stocks.samples:write",
)
