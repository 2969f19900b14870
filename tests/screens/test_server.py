"""Black-box: the display configuration routes of a real server process over HTTPS."""
import pytest


@pytest.mark.slow
def test_display_configuration_over_https(start_server):
    server = start_server()
    operator = server.key("operator")
    viewer = server.key("viewer")

    created = server.request("POST", "/v1/screens", key=operator,
                             json={"id": "menu", "screen_type": "qr_code", "config_json": '{"payload": "https://x"}'})
    assert created.status_code == 201, created.text
    assert server.request("POST", "/v1/screens", key=viewer,
                          json={"id": "x", "screen_type": "message", "config_json": {}}).status_code == 403
    rows = server.request("GET", "/v1/screens?include_config_schema=true", key=viewer).json()["items"]
    assert rows[0]["config_json"] == {"payload": "https://x"} and rows[0]["config_json_schema"]["title"] == "qr_code"

    meta = server.request("GET", "/v1/meta/config-schemas", key=viewer).json()
    assert {"screen_types", "ticker_tape_types", "overlay_types", "integration_types"} == set(meta)

    assert server.request("POST", "/v1/ticker/tapes", key=operator,
                          json={"id": "hello", "ticker_type": "text", "config_json": {"text": "Hello"}}).ok
    items = server.request("GET", "/v1/ticker/items", key=viewer).json()["items"]
    assert items == [{"ordinal": 0, "kind": "text", "body": "Hello"}]

    overlays = server.request("GET", "/v1/display/overlays", key=viewer).json()["items"]
    assert [o["id"] for o in overlays] == ["default_birthday_example_may_13"]

    settings = server.request("PUT", "/v1/display/settings", key=operator, json={"display_timezone": "Europe/Oslo"})
    assert settings.json()["display_timezone"] == "Europe/Oslo"
    spec = server.get("/v1/openapi.json").json()
    for path in ("/v1/screens", "/v1/ticker/items", "/v1/display/overlays", "/v1/alerts", "/v1/display/themes",
                 "/v1/config/key-values", "/v1/meta/screen-types"):
        assert path in spec["paths"]
    assert spec["paths"]["/v1/screens"]["post"]["x-permission"] == "screens.write"
