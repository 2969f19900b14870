"""The collected menu boards: one row per item of a board, in the order of its sheet."""
from __future__ import annotations

from typing import Any

from pony import orm

BOARD_MAX, SECTION_MAX, NAME_MAX, PRICE_MAX, NOTE_MAX = 64, 100, 200, 32, 64


def define_entities(db: Any) -> None:
    class MenuBoardItem(db.Entity):
        _table_ = "svc_menu_board_item"
        id = orm.PrimaryKey(str, BOARD_MAX + 12)  # "<board>:<position>"
        board = orm.Required(str, BOARD_MAX, index=True)
        position = orm.Required(int)
        section = orm.Optional(str, SECTION_MAX, default="")
        name = orm.Required(str, NAME_MAX)
        price = orm.Optional(str, PRICE_MAX, default="")
        note = orm.Optional(str, NOTE_MAX, default="")
        integration_type = orm.Required(str, 100)
