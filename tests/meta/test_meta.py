"""Meta routes: every registered type with label, schema and example, from the registries."""
import jsonschema
from marshmallow import Schema

from hookspecs import IntegrationType, ScreenType, hookimpl
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api


class ExtraTypes:
    @hookimpl
    def register_screen_types(self):
        return [ScreenType("specials_board", "Specials board", {"type": "object", "properties": {"dish": {"type": "string"}},
                                                         "additionalProperties": False}, {"dish": "Soup"})]

    @hookimpl
    def register_integration_types(self):
        return [IntegrationType("tasks_acme", "Acme tasks", {"type": "object"}, {}, family="tasks",
                                requires_accounts=True, required_account_types=["acme"])]


def _check_items(items, id_field):
    for item in items:
        assert set(item) >= {id_field, "label", "config_json_schema", "example_config_json"}
        jsonschema.Draft202012Validator.check_schema(item["config_json_schema"])
        validator = jsonschema.Draft202012Validator(item["config_json_schema"])
        assert list(validator.iter_errors(item["example_config_json"])) == []


def test_screen_types_list(api):
    result = api.get("/v1/meta/screen-types", key=issue_key(api.host, "viewer"))
    assert result.status_code == 200
    items = result.json["items"]
    _check_items(items, "screen_type")
    ids = [i["screen_type"] for i in items]
    assert ids == sorted(ids) and "task_board" in ids and "plugin_template" in ids


def test_ticker_tape_types_list(api):
    items = api.get("/v1/meta/ticker-tape-types").json["items"]
    _check_items(items, "ticker_type")


def test_config_schemas_includes_plugin_types_and_requires_accounts(make_host):
    host = make_host(plugins=[("extra", ExtraTypes())])
    api = Api(host, issue_key(host, "viewer"))
    body = api.get("/v1/meta/config-schemas").json
    assert set(body) == {"screen_types", "ticker_tape_types", "overlay_types", "integration_types"}
    _check_items(body["screen_types"], "screen_type")
    _check_items(body["ticker_tape_types"], "ticker_type")
    _check_items(body["overlay_types"], "overlay_type")
    _check_items(body["integration_types"], "integration_type")
    assert "specials_board" in [i["screen_type"] for i in body["screen_types"]]
    acme = next(i for i in body["integration_types"] if i["integration_type"] == "tasks_acme")
    assert acme["requires_accounts"] is True and acme["family"] == "tasks"
    assert api.get("/v1/meta/screen-types").json["items"] == body["screen_types"]


def test_meta_needs_a_key(api):
    for path in ("/v1/meta/config-schemas", "/v1/meta/screen-types", "/v1/meta/ticker-tape-types"):
        assert api.client.simulate_get(path).status_code == 401


def test_response_schemas_match(api):
    routes = {("/v1/meta/config-schemas", "GET"), ("/v1/meta/screen-types", "GET"),
              ("/v1/meta/ticker-tape-types", "GET")}
    for path, method in routes:
        schema = api.host.operations[(path, method)].response
        schema = schema() if isinstance(schema, type) else schema
        assert isinstance(schema, Schema)
        assert schema.validate(api.get(path).json) == {}
