"""``GET /v1/plugins/{id}``: one row of ``GET /v1/plugins`` (CONTRACT's single-row rule; was 404)."""
from svc_display.testing import issue_key


def test_one_plugin_by_id_is_its_row_of_the_list(api):
    rows = {row["id"]: row for row in api.get("/v1/plugins").json["items"]}
    assert api.get("/v1/plugins/weather").json == rows["weather"]
    missing = api.get("/v1/plugins/wether")
    assert missing.status_code == 404 and missing.json["code"] == "not_found"
    assert api.get("/v1/plugins/weather", key=issue_key(api.host, "viewer")).status_code == 403
