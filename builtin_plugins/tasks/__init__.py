"""Tasks: cards of Trello boards as tasks, the task board slide that shows one board, and the
tasks catalog list.

- table (``models.py``): ``Task`` (catalog, spec 2.8);
- collector: ``tasks_trello`` (``trello.py``: the ``apiKey`` secret and a linked ``trello``
  account's member token, ``boardIds`` in ``config_json``);
- type: slide ``task_board`` (a board's open tasks; ``boardKey`` is a ``boardIds`` entry);
- content list: ``tasks`` (catalog).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.tasks import models, trello
from hookspecs import ContentList, Feature, ScreenType
from hookspecs.schema import boolean, integer, obj, text

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="task_board",
        label="Task board",
        description="Open tasks of one board; boardKey matches an integration boardIds entry.",
        renderer="builtin_plugins.tasks.display:task_board",
        config_schema=obj("task_board", {
            "boardKey": text(200, 1),
            "title": text(200),
            "showCompleted": boolean(),
            "maxTasks": integer(1, 100),
        }, required=("boardKey",)),
        example_config={"boardKey": "5f1c2a9e8d", "title": "Chores", "maxTasks": 12},
    ),
]


def task_json(row: Any) -> dict:
    return {"id": row.id, "title": row.title, "list_label": row.list_label, "board_key": row.board_key,
            "due_at_ms": row.due_at_ms, "completed": row.completed, "integration_type": row.integration_type,
            "integration_id": row.integration_id}


FEATURE = Feature(
    entities=models.define_entities,
    integration_types=[trello.INTEGRATION_TYPE],
    screen_types=SCREEN_TYPES,
    content_lists=[
               ContentList("tasks", "Task", task_json, label="tasks",
                           filters={"title": "title", "list_label": "list_label", "board_key": "board_key",
                                    "integration_id": "integration_id"},
                           order=(("completed", False), ("due_at_ms", False), ("id", False))),
           ],
    samples="builtin_plugins.tasks.samples:write",
)
