"""The stock tables: interests symbols (spec 2.9) and the latest quote of each (catalog, 2.8)."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class StockSymbol(db.Entity):
        _table_ = "svc_stock_symbol"
        id = orm.PrimaryKey(str, 64)
        symbol = orm.Required(str, 32)
        display_name = orm.Optional(str, 200, default="")
        category = orm.Required(str, 64, default="general")
        enabled = orm.Required(bool, default=True)

    class StockQuote(db.Entity):
        _table_ = "svc_stock_quote"
        symbol_id = orm.PrimaryKey(str, 64)  # the interests stock symbol id: latest quote only
        symbol = orm.Required(str, 32)
        display_name = orm.Optional(str, 200, default="")
        price = orm.Required(float)
        change = orm.Optional(float, nullable=True)
        change_percent = orm.Optional(float, nullable=True)
        currency = orm.Optional(str, 8, default="")
        as_of_ms = orm.Required(int, **MS)
        integration_type = orm.Required(str, 100)
