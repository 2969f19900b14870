"""``tasks_trello``: cards of selected Trello boards as tasks.

Needs the ``apiKey`` secret, a linked ``trello`` account holding a member token
(``POST /v1/integrations/tasks_trello/accounts`` ``{account_type: "trello", token}``) and
``boardIds`` in ``config_json``. Both credentials travel in the
``Authorization: OAuth oauth_consumer_key="…", oauth_token="…"`` header Trello accepts,
never in the URL. Per board: ``GET {baseUrl}/1/boards/<id>/lists`` (list names) and
``GET {baseUrl}/1/boards/<id>/cards`` (open cards); rows are replaced per board, with
``board_key`` = the board id (a ``task_board`` screen's ``boardKey``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from pony import orm

from hookspecs.collect import CollectorError
from svc_host.kit.collecting import clip, each_unit, plain_text
from hookspecs.services import ACCOUNTS

TYPE_ID = "tasks_trello"
DEFAULT_BASE = "https://api.trello.com"


def _due_ms(value: Any) -> int | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def collect(ctx: Any) -> str:
    key = ctx.secret("apiKey")
    accounts = [a for a in ctx.accounts if a["account_type"] == "trello"]
    if not accounts:
        raise CollectorError("no linked trello account (member token)")
    token = (ctx.host.services[ACCOUNTS].load_token(accounts[0]["id"]) or {}).get("token")
    if not token:
        raise CollectorError("the linked trello account holds no token")
    headers = {"Authorization": f'OAuth oauth_consumer_key="{key}", oauth_token="{token}"'}
    base = ctx.base_url(DEFAULT_BASE)
    boards = list(ctx.config.get("boardIds") or [])

    def fetch(board: str) -> None:
        lists = ctx.http.get_json(
            f"{base}/1/boards/{quote(board)}/lists", params={"fields": "name"}, headers=headers
        )
        cards = ctx.http.get_json(
            f"{base}/1/boards/{quote(board)}/cards",
            headers=headers,
            params={"fields": "name,due,dueComplete,idList,closed"},
        )
        if not isinstance(lists, list) or not isinstance(cards, list):
            raise CollectorError("lists and cards must be JSON arrays")
        names = {item["id"]: str(item.get("name") or "") for item in lists
                 if isinstance(item, dict) and item.get("id")}
        rows = {}
        for card in cards:
            if not isinstance(card, dict) or not card.get("id") or card.get("closed"):
                continue
            if card.get("dueComplete") and not ctx.config.get("includeCompleted", True):
                continue
            rows[f"{TYPE_ID}:{clip(card['id'], 100)}"] = {
                "title": plain_text(card.get("name"), 2000) or "(untitled)",
                "list_label": clip(names.get(card.get("idList"), ""), 500),
                "board_key": board,
                "due_at_ms": _due_ms(card.get("due")),
                "completed": bool(card.get("dueComplete")),
                "integration_type": TYPE_ID,
                "integration_id": ctx.integration_id,
            }
        with orm.db_session:
            stored = {
                t.id: t
                for t in ctx.db.Task.select(
                    lambda t: t.board_key == board and t.integration_id == ctx.integration_id
                )
            }
            for row_id, values in rows.items():
                if row_id in stored:
                    stored[row_id].set(**values)
                else:
                    ctx.db.Task(id=row_id, **values)
            for row_id, row in stored.items():
                if row_id not in rows:
                    row.delete()

    run = each_unit(ctx, boards, fetch, lambda board: f"board {board}")
    with orm.db_session:
        for row in ctx.db.Task.select(lambda t: t.integration_id == ctx.integration_id):
            if row.board_key not in boards:
                row.delete()
    return run.finish(ctx, "boards", "no board selected")
