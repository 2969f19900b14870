"""Trust over real HTTPS against a real ``svc-display serve`` process, on SQLite and PostgreSQL."""
from __future__ import annotations

import json

from svc_display.testing.clock import advance_clock
from tests import REPO
from tests.trust.helpers import assert_error, challenge_lines, fake_alerts_site, wait_for_code

FIVE_MINUTES = 5 * 60 * 1000


def test_pairing_flow_over_https(start_server, tmp_path):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})  # the builtin alerts plugin
    admin = server.key("admin")

    asked = server.request("POST", "/v1/adoption/request", json={"identifier": "hallway-tablet", "role": "viewer"})
    assert asked.status_code == 200, asked.text
    assert set(asked.json()) == {"expires_at_ms", "identifier", "role"}
    code = wait_for_code(server, "hallway-tablet")
    (line,) = challenge_lines(server, "hallway-tablet")
    assert "viewer" in line and code in line
    assert code not in asked.text

    # the security alert shows identifier and role, never the code
    alerts = server.get("/v1/alerts", key=admin)
    assert alerts.status_code == 200
    (alert,) = alerts.json()["items"]
    assert alert["icon"] == "shield" and alert["source"] == "adoption"
    assert "hallway-tablet" in alert["title"] + alert["body"] and "viewer" in alert["title"] + alert["body"]
    assert code not in alerts.text and code.replace("-", "") not in alerts.text

    wrong = server.request("POST", "/v1/adoption/confirm",
                           json={"identifier": "hallway-tablet", "challenge_code": "0000-000Z"})
    assert_error(wrong, 401, "invalid_challenge")
    granted = server.request("POST", "/v1/adoption/confirm",
                             json={"identifier": "hallway-tablet", "challenge_code": code.replace("-", "").lower()})
    assert granted.status_code == 200, granted.text
    key = granted.json()["api_key"]
    assert key.startswith("svc_") and granted.json()["permissions"] == ["telemetry.read"]
    assert server.get("/v1/adoption/session", key=key).json() == {
        "identifier": "hallway-tablet", "role": "viewer", "permissions": ["telemetry.read"]}
    alerts = server.get("/v1/alerts", key=admin).json()["items"]
    assert alerts[0]["dismissed_at"] is not None

    # the listing masks the key; re-adopting rotates it
    listed = server.get("/v1/adoption/clients", key=admin)
    assert key not in listed.text and "hallway-tablet" in listed.text
    server.request("POST", "/v1/adoption/request", json={"identifier": "hallway-tablet", "role": "operator"})
    second = wait_for_code(server, "hallway-tablet", count=2)
    rotated = server.request("POST", "/v1/adoption/confirm",
                             json={"identifier": "hallway-tablet", "challenge_code": second})
    assert rotated.status_code == 200
    assert_error(server.get("/v1/adoption/session", key=key), 401, "unauthorized")
    assert server.get("/v1/adoption/session", key=rotated.json()["api_key"]).json()["role"] == "operator"

    # revoke: 401 at once, then 404
    client_id = [c for c in server.get("/v1/adoption/clients", key=admin).json()["items"]
                 if c["identifier"] == "hallway-tablet"][0]["id"]
    assert server.request("DELETE", f"/v1/adoption/clients/{client_id}", key=admin).status_code == 204
    assert_error(server.get("/v1/adoption/session", key=rotated.json()["api_key"]), 401, "unauthorized")
    assert_error(server.request("DELETE", f"/v1/adoption/clients/{client_id}", key=admin), 404, "not_found")

    # instant admin grant, and 403 for any other key
    instant = server.request("POST", "/v1/adoption/request", key=admin, json={"identifier": "ops-box"})
    assert instant.status_code == 200 and set(instant.json()) == {"api_key", "identifier", "role", "permissions"}
    assert instant.json()["role"] == "operator"
    assert_error(server.request("POST", "/v1/adoption/request", key=instant.json()["api_key"],
                                json={"identifier": "sneaky", "role": "admin"}), 403, "forbidden")
    assert not challenge_lines(server, "ops-box") and not challenge_lines(server, "sneaky")
    # the code was written to the console exactly once per request, and nowhere else in the log
    assert server.log.count(code) == 1


def test_expiry_voiding_and_bad_input_over_https(start_server, env):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    server.request("POST", "/v1/adoption/request", json={"identifier": "late"})
    code = wait_for_code(server, "late")
    advance_clock(env, FIVE_MINUTES + 1)
    assert_error(server.request("POST", "/v1/adoption/confirm", json={"identifier": "late", "challenge_code": code}),
                 401, "invalid_challenge")

    server.request("POST", "/v1/adoption/request", json={"identifier": "guesser"})
    code = wait_for_code(server, "guesser")
    wrong = ("1" if code[0] != "1" else "2") + code[1:]
    for _ in range(5):
        assert_error(server.request("POST", "/v1/adoption/confirm",
                                    json={"identifier": "guesser", "challenge_code": wrong}), 401, "invalid_challenge")
    assert_error(server.request("POST", "/v1/adoption/confirm", json={"identifier": "guesser", "challenge_code": code}),
                 401, "invalid_challenge")

    for body in [{"identifier": "x", "role": "superuser"}, {"identifier": "x" * 129}, {"identifier": 12},
                 {"role": "viewer"}, {"identifier": "x", "role": ["admin"]}]:
        assert_error(server.request("POST", "/v1/adoption/request", json=body), 400, "validation_failed")
    for body in [{"identifier": "x", "challenge_code": 1234}, {"identifier": "x"}, {"challenge_code": "ABCD-EFGH"}]:
        assert_error(server.request("POST", "/v1/adoption/confirm", json=body), 400, "validation_failed")
    assert_error(server.request("POST", "/v1/adoption/confirm", json={"identifier": "never", "challenge_code": "ABCDEFGH"}),
                 401, "invalid_challenge")
    assert_error(server.request("POST", "/v1/adoption/request", data=b"{oops", headers={"Content-Type": "application/json"}),
                 400, "invalid_json")
    listed = server.get("/v1/adoption/clients", key=server.key("admin", "checker")).json()["items"]
    assert [c["identifier"] for c in listed] == ["checker"]
    assert not challenge_lines(server, "x")


def test_rate_limit_and_missing_instance_id_over_https(start_server, env):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "2"})
    admin = server.key("admin")
    for i in range(2):
        assert server.request("POST", "/v1/adoption/request", json={"identifier": f"rl-{i}"}).status_code == 200
    limited = server.request("POST", "/v1/adoption/request", json={"identifier": "rl-2"})
    assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert server.request("POST", "/v1/adoption/request", key=admin, json={"identifier": "rl-admin"}).status_code == 200
    advance_clock(env, 61_000)
    assert server.request("POST", "/v1/adoption/request", json={"identifier": "rl-3"}).status_code == 200

    (server.data_dir / "svc_instance.id").unlink()
    assert_error(server.request("POST", "/v1/adoption/request", json={"identifier": "no-id"}), 503,
                 "adoption_unavailable")
    assert_error(server.request("POST", "/v1/adoption/request", key=admin, json={"identifier": "no-id"}), 503,
                 "adoption_unavailable")


def test_cors_over_https(start_server):
    seeded = "https://controller.example.com:8443"
    server = start_server({"SVC_DISPLAY_HTTP_CORS_ORIGINS": seeded, "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    admin = server.key("admin")
    preflight = server.request("OPTIONS", "/v1/adoption/clients",
                               headers={"Origin": seeded, "Access-Control-Request-Method": "GET",
                                        "Access-Control-Request-Headers": "authorization"})
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == seeded
    assert preflight.headers["Access-Control-Allow-Methods"] == "GET,POST,PATCH,PUT,DELETE,OPTIONS"
    assert preflight.headers["Access-Control-Allow-Headers"] == "Content-Type, Authorization"
    denied = server.request("OPTIONS", "/v1/adoption/clients",
                            headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "GET"})
    assert "Access-Control-Allow-Origin" not in denied.headers
    unauthorized = server.get("/v1/adoption/clients", headers={"Origin": seeded})
    assert unauthorized.status_code == 401 and unauthorized.headers["Access-Control-Allow-Origin"] == seeded

    browser = "http://localhost:5173"
    for path in ("/v1/adoption/request", "/v1/adoption/confirm"):
        pre = server.request("OPTIONS", path, headers={"Origin": browser, "Access-Control-Request-Method": "POST"})
        assert pre.status_code == 204 and pre.headers["Access-Control-Allow-Origin"] == browser
    public = server.request("OPTIONS", "/v1/adoption/request",
                            headers={"Origin": "http://1.1.1.1", "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in public.headers
    assert "Access-Control-Allow-Origin" not in server.get("/v1/adoption/session", key=admin,
                                                           headers={"Origin": browser}).headers
    server.request("POST", "/v1/adoption/request", json={"identifier": "spa"}, headers={"Origin": browser})
    code = wait_for_code(server, "spa")
    granted = server.request("POST", "/v1/adoption/confirm", json={"identifier": "spa", "challenge_code": code},
                             headers={"Origin": browser})
    assert granted.status_code == 200 and granted.headers["Access-Control-Allow-Origin"] == browser
    after = server.get("/v1/adoption/session", key=granted.json()["api_key"], headers={"Origin": browser})
    assert after.headers["Access-Control-Allow-Origin"] == browser

    # an admin grant stores the Referer's origin when Origin is absent
    other = "http://192.168.50.7:5199"
    assert "Access-Control-Allow-Origin" not in server.get("/v1/health", headers={"Origin": other}).headers
    grant = server.request("POST", "/v1/adoption/request", key=admin, json={"identifier": "via-referer"},
                           headers={"Referer": other + "/controller/adopt?x=1"})
    assert grant.status_code == 200
    assert server.get("/v1/health", headers={"Origin": other}).headers["Access-Control-Allow-Origin"] == other


def test_users_and_sessions_over_https(start_server, env):
    server = start_server()
    created = server.cli("users", "create", "--username", "Ada", "--role", "operator", input="a long passphrase\n")
    assert created.returncode == 0, created.stderr
    user = json.loads(created.stdout)
    assert user["username"] == "ada" and user["role"] == "operator" and "password" not in created.stdout
    assert "a long passphrase" not in server.log
    duplicate = server.cli("users", "create", "--username", "ada", input="another passphrase\n")
    assert duplicate.returncode == 2
    weak = server.cli("users", "create", "--username", "bob", input="short\n")
    assert weak.returncode == 2 and "at least 8" in weak.stderr

    login = server.request("POST", "/v1/auth/login", json={"username": "ada", "password": "a long passphrase"})
    assert login.status_code == 200, login.text
    token = login.json()["session_token"]
    assert server.get("/v1/adoption/session", key=token).json()["identifier"] == "ada"
    assert_error(server.request("POST", "/v1/auth/login", json={"username": "ada", "password": "nope nope"}), 401,
                 "invalid_credentials")

    second = server.request("POST", "/v1/auth/login",
                            json={"username": "ada", "password": "a long passphrase"}).json()["session_token"]
    changed = server.request("POST", f"/v1/users/{user['id']}/password", key=token,
                             json={"old_password": "a long passphrase", "new_password": "the next passphrase"})
    assert changed.status_code == 204, changed.text
    assert_error(server.get("/v1/adoption/session", key=second), 401, "unauthorized")
    assert server.get("/v1/adoption/session", key=token).status_code == 200

    assert server.request("POST", "/v1/auth/logout", key=token).status_code == 204
    assert_error(server.get("/v1/adoption/session", key=token), 401, "unauthorized")

    fresh = server.request("POST", "/v1/auth/login",
                           json={"username": "ada", "password": "the next passphrase"}).json()["session_token"]
    advance_clock(env, 12 * 60 * 60 * 1000 + 1)
    assert_error(server.get("/v1/adoption/session", key=fresh), 401, "unauthorized")

    for _ in range(5):
        server.request("POST", "/v1/auth/login", json={"username": "ada", "password": "wrong wrong"})
    limited = server.request("POST", "/v1/auth/login", json={"username": "ada", "password": "the next passphrase"})
    assert_error(limited, 429, "rate_limited")
    assert int(limited.headers["Retry-After"]) >= 1
