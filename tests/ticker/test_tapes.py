"""Ticker tapes: CRUD, unknown types, config validation, permissions, type schemas."""
import jsonschema
import pytest

from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage


def test_builtin_types_have_valid_schemas_examples_and_builders(host):
    types = list(host.registries.ticker_types)
    assert {t.id for t in types} >= {"time", "weather", "news", "quote", "stocks", "text", "plugin"}
    for item in types:
        jsonschema.Draft202012Validator.check_schema(item.config_schema)
        assert item.config_schema["additionalProperties"] is False
        assert list(jsonschema.Draft202012Validator(item.config_schema).iter_errors(item.example_config)) == []
        assert callable(item.build_items)
    time_keys = set(host.registries.ticker_types.get("time").config_schema["properties"])
    # the spec's four keys, plus showDate (beyond the spec: a time-only tape, docs/display-configuration.md)
    assert time_keys == {"dateOrder", "timeFormatPreset", "timeZone", "labelPrefix", "showDate"}
    weather_keys = set(host.registries.ticker_types.get("weather").config_schema["properties"])
    assert weather_keys == {"locationId", "temperatureUnit"}


def test_crud(api):
    created = api.post("/v1/ticker/tapes", json={"id": "clock", "ticker_type": "time", "name": "Clock",
                                                 "config_json": {"timeFormatPreset": "24h_hms"}})
    assert created.status_code == 201, created.text
    assert created.json["frequency_weight"] == 1 and created.json["sort_order"] == 0
    assert created.json["enabled"] is True and created.json["description"] == ""
    assert api.post("/v1/ticker/tapes", json={"id": "hello", "ticker_type": "text", "sort_order": -1,
                                              "config_json": '{"text": "hi"}'}).status_code == 201
    rows = api.get("/v1/ticker/tapes").json["items"]
    assert [r["id"] for r in rows] == ["hello", "clock"]
    assert "config_json_schema" not in rows[0]
    with_schema = api.get("/v1/ticker/tapes?include_config_schema=true").json["items"]
    assert with_schema[0]["config_json_schema"]["title"] == "text"
    assert api.get("/v1/ticker/tapes/clock?include_config_schema=true").json["config_json_schema"]["title"] == "time"

    patched = api.patch("/v1/ticker/tapes/clock", json={"enabled": False, "frequency_weight": 2.5,
                                                        "description": "d", "name": None})
    assert patched.status_code == 200, patched.text
    assert patched.json["enabled"] is False and patched.json["frequency_weight"] == 2.5
    assert patched.json["name"] == "" and patched.json["description"] == "d"

    retyped = api.patch("/v1/ticker/tapes/hello", json={"ticker_type": "plugin", "config_json": {"pluginId": "x"}})
    assert retyped.status_code == 200 and retyped.json["ticker_type"] == "plugin"

    assert api.delete("/v1/ticker/tapes/clock").status_code == 200
    assert api.get("/v1/ticker/tapes/clock").status_code == 404
    assert api.delete("/v1/ticker/tapes/clock").status_code == 404
    assert api.patch("/v1/ticker/tapes/clock", json={"enabled": True}).status_code == 404


def test_unknown_type_400_existing_id_409(api):
    unknown = api.post("/v1/ticker/tapes", json={"id": "a", "ticker_type": "horoscope"})
    assert unknown.status_code == 400 and "ticker_type" in unknown.json["details"]
    assert api.post("/v1/ticker/tapes", json={"id": "a", "ticker_type": "time"}).status_code == 201
    again = api.post("/v1/ticker/tapes", json={"id": "a", "ticker_type": "time"})
    assert again.status_code == 409 and again.json["code"] == "conflict"
    assert api.patch("/v1/ticker/tapes/a", json={"ticker_type": "horoscope"}).status_code == 400


@pytest.mark.parametrize("ticker_type, config, pointer", [
    ("time", {"timeFormatPreset": "25h"}, "/timeFormatPreset"),
    ("time", {"dateOrder": "ydm"}, "/dateOrder"),
    ("time", {"timeZone": "Mars/Olympus_Mons"}, "/timeZone"),
    ("time", {"colour": "red"}, "/"),
    ("weather", {"temperatureUnit": "k"}, "/temperatureUnit"),
    ("text", {}, "/"),
    ("plugin", {"pluginId": "Bad Id"}, "/pluginId"),
    ("stocks", {"symbols": ["A B"]}, "/symbols/0"),
])
def test_config_validation_names_pointers(api, ticker_type, config, pointer):
    result = api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": ticker_type, "config_json": config})
    assert result.status_code == 400 and result.json["code"] == "validation_failed", result.text
    assert pointer in result.json["details"]["config_json"]


@pytest.mark.parametrize("body, field", [
    ({"ticker_type": "time"}, "id"),
    ({"id": "t"}, "ticker_type"),
    ({"id": "t", "ticker_type": "time", "frequency_weight": "heavy"}, "frequency_weight"),
    ({"id": "t", "ticker_type": "time", "sort_order": 1.5}, "sort_order"),
    ({"id": "t", "ticker_type": "time", "config_json": 5}, "config_json"),
    ({"id": "t", "ticker_type": "time", "enabled": "maybe"}, "enabled"),
])
def test_bad_bodies(api, body, field):
    result = api.post("/v1/ticker/tapes", json=body)
    assert result.status_code == 400 and field in result.json["details"]


def test_permissions(api):
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    assert api.get("/v1/ticker/tapes", key=viewer).status_code == 200
    assert api.get("/v1/ticker/items", key=viewer).status_code == 200
    assert api.post("/v1/ticker/tapes", key=viewer, json={"id": "a", "ticker_type": "time"}).status_code == 403
    assert api.post("/v1/ticker/tapes", key=operator, json={"id": "a", "ticker_type": "time"}).status_code == 201
    assert api.delete("/v1/ticker/tapes/a", key=viewer).status_code == 403
    assert api.client.simulate_get("/v1/ticker/items").status_code == 401
