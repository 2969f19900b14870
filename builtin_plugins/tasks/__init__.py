"""Tasks: cards of Trello boards as tasks, the task board slide that shows one board, and the
tasks catalog list.

- table (``models.py``): ``Task`` (catalog, spec 2.8);
- collector: ``tasks_trello`` (``trello.py``: the ``apiKey`` secret and a linked ``trello``
  account's member token, ``boardIds`` in ``config_json``);
- types (``types.json``): slide ``task_board`` (a board's open tasks; ``boardKey`` is a
  ``boardIds`` entry); the collector;
- content list: ``tasks`` (catalog).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.tasks import models
from hookspecs import ContentList, Feature
from hookspecs.catalog import load_types


def task_json(row: Any) -> dict:
    return {"id": row.id, "title": row.title, "list_label": row.list_label, "board_key": row.board_key,
            "due_at_ms": row.due_at_ms, "completed": row.completed, "integration_type": row.integration_type,
            "integration_id": row.integration_id}


TYPES = load_types(__name__)
FEATURE = Feature(
    entities=models.define_entities,
    types=TYPES,
    content_lists=[
               ContentList("tasks", "Task", task_json, label="tasks",
                           filters={"title": "title", "list_label": "list_label", "board_key": "board_key",
                                    "integration_id": "integration_id"},
                           order=(("completed", False), ("due_at_ms", False), ("id", False))),
           ],
    samples="builtin_plugins.tasks.samples:write",
)
