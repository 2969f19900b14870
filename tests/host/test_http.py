"""The HTTP app: CONTRACT error shapes, auth, validation, body caps, and no 500 with a traceback."""
import json
import logging

import pytest
from marshmallow import Schema, fields, validate
from pony import orm

from hookspecs import AUTHENTICATED, PUBLIC, Operation, Route, hookimpl
from svc_host.http.errors import ApiError
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api


class ThingBody(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=20))
    size = fields.Integer(validate=validate.Range(min=0, max=10))


class ThingsResource:
    def __init__(self, host):
        self.host = host

    def on_get(self, req, resp):
        resp.media = {"items": [{"name": t.name} for t in self.host.db.Thing.select()]}

    def on_post(self, req, resp):
        body = req.context.body
        self.host.db.Thing(name=body["name"])
        if body["name"] == "reject-after-write":
            raise ApiError(409, "conflict", "rejected after a write")
        resp.status = 201
        resp.media = {"name": body["name"]}


class ThingResource:
    def __init__(self, host):
        self.host = host

    def on_get(self, req, resp, name):
        thing = self.host.db.Thing.get(name=name)
        if thing is None:
            raise ApiError(404, "not_found", "no such thing")
        resp.media = {"name": thing.name}


class BoomResource:
    def on_get(self, req, resp):
        raise RuntimeError("secret-internal-detail")


class ThingsPlugin:
    @hookimpl
    def register_entities(self, db):
        class Thing(db.Entity):
            _table_ = "test_thing"
            name = orm.Required(str)

    @hookimpl
    def register_routes(self, host):
        return [
            Route("/v1/things", ThingsResource(host), {
                "GET": Operation(AUTHENTICATED, "list things"),
                "POST": Operation("screens.write", "create a thing", body=ThingBody, status=201),
            }),
            Route("/v1/things/{name}", ThingResource(host), {"GET": Operation(AUTHENTICATED, "one thing")}),
            Route("/v1/boom", BoomResource(), {"GET": Operation(PUBLIC, "fails")}),
        ]


@pytest.fixture
def things(make_host):
    host = make_host(plugins=[("things", ThingsPlugin())])
    return Api(host, issue_key(host, "admin"))


def _assert_error(result, status, code):
    assert result.status_code == status, result.text
    assert result.headers["content-type"].startswith("application/json")
    assert result.json["code"] == code
    assert isinstance(result.json["message"], str) and result.json["message"]


def test_unknown_route_is_404_not_found(things):
    _assert_error(things.get("/v1/nothing-here"), 404, "not_found")
    _assert_error(things.get("/elsewhere"), 404, "not_found")


def test_wrong_method_is_405(things):
    result = things.delete("/v1/things")
    _assert_error(result, 405, "method_not_allowed")
    assert "GET" in result.headers["allow"]


def test_missing_and_bad_keys_are_401_and_missing_permission_403(things):
    _assert_error(things.get("/v1/things", key=""), 401, "unauthorized")
    _assert_error(things.get("/v1/things", key="svc_not-a-real-key"), 401, "unauthorized")
    _assert_error(things.get("/v1/things", headers={"Authorization": "Basic abc"}, key=""), 401, "unauthorized")
    viewer = issue_key(things.host, "viewer")
    assert things.get("/v1/things", key=viewer).status_code == 200
    _assert_error(things.post("/v1/things", key=viewer, json={"name": "x"}), 403, "forbidden")


@pytest.mark.parametrize("body, code", [
    (b"not json", "invalid_json"),
    (b"[1, 2]", "invalid_json"),
    (b"\xff\xfe\x00", "invalid_json"),
    (b"", "invalid_json"),
    (b'{"name": 5}', "validation_failed"),
    (b'{"size": 3}', "validation_failed"),
    (b'{"name": "' + b"x" * 5000 + b'"}', "validation_failed"),
    (b'{"name": "ok", "size": "big"}', "validation_failed"),
    (b'{"name": "ok", "extra": 1}', "validation_failed"),
])
def test_bad_bodies_are_400_and_store_nothing(things, body, code):
    result = things.post("/v1/things", body=body, headers={"Content-Type": "application/json"})
    _assert_error(result, 400, code)
    if code == "validation_failed":
        assert isinstance(result.json["details"], dict) and result.json["details"]
    assert things.get("/v1/things").json == {"items": []}


def test_validation_details_name_each_field(things):
    result = things.post("/v1/things", json={"size": 99})
    assert set(result.json["details"]) == {"name", "size"}


def test_non_json_content_type_is_415(things):
    result = things.post("/v1/things", body=b"name=x", headers={"Content-Type": "application/x-www-form-urlencoded"})
    _assert_error(result, 415, "unsupported_media_type")


def test_oversized_body_is_413(things):
    big = json.dumps({"name": "x" * (2 * 1024 * 1024)})
    _assert_error(things.post("/v1/things", body=big, headers={"Content-Type": "application/json"}),
                  413, "payload_too_large")


def test_rejected_request_rolls_back_its_writes(things):
    _assert_error(things.post("/v1/things", json={"name": "reject-after-write"}), 409, "conflict")
    assert things.get("/v1/things").json == {"items": []}
    assert things.post("/v1/things", json={"name": "kept"}).status_code == 201
    assert things.get("/v1/things").json == {"items": [{"name": "kept"}]}


def test_unexpected_exception_is_500_without_traceback_with_request_id_logged(things, caplog):
    with caplog.at_level(logging.ERROR):
        result = things.get("/v1/boom")
    _assert_error(result, 500, "internal_error")
    assert "secret-internal-detail" not in result.text and "Traceback" not in result.text
    request_id = result.headers["x-request-id"]
    assert request_id in result.json["message"]
    assert any(request_id in r.getMessage() for r in caplog.records)


def test_every_request_gets_its_own_request_id(things):
    ids = [things.get("/v1/things").headers["x-request-id"] for _ in range(50)]
    assert len(set(ids)) == 50
    assert all(len(value) == 16 and int(value, 16) >= 0 for value in ids)


def test_trailing_slash_is_the_same_route(things):
    assert things.get("/v1/things/").status_code == 200


@pytest.mark.parametrize("payload", ['{"name": "a\\u0000b"}', '{"name": "\\ud800"}', '{"name": "ok", "\\u0000": 1}'])
def test_unstorable_text_in_bodies_is_400(things, payload):
    result = things.post("/v1/things", body=payload.encode(), headers={"Content-Type": "application/json"})
    _assert_error(result, 400, "validation_failed")
    assert things.get("/v1/things").json == {"items": []}


def test_unstorable_text_in_query_is_400_and_in_a_path_id_404(things):
    _assert_error(things.get("/v1/things", query_string="x=%00"), 400, "validation_failed")
    _assert_error(things.get("/v1/things/a%00b"), 404, "not_found")
    assert things.get("/v1/things/plain").status_code == 404


def test_response_json_falls_back_to_the_standard_library_for_what_orjson_refuses():
    from svc_host.http.app import dumps_json

    assert json.loads(dumps_json({"text": "Grüße \u2028", "n": [1, 2.5, None, True]})) == {
        "text": "Grüße \u2028", "n": [1, 2.5, None, True]}
    assert json.loads(dumps_json({"big": 2**70, 1: "non-string key"})) == {"big": 2**70, "1": "non-string key"}


def test_the_in_process_clients_of_one_host_share_its_app_and_each_sends_its_key(host):
    """One REST app per host (building one costs about 35 ms); each client still answers as its
    own key's caller."""
    admin, viewer, anonymous = Api(host, issue_key(host, "admin")), Api(host, issue_key(host, "viewer")), Api(host)
    assert admin.client.app is viewer.client.app is anonymous.client.app
    assert admin.get("/v1/adoption/session").json["role"] == "admin"
    assert viewer.get("/v1/adoption/session").json["role"] == "viewer"
    assert anonymous.get("/v1/adoption/session").status_code == 401
