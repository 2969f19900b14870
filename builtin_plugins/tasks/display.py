"""The task board slide's drawing (Kivy-only, imported when a canvas starts), from the ``Task``
rows of the board ``boardKey`` (or ``data_key``) names. Config keys: those of the type in
``builtin_plugins/tasks/types.json``."""
from __future__ import annotations

from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import config_flag, config_number, config_text, slide_title
from svc_host.kit.display import widgets as _w


def _prepare_tasks(context: RenderContext) -> Any:
    board = config_text(context, "boardKey") or context.row.get("data_key")
    if not board:
        return None
    rows = list(context.host.db.Task.select(lambda t: t.board_key == board))
    if not config_flag(context, "showCompleted", False):
        rows = [t for t in rows if not t.completed]
    if not rows:
        return None
    rows.sort(key=lambda t: (t.completed, t.due_at_ms or 2 ** 62, t.title))
    return [{"title": t.title, "list": t.list_label, "done": t.completed}
            for t in rows[:int(config_number(context, "maxTasks", 10, 1, 100))]]


@renderer(prepare=_prepare_tasks)
def task_board(context: RenderContext) -> Any:
    """A task an item: a box (ticked when done, and "done" in words) beside its title, its list
    under it; as many as fit, open ones first."""
    w = _w()
    slide = w.themed_slide(context)
    w.add_title(context, slide, slide_title(context, "Tasks"))
    w.body_column(context, slide, [
        w.entry(context, t["title"] + ("  \u2013 done" if t["done"] else ""), meta=t["list"] or "",
                marker="check_box" if t["done"] else "check_box_outline_blank")
        for t in context.data])
    return slide
