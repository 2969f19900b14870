"""Alerts: create, list, dismiss, expiry, the service for other plugins, display_only never served."""
import json

import pytest
from pony import orm

from svc_display.testing import issue_key
from svc_display.testing.clock import advance_clock
from hookspecs.services import ALERTS

pytestmark = pytest.mark.svc_display_storage


def test_create_list_get_dismiss(api):
    created = api.post("/v1/alerts", json={"title": "Fire drill", "body": "At 3 pm", "severity": "warning",
                                           "priority": 10, "qr_payload": "https://example.org/drill"})
    assert created.status_code == 201, created.text
    alert = created.json
    assert alert["severity"] == "warning" and alert["priority"] == 10 and alert["source"] == "api"
    assert alert["dismissed_at"] is None and alert["expires_at"] is None and alert["active"] is True
    minimal = api.post("/v1/alerts", json={"title": "Hi"}).json
    assert (minimal["body"], minimal["severity"], minimal["priority"], minimal["qr_payload"]) == ("", "info", 0,
                                                                                                  None)
    listed = api.get("/v1/alerts").json["items"]
    assert {a["id"] for a in listed} == {alert["id"], minimal["id"]}
    assert api.get(f"/v1/alerts/{alert['id']}").json == alert

    dismissed = api.delete(f"/v1/alerts/{alert['id']}")
    assert dismissed.status_code == 200
    assert isinstance(dismissed.json["dismissed_at"], int) and dismissed.json["active"] is False
    again = api.delete(f"/v1/alerts/{alert['id']}")
    assert again.status_code == 200 and again.json["dismissed_at"] == dismissed.json["dismissed_at"]
    assert [a["id"] for a in api.get("/v1/alerts?active=true").json["items"]] == [minimal["id"]]
    assert [a["id"] for a in api.get("/v1/alerts?active=false").json["items"]] == [alert["id"]]
    assert len(api.get("/v1/alerts").json["items"]) == 2  # dismissed alerts stay listed

    assert api.delete("/v1/alerts/nope").status_code == 404
    assert api.get("/v1/alerts/nope").json["code"] == "not_found"
    assert api.delete("/v1/alerts/" + "x" * 3000).status_code == 404


def test_expiry_is_honoured(api, env):
    now = api.host.clock.now_ms()
    alert = api.post("/v1/alerts", json={"title": "Soon gone", "expires_at": now + 60_000}).json
    assert alert["active"] is True
    assert [a["id"] for a in api.host.services[ALERTS].active()] == [alert["id"]]
    advance_clock(env, 61_000)
    assert api.get(f"/v1/alerts/{alert['id']}").json["active"] is False
    assert api.get("/v1/alerts?active=true").json["items"] == []
    assert api.host.services[ALERTS].active() == []


@pytest.mark.parametrize("body, field", [
    ({}, "title"),
    ({"title": ""}, "title"),
    ({"title": "t" * 201}, "title"),
    ({"title": "\r"}, "title"),
    ({"title": "x", "source": "  "}, "source"),
    ({"title": "x", "severity": "panic"}, "severity"),
    ({"title": "x", "priority": 101}, "priority"),
    ({"title": "x", "priority": -1}, "priority"),
    ({"title": "x", "priority": "high"}, "priority"),
    ({"title": "x", "expires_at": "tomorrow"}, "expires_at"),
    ({"title": "x", "expires_at": 10 ** 30}, "expires_at"),
    ({"title": "x", "display_only": {"challenge": "X"}}, "display_only"),
    ({"title": "x", "icon": "Not An Icon"}, "icon"),
])
def test_bad_bodies(api, body, field):
    result = api.post("/v1/alerts", json=body)
    assert result.status_code == 400 and field in result.json["details"], result.text
    assert api.get("/v1/alerts").json["items"] == []


def test_service_raise_and_dismiss_keep_display_only_off_http(api):
    service = api.host.services[ALERTS]
    with orm.db_session:
        alert_id = service.raise_alert(title="Adoption request", body="A controller asks for the operator role",
                                       severity="critical", priority=100, source="adoption", icon="shield",
                                       display_only={"challenge": "ABCD-EFGH"},
                                       expires_at_ms=api.host.clock.now_ms() + 300_000)
    listed = api.get("/v1/alerts")
    assert "ABCD-EFGH" not in listed.text and "display_only" not in listed.text
    one = api.get(f"/v1/alerts/{alert_id}")
    assert "ABCD-EFGH" not in one.text and one.json["source"] == "adoption" and one.json["icon"] == "shield"
    assert "ABCD-EFGH" not in api.delete(f"/v1/alerts/{alert_id}").text
    with orm.db_session:
        assert service.dismiss(alert_id) is True
        assert service.dismiss("missing") is False
    with orm.db_session:
        other = service.raise_alert(title="t", body="b", source="plugin_x", display_only={"k": 1})
    shown = service.active()
    assert [a["id"] for a in shown] == [other] and shown[0]["display_only"] == {"k": 1}
    assert "display_only" not in json.dumps(api.get("/v1/alerts").json)


def test_service_rejects_bad_values(api):
    service = api.host.services[ALERTS]
    for kwargs in ({"severity": "panic"}, {"priority": 500}, {"title": ""}, {"title": " \t"}, {"source": ""},
                   {"display_only": ["x"]}):
        args = {"title": "t", "body": "b", "source": "s", **kwargs}
        with pytest.raises(ValueError):
            with orm.db_session:
                service.raise_alert(**args)


def test_active_order_is_priority_then_newest(api, env):
    api.post("/v1/alerts", json={"title": "low", "priority": 1})
    advance_clock(env, 10)
    api.post("/v1/alerts", json={"title": "high", "priority": 50})
    advance_clock(env, 10)
    api.post("/v1/alerts", json={"title": "low-newer", "priority": 1})
    assert [a["title"] for a in api.host.services[ALERTS].active()] == ["high", "low-newer", "low"]
    assert [a["title"] for a in api.get("/v1/alerts").json["items"]] == ["low-newer", "high", "low"]


def test_permissions(api):
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    assert api.get("/v1/alerts", key=viewer).status_code == 200
    assert api.post("/v1/alerts", key=viewer, json={"title": "x"}).status_code == 403
    alert = api.post("/v1/alerts", key=operator, json={"title": "x"}).json
    assert api.delete(f"/v1/alerts/{alert['id']}", key=viewer).status_code == 403
    assert api.delete(f"/v1/alerts/{alert['id']}", key=operator).status_code == 200
    assert api.client.simulate_get("/v1/alerts").status_code == 401


def test_source_alerts_follow_a_condition_and_respect_operator_dismissal(api):
    service = api.host.services[ALERTS]
    first = service.upsert_source_alert(source="home_assistant", key="door", title="Door: open", body="b",
                                        severity="not-a-severity")
    assert service.upsert_source_alert(source="home_assistant", key="door", title="Door: still open") == first
    rows = api.get("/v1/alerts").json["items"]
    assert [(r["title"], r["severity"], r["source"]) for r in rows] == [("Door: still open", "warning",
                                                                           "home_assistant")]
    assert "display_only" not in rows[0] and "source_key" not in json.dumps(rows)

    assert api.delete(f"/v1/alerts/{first}").status_code in (200, 204)
    assert service.upsert_source_alert(source="home_assistant", key="door", title="Door: open") is None

    assert service.clear_source_alerts(source="home_assistant", keep_keys=[]) == 1
    again = service.upsert_source_alert(source="home_assistant", key="door", title="Door: open again")
    assert again not in (None, first)
    assert service.clear_source_alerts(source="home_assistant", keep_keys=["door"]) == 0
    assert service.clear_source_alerts(source="home_assistant", keep_keys=[]) == 1
    with orm.db_session:
        assert api.host.db.Alert[again].dismissed_at is not None
