"""The task table: cards of task boards (catalog, spec 2.8), replaced per board by their collector."""
from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class Task(db.Entity):
        _table_ = "svc_task"
        id = orm.PrimaryKey(str, 300)
        title = orm.Required(str, 2000)
        list_label = orm.Optional(str, 500, default="")
        board_key = orm.Required(str, 200, index=True)
        due_at_ms = orm.Optional(int, nullable=True, **MS)
        completed = orm.Required(bool, default=False)
        integration_type = orm.Required(str, 100)
        integration_id = orm.Required(str, 100)
