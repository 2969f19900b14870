"""Sample tasks for ``svc-display gallery`` (the ``display_samples`` hook), on the board the
type's example names."""
from __future__ import annotations

from typing import Any

TASKS = [("Water the plants", "Home"), ("Take the recycling out", "Home"), ("Book the dentist", "Errands"),
         ("Buy birthday present", "Errands"), ("Fix the bike light", "Weekend")]


def write(host: Any) -> None:
    for i, (title, label) in enumerate(TASKS):
        host.db.Task(id=f"sample-{i}", title=title, list_label=label, board_key="5f1c2a9e8d",
                     integration_type="tasks_trello", integration_id="sample")
