"""Client administration and the caller's session (spec 4.1), plus the keys commands."""
from __future__ import annotations

import json

import pytest
from pony import orm

from svc_host.auth import sha256_hex
from svc_host.permissions import ROLES
from svc_display.testing import issue_key
from tests.trust.helpers import assert_error, count

pytestmark = pytest.mark.svc_display_storage


def test_create_returns_the_key_once_and_listing_masks_it(api):
    created = api.post("/v1/adoption/clients", json={"identifier": "wall-tablet", "role": "viewer"})
    assert created.status_code == 201, created.text
    body = created.json
    assert body["api_key"].startswith("svc_")
    assert body["identifier"] == "wall-tablet" and body["role"] == "viewer"
    assert body["permissions"] == ["telemetry.read"]
    assert {"id", "masked_api_key", "created_at_ms"} <= set(body)
    key = body["api_key"]

    listed = api.get("/v1/adoption/clients")
    assert listed.status_code == 200
    (row,) = [item for item in listed.json["items"] if item["identifier"] == "wall-tablet"]
    assert set(row) == {"id", "identifier", "role", "masked_api_key", "created_at_ms"}
    assert row["id"] == body["id"] and row["role"] == "viewer"
    assert row["masked_api_key"].startswith("svc_") and row["masked_api_key"] != key
    assert key not in listed.text and sha256_hex(key) not in listed.text
    single = api.get(f"/v1/adoption/clients/{body['id']}")
    assert single.json == row
    assert api.get("/v1/adoption/session", key=key).json["identifier"] == "wall-tablet"


def test_default_role_is_operator(api):
    assert api.post("/v1/adoption/clients", json={"identifier": "d"}).json["role"] == "operator"


def test_creating_an_existing_identifier_rotates_its_key(api):
    first = api.post("/v1/adoption/clients", json={"identifier": "rot", "role": "viewer"}).json
    second = api.post("/v1/adoption/clients", json={"identifier": "rot", "role": "operator"})
    assert second.status_code == 201
    assert second.json["id"] == first["id"] and second.json["api_key"] != first["api_key"]
    assert_error(api.get("/v1/adoption/session", key=first["api_key"]), 401, "unauthorized")
    assert api.get("/v1/adoption/session", key=second.json["api_key"]).json["role"] == "operator"


def test_delete_revokes_the_key_at_once(api):
    created = api.post("/v1/adoption/clients", json={"identifier": "gone"}).json
    assert api.get("/v1/adoption/session", key=created["api_key"]).status_code == 200
    deleted = api.delete(f"/v1/adoption/clients/{created['id']}")
    assert deleted.status_code == 204 and deleted.text == ""
    assert_error(api.get("/v1/adoption/session", key=created["api_key"]), 401, "unauthorized")
    assert_error(api.delete(f"/v1/adoption/clients/{created['id']}"), 404, "not_found")
    assert_error(api.get(f"/v1/adoption/clients/{created['id']}"), 404, "not_found")


@pytest.mark.parametrize("client_id", ["nope", "0" * 32, "x" * 5000, "%00", "ü", "' OR 1=1 --",
                                       "..%2F..%2Fetc"])
def test_unknown_or_odd_ids_are_404(api, client_id):
    assert_error(api.delete(f"/v1/adoption/clients/{client_id}"), 404, "not_found")
    assert_error(api.get(f"/v1/adoption/clients/{client_id}"), 404, "not_found")


@pytest.mark.parametrize("role", ["operator", "power_viewer", "viewer"])
def test_client_admin_needs_adoption_admin(api, role):
    key = issue_key(api.host, role)
    created = api.post("/v1/adoption/clients", json={"identifier": "victim"}).json
    assert_error(api.get("/v1/adoption/clients", key=key), 403, "forbidden")
    assert_error(api.post("/v1/adoption/clients", key=key, json={"identifier": "mine"}), 403, "forbidden")
    assert_error(api.delete(f"/v1/adoption/clients/{created['id']}", key=key), 403, "forbidden")
    assert api.get("/v1/adoption/session", key=created["api_key"]).status_code == 200


def test_session_describes_every_role(api):
    table = api.host.registries.permissions
    for role in ROLES:
        key = issue_key(api.host, role, f"who-{role}")
        answer = api.get("/v1/adoption/session", key=key)
        assert answer.json == {"identifier": f"who-{role}", "role": role, "permissions": table.for_role(role)}
    assert_error(api.get("/v1/adoption/session", key=""), 401, "unauthorized")
    assert_error(api.get("/v1/adoption/session", key="svc_forged"), 401, "unauthorized")


@pytest.mark.parametrize("body", [{}, {"identifier": ""}, {"identifier": "x" * 129}, {"identifier": 1},
                                  {"identifier": "ok", "role": "god"}, {"identifier": "ok", "role": None},
                                  {"identifier": "ok", "api_key": "svc_chosen"}])
def test_bad_create_bodies_are_400_and_store_nothing(api, body):
    before = count(api.host, "ApiClient")
    assert_error(api.post("/v1/adoption/clients", json=body), 400, "validation_failed")
    assert count(api.host, "ApiClient") == before


def test_stored_rows_hold_no_plaintext_key(api):
    key = api.post("/v1/adoption/clients", json={"identifier": "hash-only"}).json["api_key"]
    with orm.db_session:
        row = api.host.db.ApiClient.get(identifier="hash-only").to_dict()
    assert row["key_hash"] == sha256_hex(key)
    assert key not in json.dumps(row)


def test_keys_commands_create_list_and_revoke(start_server):
    server = start_server()
    created = server.cli("keys", "create", "--identifier", "cli-box", "--role", "viewer")
    assert created.returncode == 0, created.stderr
    grant = json.loads(created.stdout)
    assert set(grant) == {"api_key", "identifier", "role", "permissions"}
    assert server.get("/v1/adoption/session", key=grant["api_key"]).json()["role"] == "viewer"

    listed = server.cli("keys", "list")
    assert listed.returncode == 0
    items = json.loads(listed.stdout)["items"]
    assert [i["identifier"] for i in items] == ["cli-box"]
    assert grant["api_key"] not in listed.stdout

    revoked = server.cli("keys", "revoke", "--identifier", "cli-box")
    assert revoked.returncode == 0, revoked.stderr
    assert server.get("/v1/adoption/session", key=grant["api_key"]).status_code == 401
    again = server.cli("keys", "revoke", "--identifier", "cli-box")
    assert again.returncode == 1
    bad = server.cli("keys", "create", "--identifier", "x" * 129)
    assert bad.returncode == 2 and "128" in bad.stderr


@pytest.mark.slow
def test_keys_revoked_or_rotated_by_the_cli_are_refused_by_a_running_server_at_once(start_server):
    """The server caches principals per key (builtin_plugins/clients/keys.py): a rotation or
    revoke made by another process must still be refused on the very next request."""
    server = start_server()
    old = server.key("operator", "cached-box")
    other = server.key("viewer", "other-box")
    for _ in range(3):  # cached by now
        assert server.get("/v1/adoption/session", key=old).json()["role"] == "operator"
        assert server.get("/v1/screens", key=other).status_code == 200

    rotated = server.cli("keys", "create", "--identifier", "cached-box", "--role", "viewer")
    assert rotated.returncode == 0, rotated.stderr
    new = json.loads(rotated.stdout)["api_key"]
    assert_error(server.get("/v1/adoption/session", key=old), 401, "unauthorized")
    assert server.get("/v1/adoption/session", key=new).json()["role"] == "viewer"
    assert server.get("/v1/screens", key=other).status_code == 200  # other keys keep working

    revoked = server.cli("keys", "revoke", "--identifier", "cached-box")
    assert revoked.returncode == 0, revoked.stderr
    assert_error(server.get("/v1/adoption/session", key=new), 401, "unauthorized")
    assert_error(server.get("/v1/screens", key=new), 401, "unauthorized")
    assert server.get("/v1/screens", key=other).status_code == 200


def test_rest_rotation_and_revoke_drop_cached_principals(api):
    created = api.post("/v1/adoption/clients", json={"identifier": "warm", "role": "operator"}).json
    for _ in range(3):
        assert api.get("/v1/adoption/session", key=created["api_key"]).status_code == 200
    rotated = api.post("/v1/adoption/clients", json={"identifier": "warm", "role": "viewer"}).json
    assert_error(api.get("/v1/adoption/session", key=created["api_key"]), 401, "unauthorized")
    for _ in range(3):
        assert api.get("/v1/adoption/session", key=rotated["api_key"]).json["role"] == "viewer"
    assert api.delete(f"/v1/adoption/clients/{rotated['id']}").status_code == 204
    assert_error(api.get("/v1/adoption/session", key=rotated["api_key"]), 401, "unauthorized")


@pytest.mark.slow
def test_rest_rotation_readoption_and_revoke_are_refused_at_once_over_https(start_server, env):
    """Every way a key changes over the API, on a running server that has the key's principal
    cached, and on a second server process on the same data dir: the old key is refused on the
    very next request (REST rotation, an admin's instant re-grant, re-adoption by challenge,
    REST revoke)."""
    from svc_display.testing import ServerProcess
    from tests.trust.helpers import wait_for_code

    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    second = ServerProcess({**env, "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"}).start()
    try:
        admin = server.key("admin")

        def warm(key: str, role: str) -> None:  # cached by both servers
            for process in (server, second, server, second):
                assert process.get("/v1/adoption/session", key=key).json()["role"] == role

        def refused(key: str) -> None:
            for process in (server, second):
                assert_error(process.get("/v1/adoption/session", key=key), 401, "unauthorized")

        created = server.request("POST", "/v1/adoption/clients", key=admin,
                                 json={"identifier": "warm-box", "role": "operator"}).json()
        warm(created["api_key"], "operator")

        rotated = server.request("POST", "/v1/adoption/clients", key=admin,
                                 json={"identifier": "warm-box", "role": "viewer"}).json()
        refused(created["api_key"])
        warm(rotated["api_key"], "viewer")

        granted = server.request("POST", "/v1/adoption/request", key=admin,
                                 json={"identifier": "warm-box", "role": "power_viewer"}).json()
        refused(rotated["api_key"])
        warm(granted["api_key"], "power_viewer")

        asked = server.request("POST", "/v1/adoption/request",
                               json={"identifier": "warm-box", "role": "viewer"})
        assert asked.status_code == 200, asked.text
        confirmed = server.request("POST", "/v1/adoption/confirm", json={
            "identifier": "warm-box", "challenge_code": wait_for_code(server, "warm-box")}).json()
        refused(granted["api_key"])
        warm(confirmed["api_key"], "viewer")

        client_id = [c for c in server.get("/v1/adoption/clients", key=admin).json()["items"]
                     if c["identifier"] == "warm-box"][0]["id"]
        assert server.request("DELETE", f"/v1/adoption/clients/{client_id}", key=admin).status_code == 204
        refused(confirmed["api_key"])
    finally:
        second.stop()


@pytest.mark.slow
def test_keys_rotated_or_revoked_on_one_server_are_refused_by_another_on_the_same_database_at_once(
        start_server, env, backend, tmp_path):
    """Two display processes share one database: on PostgreSQL each has a data dir of its own
    (nothing but the database in common), on SQLite both serve the one data dir that holds the
    file. A key rotated or revoked through either is refused by the other on the very next
    request, after both have answered it many times."""
    first = start_server()
    second_env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data-second")} if backend == "postgres" else {}
    second = start_server(second_env)
    assert (second.data_dir == first.data_dir) == (backend == "sqlite")
    admin = first.key("admin")
    servers = (first, second)

    def accepted(key: str, role: str) -> None:
        for _ in range(3):
            for process in servers:
                assert process.get("/v1/adoption/session", key=key).json()["role"] == role
                assert process.get("/v1/screens", key=key).status_code == 200

    def refused(key: str, process) -> None:  # noqa: ANN001
        assert_error(process.get("/v1/adoption/session", key=key), 401, "unauthorized")
        assert_error(process.get("/v1/screens", key=key), 401, "unauthorized")

    accepted(admin, "admin")
    for changer, other in ((first, second), (second, first)):
        identifier = f"shared-box-{changer.port}"
        created = changer.request("POST", "/v1/adoption/clients", key=admin,
                                  json={"identifier": identifier, "role": "operator"}).json()
        accepted(created["api_key"], "operator")

        rotated = changer.request("POST", "/v1/adoption/clients", key=admin,
                                  json={"identifier": identifier, "role": "viewer"})
        assert rotated.status_code == 201, rotated.text
        refused(created["api_key"], other)
        refused(created["api_key"], changer)
        accepted(rotated.json()["api_key"], "viewer")

        deleted = changer.request("DELETE", f"/v1/adoption/clients/{rotated.json()['id']}", key=admin)
        assert deleted.status_code == 204, deleted.text
        refused(rotated.json()["api_key"], other)
        refused(rotated.json()["api_key"], changer)
    accepted(admin, "admin")  # other keys keep working
