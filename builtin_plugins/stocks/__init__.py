"""Stocks: the interests stock symbols, the Finnhub collector of their latest quotes, and the
slide, overlay and ticker tape that show them.

- tables (``models.py``): ``StockSymbol`` (interests, spec 2.9), ``StockQuote`` (catalog, 2.8);
- collector: ``stock_finnhub`` (``finnhub.py``);
- REST (``routes.py``): ``/v1/interests/stock-symbols[/{id}]``;
- types (``types.json``): slide ``stock_quotes``, overlay ``stock_quote``, ticker ``stocks``
  (items in ``items.py``); the collector;
- content list (``content.py``): ``stock-quotes`` (catalog, moderation deletes, cloud feed
  kind ``stock_quote``).
"""
from __future__ import annotations


from builtin_plugins.stocks import content, models, routes
from hookspecs import Feature
from hookspecs.catalog import load_types
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, declare


TYPES = load_types(__name__)
FEATURE = Feature(
    permissions=declare(INTERESTS_READ, INTERESTS_WRITE),
    entities=models.define_entities,
    types=TYPES,
    content_lists=content.LISTS,
    routes=routes.routes,
    samples="builtin_plugins.stocks.samples:write",
)
