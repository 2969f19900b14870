"""The interests list of stock symbols (spec 4.7): ``/v1/interests/stock-symbols[/{id}]``."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Route
from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE
from svc_host.kit.rest import EntityKind, Text, client_id, entity_routes, require_category

SYMBOL = validate.Regexp(r"^[A-Za-z0-9.^=\-]{1,32}$",
                         error="must be 1-32 characters of letters, digits, '.', '^', '=' or '-'")
CATEGORY = validate.Length(min=1, max=64)


class StockSymbolBody(Schema):
    id = Text(validate=client_id)
    symbol = Text(required=True, validate=SYMBOL)
    display_name = Text(validate=validate.Length(max=200))
    category = Text(validate=CATEGORY)
    enabled = fields.Boolean()


class StockSymbolPatch(StockSymbolBody):
    class Meta:
        exclude = ("id",)

    symbol = Text(validate=SYMBOL)


def stock_symbol_json(row: Any) -> dict:
    return {"id": row.id, "symbol": row.symbol, "display_name": row.display_name, "category": row.category,
            "enabled": row.enabled}


def _check_stock(host: Any, data: dict, row: Any) -> None:
    if "category" in data:
        require_category(host, "category", data["category"])
    if "symbol" in data:
        data["symbol"] = data["symbol"].upper()


SYMBOLS = EntityKind("stock-symbols", "StockSymbol", "stock symbol", stock_symbol_json, StockSymbolBody,
                     StockSymbolPatch, lambda db, i: db.StockQuote.exists(symbol_id=i),
                     "stock quotes exist for this symbol", _check_stock)


def routes(host: Any) -> list[Route]:
    return entity_routes(host, SYMBOLS, "/v1/interests/stock-symbols", INTERESTS_READ, INTERESTS_WRITE,
                         ("interests",), publishes=("catalog",))
