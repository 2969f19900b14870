"""Screens: CRUD, type and config validation, include_config_schema, permissions."""
import json

import jsonschema
import pytest

from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage

REQUIRED_TYPES = {
    "message", "clock", "weather_current", "weather_forecast", "news_headlines", "news_article", "photo", "video",
    "joke", "trivia", "stock_quotes", "calendar_agenda", "calendar_month", "task_board", "alerts", "qr_code",
    "controller_invite", "plugin_template",
}


def _screen(**overrides):
    body = {"id": "welcome", "screen_type": "message", "config_json": {"body": "Hello"}}
    body.update(overrides)
    return body


def test_builtin_types_have_valid_schemas_and_examples(host):
    types = list(host.registries.screen_types)
    assert REQUIRED_TYPES <= {t.id for t in types}
    for item in types:
        jsonschema.Draft202012Validator.check_schema(item.config_schema)
        assert item.config_schema["additionalProperties"] is False
        assert list(jsonschema.Draft202012Validator(item.config_schema).iter_errors(item.example_config)) == []
    task_board = host.registries.screen_types.get("task_board")
    assert task_board.config_schema["required"] == ["boardKey"]


def test_create_read_list_patch_delete(api):
    created = api.post("/v1/screens", json=_screen(name="Welcome", dwell_seconds=15, sort_order=2))
    assert created.status_code == 201, created.text
    row = created.json
    assert row["id"] == "welcome" and row["screen_type"] == "message" and row["name"] == "Welcome"
    assert row["config_json"] == {"body": "Hello"} and row["enabled"] is True
    assert row["dwell_seconds"] == 15 and row["frequency_weight"] == 1 and row["require_news_photo"] is None
    assert "config_json_schema" not in row

    assert api.post("/v1/screens", json=_screen(id="clock", screen_type="clock", config_json={},
                                                sort_order=1)).status_code == 201
    listed = api.get("/v1/screens").json["items"]
    assert [r["id"] for r in listed] == ["clock", "welcome"]
    assert all("config_json_schema" not in r for r in listed)

    with_schema = api.get("/v1/screens?include_config_schema=true").json["items"]
    assert with_schema[1]["config_json_schema"]["title"] == "message"

    got = api.get("/v1/screens/welcome")
    assert got.status_code == 200 and got.json == row

    patched = api.patch("/v1/screens/welcome", json={"enabled": False, "require_news_photo": True,
                                                     "data_key": "lobby"})
    assert patched.status_code == 200, patched.text
    assert patched.json["enabled"] is False and patched.json["require_news_photo"] is True
    assert patched.json["data_key"] == "lobby" and patched.json["config_json"] == {"body": "Hello"}

    assert api.delete("/v1/screens/welcome").status_code == 200
    assert api.get("/v1/screens/welcome").status_code == 404
    assert api.delete("/v1/screens/welcome").json["code"] == "not_found"


def test_config_json_as_string_is_accepted(api):
    result = api.post("/v1/screens", json=_screen(config_json=json.dumps({"body": "From a string"})))
    assert result.status_code == 201, result.text
    assert result.json["config_json"] == {"body": "From a string"}
    patched = api.patch("/v1/screens/welcome", json={"config_json": '{"body": "changed", "title": "T"}'})
    assert patched.json["config_json"] == {"body": "changed", "title": "T"}


def test_existing_id_is_409(api):
    assert api.post("/v1/screens", json=_screen()).status_code == 201
    result = api.post("/v1/screens", json=_screen(config_json={"body": "other"}))
    assert result.status_code == 409 and result.json["code"] == "conflict"
    assert api.get("/v1/screens/welcome").json["config_json"] == {"body": "Hello"}


def test_unknown_type_is_400(api):
    result = api.post("/v1/screens", json=_screen(screen_type="hologram"))
    assert result.status_code == 400
    assert "screen_type" in result.json["details"]
    assert api.get("/v1/screens").json["items"] == []


def test_config_that_does_not_match_is_validation_failed_with_pointers(api):
    result = api.post("/v1/screens", json=_screen(screen_type="task_board", config_json={"maxTasks": 0,
                                                                                         "extra": 1}))
    assert result.status_code == 400
    assert result.json["code"] == "validation_failed"
    pointers = result.json["details"]["config_json"]
    assert "/maxTasks" in pointers
    assert "/" in pointers  # boardKey missing and "extra" not allowed are errors of the object itself
    joined = " ".join(pointers["/"])
    assert "boardKey" in joined and "extra" in joined


def test_type_change_revalidates_config(api):
    assert api.post("/v1/screens", json=_screen()).status_code == 201
    result = api.patch("/v1/screens/welcome", json={"screen_type": "qr_code"})
    assert result.status_code == 400 and result.json["code"] == "validation_failed"
    assert "/" in result.json["details"]["config_json"]
    ok = api.patch("/v1/screens/welcome", json={"screen_type": "qr_code", "config_json": {"payload": "x"}})
    assert ok.status_code == 200 and ok.json["screen_type"] == "qr_code"
    bad_type = api.patch("/v1/screens/welcome", json={"screen_type": "nope"})
    assert bad_type.status_code == 400
    bad_config = api.patch("/v1/screens/welcome", json={"config_json": {"payload": ""}})
    assert bad_config.json["details"]["config_json"].keys() == {"/payload"}


@pytest.mark.parametrize("body, field", [
    ({"screen_type": "message", "config_json": {}}, "id"),
    ({"id": "x", "config_json": {"body": "a"}}, "screen_type"),
    ({"id": "x", "screen_type": "message"}, "config_json"),
    ({"id": "has space", "screen_type": "message", "config_json": {"body": "a"}}, "id"),
    ({"id": "x" * 200, "screen_type": "message", "config_json": {"body": "a"}}, "id"),
    ({"id": "x", "screen_type": "message", "config_json": "[1]"}, "config_json"),
    ({"id": "x", "screen_type": "message", "config_json": "{not json"}, "config_json"),
    ({"id": "x", "screen_type": "message", "config_json": {"body": "a"}, "dwell_seconds": 0}, "dwell_seconds"),
    ({"id": "x", "screen_type": "message", "config_json": {"body": "a"}, "frequency_weight": -1},
     "frequency_weight"),
    ({"id": "x", "screen_type": "message", "config_json": {"body": "a"}, "sort_order": 10 ** 30}, "sort_order"),
    ({"id": "x", "screen_type": "message", "config_json": {"body": "a"}, "name": "n" * 5000}, "name"),
    ({"id": "x", "screen_type": "message", "config_json": {"body": "a"}, "surprise": 1}, "surprise"),
])
def test_bad_create_bodies_are_validation_failed(api, body, field):
    result = api.post("/v1/screens", json=body)
    assert result.status_code == 400, result.text
    assert result.json["code"] == "validation_failed"
    assert field in result.json["details"]


def test_missing_and_odd_path_ids_are_404(api):
    assert api.get("/v1/screens/nope").status_code == 404
    assert api.patch("/v1/screens/nope", json={"enabled": False}).status_code == 404
    assert api.delete("/v1/screens/nope").status_code == 404
    assert api.get("/v1/screens/" + "x" * 5000).status_code == 404
    assert api.get("/v1/screens/%00%01").status_code == 404


def test_empty_patch_is_validation_failed(api):
    assert api.post("/v1/screens", json=_screen()).status_code == 201
    result = api.patch("/v1/screens/welcome", json={})
    assert result.status_code == 400 and result.json["code"] == "validation_failed"


def test_reads_need_a_key_writes_need_screens_write(api):
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    assert api.get("/v1/screens", key=viewer).status_code == 200
    assert api.client.simulate_get("/v1/screens").status_code == 401
    denied = api.post("/v1/screens", json=_screen(), key=viewer)
    assert denied.status_code == 403 and denied.json["code"] == "forbidden"
    assert api.post("/v1/screens", json=_screen(), key=operator).status_code == 201
    assert api.delete("/v1/screens/welcome", key=viewer).status_code == 403
    assert api.patch("/v1/screens/welcome", json={"enabled": False}, key=viewer).status_code == 403


def test_every_builtin_example_is_accepted_as_a_screen(api):
    types = list(api.host.registries.screen_types)
    for item in types:
        result = api.post("/v1/screens", json={"id": item.id, "screen_type": item.id,
                                                "config_json": item.example_config})
        assert result.status_code == 201, (item.id, result.text)
    assert len(api.get("/v1/screens").json["items"]) == len(types)


@pytest.mark.parametrize("raw", [
    '{"id": "a", "screen_type": "message", "config_json": {"body": "x\\u0000y"}}',
    '{"id": "a", "screen_type": "message", "config_json": "{\\"body\\": \\"x\\\\u0000y\\"}"}',
    '{"id": "a", "screen_type": "message", "name": "x\\u0000", "config_json": {"body": "x"}}',
    '{"id": "a", "screen_type": "message", "name": "x\\ud800", "config_json": {"body": "x"}}',
    '{"id": "a", "screen_type": "message", "config_json": {"body": "x\\udfff"}}',
    '{"id": "a", "screen_type": "message", "config_json": {"body": "x", "\\u0000": 1}}',
])
def test_text_no_database_can_store_is_400_not_500(api, raw):
    result = api.post("/v1/screens", body=raw, headers={"Content-Type": "application/json"})
    assert result.status_code == 400, result.text
    assert result.json["code"] == "validation_failed"
    assert api.get("/v1/screens").json["items"] == []
