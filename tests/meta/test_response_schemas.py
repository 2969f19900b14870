"""The declared response schemas of the display-configuration routes match what they return."""
from marshmallow import Schema


def _check(api, path, method, result):
    schema = api.host.operations[(path, method)].response
    schema = schema() if isinstance(schema, type) else schema
    assert isinstance(schema, Schema), (path, method)
    assert schema.validate(result.json) == {}, (path, method, result.json)
    assert result.status_code == api.host.operations[(path, method)].status, (path, method, result.status_code)


def test_declared_responses_match(api):
    calls = [
        ("/v1/screens", "POST", api.post("/v1/screens", json={"id": "s", "screen_type": "clock", "config_json": {}})),
        ("/v1/screens", "GET", api.get("/v1/screens?include_config_schema=true")),
        ("/v1/screens/{id}", "GET", api.get("/v1/screens/s")),
        ("/v1/screens/{id}", "PATCH", api.patch("/v1/screens/s", json={"data_key": "k"})),
        ("/v1/ticker/tapes", "POST", api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": "time"})),
        ("/v1/ticker/tapes", "GET", api.get("/v1/ticker/tapes?include_config_schema=true")),
        ("/v1/ticker/tapes/{id}", "PATCH", api.patch("/v1/ticker/tapes/t", json={"name": "n"})),
        ("/v1/ticker/items", "GET", api.get("/v1/ticker/items")),
        ("/v1/display/overlays", "POST", api.post("/v1/display/overlays", json={
            "id": "o", "overlay_type": "qr_code", "start_month": 1, "start_day": 1, "config_json": {"payload": "x"}})),
        ("/v1/display/overlays", "GET", api.get("/v1/display/overlays?include_config_schema=true")),
        ("/v1/display/overlays/{id}", "PATCH", api.patch("/v1/display/overlays/o", json={"year_exact": 2030})),
        ("/v1/alerts", "POST", api.post("/v1/alerts", json={"title": "a", "expires_at": 5})),
        ("/v1/alerts", "GET", api.get("/v1/alerts")),
        ("/v1/display/settings", "GET", api.get("/v1/display/settings")),
        ("/v1/display/themes", "GET", api.get("/v1/display/themes")),
        ("/v1/config/key-values", "PUT", api.put("/v1/config/key-values", json={"key": "k", "value": "v"})),
        ("/v1/config/key-values", "GET", api.get("/v1/config/key-values")),
    ]
    preview = {"display": ["#000", "#111"], "primaryContainer": ["#fff", "#000"],
               "secondaryContainer": ["#fff", "#000"], "accents": ["#fff", "#eee", "#ddd", "#333"]}
    theme = api.post("/v1/display/themes", json={"label": "T", "preview": preview})
    calls += [
        ("/v1/display/themes", "POST", theme),
        ("/v1/display/themes/{id}", "PATCH", api.patch(f"/v1/display/themes/{theme.json['id']}", json={"label": "U"})),
        ("/v1/display/settings", "PUT", api.put("/v1/display/settings", json={"display_theme_id": theme.json["id"]})),
        ("/v1/display/themes/{id}", "DELETE", api.delete(f"/v1/display/themes/{theme.json['id']}")),
    ]
    alert_id = calls[11][2].json["id"]
    calls += [
        ("/v1/alerts/{id}", "DELETE", api.delete(f"/v1/alerts/{alert_id}")),
        ("/v1/screens/{id}", "DELETE", api.delete("/v1/screens/s")),
        ("/v1/ticker/tapes/{id}", "DELETE", api.delete("/v1/ticker/tapes/t")),
        ("/v1/display/overlays/{id}", "DELETE", api.delete("/v1/display/overlays/o")),
        ("/v1/config/key-values", "DELETE", api.delete("/v1/config/key-values?key=k")),
    ]
    for path, method, result in calls:
        _check(api, path, method, result)
