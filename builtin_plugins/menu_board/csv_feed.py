"""``menu_board_csv``: a menu board from a published CSV (a shared spreadsheet's CSV link).

Config: ``boards`` (a list of ``{url, board}``; or the one-board shorthand ``csvUrl`` + ``board``,
``board`` defaulting to ``menu``). The sheet's first row names the columns, in any order and case:
``section`` (or ``category``), ``name`` (or ``item``), ``price``, ``note`` (or ``notes``, ``tags``);
other columns are ignored. A row without a name is skipped; a section cell left empty continues the
section above it (as a spreadsheet's merged cells read). Each run replaces the board's rows whole.
Parsed with the standard library's :mod:`csv` (quoted cells, commas and line breaks inside quotes).
"""
from __future__ import annotations

import csv
import io
from typing import Any

from pony import orm

from builtin_plugins.menu_board.models import NAME_MAX, NOTE_MAX, PRICE_MAX, SECTION_MAX
from hookspecs.collect import CollectorError
from svc_host.kit.collecting import each_unit

TYPE_ID = "menu_board_csv"
MAX_ITEMS = 200
COLUMNS = {"section": "section", "category": "section", "name": "name", "item": "name", "price": "price",
           "note": "note", "notes": "note", "tags": "note"}


def boards(config: dict) -> list[dict[str, str]]:
    items = [dict(b) for b in config.get("boards") or []]
    if config.get("csvUrl"):
        items.append({"url": config["csvUrl"], "board": config.get("board", "menu")})
    for item in items:
        item.setdefault("board", "menu")
    return items


def _cell(value: Any, limit: int) -> str:
    return " ".join(str(value or "").split())[:limit]


def parse_menu(text: str) -> list[dict[str, str]]:
    """The items of a CSV sheet: ``[{section, name, price, note}]`` in its order (at most
    :data:`MAX_ITEMS`); raises :class:`CollectorError` when the header names no ``name`` column."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = next(reader, None)
    if not header:
        raise CollectorError("the CSV is empty")
    where = {}
    for index, title in enumerate(header):
        field = COLUMNS.get(title.strip().lower())
        if field and field not in where:
            where[field] = index
    if "name" not in where:
        raise CollectorError("the CSV's first row names no 'name' (or 'item') column")
    items, section = [], ""
    limits = {"section": SECTION_MAX, "name": NAME_MAX, "price": PRICE_MAX, "note": NOTE_MAX}
    for row in reader:
        values = {field: _cell(row[index], limits[field]) if index < len(row) else ""
                  for field, index in where.items()}
        section = values.get("section") or section
        if not values.get("name"):
            continue
        items.append({"section": section, "name": values["name"], "price": values.get("price", ""),
                      "note": values.get("note", "")})
        if len(items) >= MAX_ITEMS:
            break
    return items


def collect(ctx: Any) -> str:
    def fetch(unit: dict) -> str:
        answer = ctx.http.get(unit["url"])
        try:
            items = parse_menu(answer.text())
        except (csv.Error, UnicodeDecodeError) as exc:
            raise CollectorError(f"malformed CSV: {exc}") from None
        board = unit["board"]
        with orm.db_session:
            ctx.db.MenuBoardItem.select(lambda i: i.board == board).delete(bulk=True)
            for position, item in enumerate(items):
                ctx.db.MenuBoardItem(id=f"{board}:{position}", board=board, position=position,
                                     integration_type=TYPE_ID, **item)
        return f"{len(items)} items"

    run = each_unit(ctx, boards(ctx.config), fetch, lambda unit: f"board {unit['board']}")
    return run.finish(ctx, "boards", "no board configured")
