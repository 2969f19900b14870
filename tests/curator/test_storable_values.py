"""Values PostgreSQL cannot store (NUL characters, non-finite JSON numbers) are 400s, never 500s."""
import pytest

pytestmark = pytest.mark.svc_display_storage


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/v1/curator/categories", {"id": "x", "label": "a\x00b"}),
    ("PATCH", "/v1/curator/categories/news", {"material_icon_name": "\x00"}),
    ("POST", "/v1/interests/weather-locations", {"name": "a\x00", "latitude": 0, "longitude": 0}),
    ("POST", "/v1/interests/rss-feeds", {"url": "https://example.org/\x00"}),
    ("POST", "/v1/interests/joke-categories", {"id": "jokes", "config_json": {"k": "\x00"}}),
    ("POST", "/v1/interests/joke-categories", {"id": "jokes", "config_json": '{"k": NaN}'}),
    ("POST", "/v1/curator/manual/jokes", {"category_id": "jokes", "setup": "\x00", "punchline": "p"}),
    ("POST", "/v1/curator/manual/calendar-events",
     {"title": "t", "start_ms": 1, "end_ms": 2, "category_id": "calendar", "description": "\x00"}),
    ("POST", "/v1/curator/configurations", {"id": "c", "name": "n", "layer": "base", "ticker_overrides": {"\x00": 1}}),
    ("POST", "/v1/curator/configurations",
     {"id": "c", "name": "n", "layer": "base", "rules": [{"predicate": "test", "params": {"x": float("inf")}}]}),
])
def test_unstorable_values_are_rejected(api, method, path, body):
    import json
    result = api.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    assert result.status_code == 400, result.text


@pytest.mark.parametrize("path", ["/v1/curator/categories/a%00", "/v1/curator/configurations/a%00",
                                  "/v1/curator/configurations/a%00/rules/x", "/v1/interests/rss-feeds/a%00"])
def test_odd_path_ids_are_404(api, path):
    method = "PATCH" if path.endswith("/x") else "GET"
    kwargs = {"json": {"negate": True}} if method == "PATCH" else {}
    assert api.request(method, path, **kwargs).status_code == 404
