"""tasks_trello: the cards of selected boards as tasks, with the key and the member token in the
Authorization header only."""
from __future__ import annotations

from pony import orm

from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests.integrations.upstream import json_reply
from hookspecs.services import INTEGRATIONS


def test_trello_boards_into_tasks(make_host, upstream):
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    auth = 'OAuth oauth_consumer_key="trello-key-1", oauth_token="member-token-1"'

    def guarded(payload):
        def handler(request):
            if (
                request.headers.get("Authorization") != auth
                or "key" in request.query
                or "token" in request.query
            ):
                return json_reply(401, {"message": "invalid key"})
            return json_reply(200, payload)

        return handler

    upstream.handle(
        "/1/boards/b1/lists", guarded([{"id": "l1", "name": "To do"}, {"id": "l2", "name": "Done"}])
    )
    upstream.handle(
        "/1/boards/b1/cards",
        guarded(
            [
                {
                    "id": "c1",
                    "name": "Write docs",
                    "due": "2024-06-03T17:00:00.000Z",
                    "dueComplete": False,
                    "idList": "l1",
                    "closed": False,
                },
                {
                    "id": "c2",
                    "name": "Ship",
                    "due": None,
                    "dueComplete": True,
                    "idList": "l2",
                    "closed": False,
                },
                {"id": "c3", "name": "Archived", "idList": "l1", "closed": True},
            ]
        ),
    )
    api.patch(
        "/v1/integrations/tasks_trello",
        json={
            "config_json": {"baseUrl": upstream.url, "boardIds": ["b1"]},
            "secrets": {"apiKey": "trello-key-1"},
        },
    )
    assert api.get("/v1/integrations/tasks_trello").json["accounts_configured"] is False
    linked = api.post(
        "/v1/integrations/tasks_trello/accounts",
        json={"account_type": "trello", "label": "me", "token": "member-token-1"},
    )
    assert linked.status_code == 201 and "member-token-1" not in linked.text
    assert (
        api.post(
            "/v1/integrations/tasks_trello/accounts", json={"account_type": "google", "token": "x"}
        ).status_code
        == 400
    )
    item = api.get("/v1/integrations/tasks_trello").json
    assert item["accounts_configured"] is True and item["secrets_configured"] is True
    result = host.services[INTEGRATIONS].run_now("tasks_trello")
    assert result.status == "ok", result
    with orm.db_session:
        tasks = sorted(
            (t.id, t.title, t.list_label, t.board_key, t.due_at_ms, t.completed, t.integration_id)
            for t in host.db.Task.select()
        )
    assert tasks == [
        ("tasks_trello:c1", "Write docs", "To do", "b1", 1717434000000, False, "tasks_trello"),
        ("tasks_trello:c2", "Ship", "Done", "b1", None, True, "tasks_trello"),
    ]
    api.patch(
        "/v1/integrations/tasks_trello", json={"config_json": {"baseUrl": upstream.url, "boardIds": []}}
    )
    host.services[INTEGRATIONS].run_now("tasks_trello")
    with orm.db_session:
        assert host.db.Task.select().count() == 0
