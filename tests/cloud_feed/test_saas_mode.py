"""In SaaS mode no local collector runs: not on a schedule, and not on request either."""

from __future__ import annotations

from tests.cloud_feed.conftest import KEY
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api


def test_running_an_integration_is_409_saas_mode_and_runs_nothing(feed, make_host):
    _script, base = feed
    host = make_host({"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": base, "SVC_SAAS_DISPLAY_ID": "lobby",
                      "SVC_SAAS_API_KEY": KEY, "SVC_SAAS_RECONNECT_MIN_MS": "50"})
    api = Api(host, issue_key(host, "admin", "saas-admin"))
    before = api.get("/v1/integrations/stock_finnhub").json
    answer = api.post("/v1/integrations/stock_finnhub/run")
    assert answer.status_code == 409, answer.text
    assert answer.json["code"] == "saas_mode" and "SVC_SAAS_MODE" in answer.json["message"]
    assert api.get("/v1/integrations/stock_finnhub").json == before  # no run recorded
    lines = api.get("/v1/telemetry/integrations?limit=2000").json["items"]
    assert not [line for line in lines if line.get("integration_type") == "stock_finnhub"]
    # an unknown integration is still 404, and the route keeps its permission
    assert api.post("/v1/integrations/no_such_thing/run").status_code == 404
    viewer = issue_key(host, "viewer", "saas-viewer")
    assert api.post("/v1/integrations/stock_finnhub/run", key=viewer).status_code == 403
