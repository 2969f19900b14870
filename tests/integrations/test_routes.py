"""GET/PATCH /v1/integrations (spec 4.12), run-now, and integration telemetry (4.8)."""

from __future__ import annotations

import uuid

from pony import orm

from svc_display.testing import issue_key
from tests.integrations.probes import Probes
from hookspecs.services import INTEGRATION_TELEMETRY


def _host_api(make_host, api_for):
    host = make_host(plugins=[("probes", Probes())])
    return host, api_for(host)


def _link_account(host, integration_id, account_type="google"):
    with orm.db_session:
        host.db.IntegrationAccount(
            id=uuid.uuid4().hex,
            integration_id=integration_id,
            account_type=account_type,
            label="me@example.org",
            created_at_ms=host.clock.now_ms(),
        )


def test_no_query_keeps_the_unpaginated_shape(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    body = api.get("/v1/integrations").json
    assert set(body) == {"items"}
    ids = [item["id"] for item in body["items"]]
    assert ids == sorted(ids) and "general_probe" in ids
    probe = next(item for item in body["items"] if item["id"] == "general_probe")
    assert probe["integration_type"] == "general_probe"
    assert probe["enabled"] is False and probe["poll_seconds"] == 900
    assert probe["config_json"] == {"text": "hello"}
    assert probe["secrets_configured"] is False and probe["accounts_configured"] is True
    assert probe["linked_accounts"] == [] and probe["required_account_types"] == []
    assert "config_json_schema" not in probe


def test_enabled_switches_to_paginated_mode(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    api.patch("/v1/integrations/general_probe", json={"enabled": True})
    enabled = api.get("/v1/integrations?enabled=true").json
    assert [i["id"] for i in enabled["items"]] == ["general_probe"]
    assert (enabled["total"], enabled["limit"], enabled["offset"]) == (1, 25, 0)
    available = api.get("/v1/integrations?enabled=false&limit=2&offset=1").json
    assert available["limit"] == 2 and available["offset"] == 1 and len(available["items"]) == 2
    assert available["total"] == len(host.registries.integration_types.types) - 1
    for bad in (
        "limit=0",
        "limit=101",
        "offset=-1",
        "enabled=maybe",
        "sort=label",
        "order=up",
        "facets=type",
    ):
        response = api.get(f"/v1/integrations?{bad}")
        assert response.status_code == 400 and response.json["code"] == "validation_failed", bad


def test_sort_order_filters_and_facets(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    api.patch("/v1/integrations/general_broken", json={"poll_seconds": 60})
    items = api.get("/v1/integrations?sort=poll_seconds&order=asc&family=general").json["items"]
    assert items[0]["id"] == "general_broken"
    assert {i["integration_type"].split("_")[0] for i in items} == {"general"}
    desc = [i["id"] for i in api.get("/v1/integrations?order=desc").json["items"]]
    assert desc == sorted(desc, reverse=True)
    exact = api.get("/v1/integrations?integration_type=general_probe").json["items"]
    assert [i["id"] for i in exact] == ["general_probe"]
    # q is case-insensitive; % and _ are stripped from the needle
    assert [i["id"] for i in api.get("/v1/integrations?q=PROB").json["items"]] == [
        "calendar_probe",
        "general_probe",
    ]
    assert (
        api.get("/v1/integrations?q=%25probe_").json["items"]
        == api.get("/v1/integrations?q=probe").json["items"]
    )
    faceted = api.get("/v1/integrations?facets=family&family=general&q=probe").json
    assert faceted["facets"]["family"] == {"calendar": 1, "general": 1}
    assert [i["id"] for i in faceted["items"]] == ["general_probe"]


def test_secrets_and_accounts_configured_filters(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    assert (
        api.patch("/v1/integrations/general_probe", json={"secrets": {"token": "s3cret-value"}}).status_code
        == 200
    )
    configured = {
        i["id"] for i in api.get("/v1/integrations?secrets_configured=true&q=general").json["items"]
    }
    assert "general_probe" in configured and "general_broken" not in configured
    missing = {i["id"] for i in api.get("/v1/integrations?accounts_configured=false").json["items"]}
    assert "calendar_probe" in missing and "general_probe" not in missing
    assert {"calendar_google", "calendar_microsoft", "tasks_trello"} <= missing
    _link_account(host, "calendar_probe")
    assert api.get("/v1/integrations?accounts_configured=false&q=probe").json["items"] == []
    item = api.get("/v1/integrations/calendar_probe").json
    assert item["accounts_configured"] is True and item["required_account_types"] == ["google"]
    assert item["linked_accounts"][0]["account_type"] == "google"


def test_include_config_schema_once_per_type(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    items = api.get("/v1/integrations?include_config_schema=true").json["items"]
    types = [i["integration_type"] for i in items]
    with_schema = [i["integration_type"] for i in items if "config_json_schema" in i]
    assert sorted(with_schema) == sorted(set(types))
    probe = next(i for i in items if i["id"] == "general_probe")
    assert probe["config_json_schema"]["properties"]["text"]["type"] == "string"
    one = api.get("/v1/integrations/general_probe?include_config_schema=true").json
    assert "config_json_schema" in one


def test_patch_fields(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    response = api.patch(
        "/v1/integrations/general_probe",
        json={
            "enabled": True,
            "poll_seconds": 120,
            "base_url": "http://127.0.0.1:9/api",
            "config_json": '{"text": "from a string"}',
        },
    )
    assert response.status_code == 200, response.text
    body = response.json
    assert body["enabled"] is True and body["poll_seconds"] == 120
    assert body["config_json"] == {"text": "from a string", "baseUrl": "http://127.0.0.1:9/api"}
    assert api.patch("/v1/integrations/general_probe", json={"base_url": None}).json["config_json"] == {
        "text": "from a string"
    }
    assert api.patch("/v1/integrations/general_probe", json={"config_json": {"text": "obj"}}).json[
        "config_json"
    ] == {"text": "obj"}
    for bad in (
        {},
        {"enabled": "yes"},
        {"enabled": 1},
        {"poll_seconds": 5},
        {"poll_seconds": "60"},
        {"base_url": "ftp://x"},
        {"base_url": "not a url"},
        {"config_json": "[1]"},
        {"config_json": "{"},
        {"config_json": {"text": 5}},
        {"config_json": {"other": 1}},
        {"secrets": {"nope": "x"}},
        {"secrets": {"token": 5}},
        {"unknown": 1},
    ):
        response = api.patch("/v1/integrations/general_probe", json=bad)
        assert response.status_code == 400, (bad, response.text)
        assert response.json["code"] == "validation_failed", bad
    assert api.get("/v1/integrations/general_probe").json["config_json"] == {"text": "obj"}


def test_unknown_and_odd_ids(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    for path in ("nope_nope", "%00", "A" * 500, "../x", "general_probe%20"):
        assert api.get(f"/v1/integrations/{path}").status_code == 404
        assert api.patch(f"/v1/integrations/{path}", json={"enabled": True}).status_code in (404,)
        assert api.post(f"/v1/integrations/{path}/run").status_code == 404


def test_permissions(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    viewer = issue_key(host, "viewer")
    operator = issue_key(host, "operator")
    assert api.get("/v1/integrations", key=viewer).status_code == 403
    assert api.patch("/v1/integrations/general_probe", key=viewer, json={"enabled": True}).status_code == 403
    assert api.post("/v1/integrations/general_probe/run", key=viewer).status_code == 403
    assert api.get("/v1/integrations", key=operator).status_code == 200
    assert (
        api.patch("/v1/integrations/general_probe", key=operator, json={"enabled": True}).status_code == 200
    )
    assert api.get("/v1/telemetry/integrations", key=viewer).status_code == 200
    assert api.get("/v1/integrations", key="svc_wrong").status_code == 401


def test_run_route_and_telemetry(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    run = api.post("/v1/integrations/general_probe/run")
    assert run.status_code == 200 and run.json["status"] == "ok"
    failed = api.post("/v1/integrations/general_broken/run").json
    assert failed["status"] == "failed"
    lines = api.get("/v1/telemetry/integrations").json["items"]
    assert [line for line in lines if line.get("integration_type") == "general_broken"][-1][
        "channel"
    ] == "error"
    assert all(set(line) <= {"at_ms", "channel", "message", "integration_type"} for line in lines)
    assert any("integration_type" not in line for line in lines)
    telemetry = host.services[INTEGRATION_TELEMETRY]
    for i in range(30):
        telemetry.add("info", f"line {i}")
    last = api.get("/v1/telemetry/integrations?limit=3").json["items"]
    assert [line["message"] for line in last] == ["line 27", "line 28", "line 29"]
    since = last[0]["at_ms"] + 10**9
    assert api.get(f"/v1/telemetry/integrations?since_ms={since}").json["items"] == []
    for bad in ("limit=0", "limit=2001", "since_ms=-1", "limit=x"):
        assert api.get(f"/v1/telemetry/integrations?{bad}").status_code == 400
    assert len(api.get("/v1/telemetry/integrations?limit=2000").json["items"]) <= 2000


def test_manual_runs_are_capped(make_host, api_for):
    from builtin_plugins.integrations.routes import MAX_WAITING_RUNS

    host, api = _host_api(make_host, api_for)
    run_route = next(route for _plugin, route in host.routes if route.path == "/v1/integrations/{id}/run")
    for _ in range(MAX_WAITING_RUNS):  # as if that many requests were waiting on stuck collectors
        assert run_route.resource.waiting.acquire(blocking=False)
    busy = api.post("/v1/integrations/general_probe/run")
    assert busy.status_code == 409 and busy.json["code"] == "runs_in_progress"
    run_route.resource.waiting.release()
    assert api.post("/v1/integrations/general_probe/run").json["status"] == "ok"


def test_a_row_whose_plugin_is_missing_is_listed_and_refused(make_host, api_for):
    host, api = _host_api(make_host, api_for)
    with orm.db_session:
        host.db.Integration(id="plugin_http.gone", integration_type="plugin_http.gone", enabled=True,
                            config_json={"baseUrl": "http://127.0.0.1:9"}, created_at_ms=1)
    items = {item["id"]: item for item in api.get("/v1/integrations?include_config_schema=true").json["items"]}
    gone = items["plugin_http.gone"]
    assert gone["plugin_missing"] is True and items["general_probe"]["plugin_missing"] is False
    assert gone["secret_fields"] == [] and gone["secrets_configured"] is False
    assert "config_json_schema" not in gone
    assert api.get("/v1/integrations/plugin_http.gone").json["plugin_missing"] is True
    for method, path, body in (("patch", "", {"enabled": False}), ("post", "/run", None)):
        refused = getattr(api, method)(f"/v1/integrations/plugin_http.gone{path}", json=body)
        assert refused.status_code == 409 and refused.json["code"] == "integration_plugin_missing"
        assert "plugin" in refused.json["message"]
    with orm.db_session:
        assert host.db.Integration["plugin_http.gone"].enabled is True  # refused: nothing changed
