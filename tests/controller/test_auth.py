"""Auth on: users from the command line, signed session cookies, CSRF header, per-user scope,
login rate limit (SQLite and PostgreSQL)."""
from __future__ import annotations

import contextlib
import json

import pytest
import requests

from svc_display.testing.databases import throwaway_pg_database
from tests.controllers import CSRF, ControllerProcess, running, start_display

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]

SECRET = "a-session-secret-of-at-least-32-characters!"
PASSWORDS = {"alice": "alice's long passphrase", "bob": "bob's long passphrase"}
LOGIN_LIMIT = 20


@pytest.fixture(scope="module")
def ctl(tmp_path_factory, module_database_url):
    env = {"SVC_CONTROLLER_AUTH_ENABLED": "1", "SVC_CONTROLLER_SESSION_SECRET": SECRET,
           "SVC_CONTROLLER_LOGIN_RATE_PER_MIN": str(LOGIN_LIMIT)}
    if module_database_url:
        env["SVC_CONTROLLER_DATABASE_URL"] = module_database_url
    process = ControllerProcess(tmp_path_factory.mktemp("auth") / "data", env)
    for name, password in PASSWORDS.items():
        out = process.cli("users", "create", "--username", name, input=password + "\n")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["username"] == name
    process.start()
    yield process
    process.stop()


def login(ctl, name: str) -> requests.Session:
    session = requests.Session()
    r = ctl.request("POST", "/bff/v1/auth/login", session=session, headers=CSRF,
                    json={"username": name, "password": PASSWORDS[name]})
    assert r.status_code == 200, r.text
    return session


def test_users_are_made_on_the_command_line_with_a_hashed_password(ctl):
    out = ctl.cli("users", "create", "--username", "alice", input="another long one\n")
    assert out.returncode == 2 and "exists" in out.stderr
    out = ctl.cli("users", "create", "--username", "carol", input="short\n")
    assert out.returncode == 2 and "at least 8" in out.stderr
    if "SVC_CONTROLLER_DATABASE_URL" not in ctl.env:
        raw = b"".join(p.read_bytes() for p in ctl.data_dir.glob("svc_controller.sqlite3*"))
        assert PASSWORDS["alice"].encode() not in raw and b"scrypt$" in raw


def test_without_a_session_every_route_but_health_and_login_is_401(ctl):
    assert ctl.get("/bff/v1/health").status_code == 200
    assert ctl.get("/bff/v1/openapi.json").status_code == 200
    for method, path in (("GET", "/bff/v1/backup-targets"), ("GET", "/bff/v1/auth/session"),
                         ("GET", "/bff/v1/releases/svc-display"), ("GET", "/bff/v1/backup-snapshots/x/download")):
        r = ctl.request(method, path, session=requests.Session())
        assert r.status_code == 401 and r.json()["code"] == "unauthorized", path
    r = ctl.request("GET", "/bff/v1/proxy/v1/health", session=requests.Session(),
                    headers={"X-Svc-Display-Url": "https://127.0.0.1:1"})
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"


def test_login_sets_a_signed_httponly_secure_strict_cookie_and_logout_ends_it(ctl):
    bad = ctl.request("POST", "/bff/v1/auth/login", session=requests.Session(), headers=CSRF,
                      json={"username": "alice", "password": "wrong password"})
    assert bad.status_code == 401 and bad.json()["code"] == "invalid_credentials" and "Set-Cookie" not in bad.headers
    unknown = ctl.request("POST", "/bff/v1/auth/login", session=requests.Session(), headers=CSRF,
                          json={"username": "nobody", "password": "whatever it is"})
    assert unknown.status_code == 401 and unknown.json() == bad.json()
    session = requests.Session()
    r = ctl.request("POST", "/bff/v1/auth/login", session=session, headers=CSRF,
                    json={"username": "Alice", "password": PASSWORDS["alice"]})
    assert r.status_code == 200 and r.json() == {"authEnabled": True, "username": "alice"}
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("svc_controller_session=")
    for attribute in ("HttpOnly", "Secure", "SameSite=Strict", "Path=/"):
        assert attribute.lower() in cookie.lower(), attribute
    assert PASSWORDS["alice"] not in ctl.log
    assert ctl.get("/bff/v1/auth/session", session=session).json() == {"authEnabled": True, "username": "alice"}
    value = session.cookies["svc_controller_session"]
    assert ctl.request("POST", "/bff/v1/auth/logout", session=session, headers=CSRF).status_code == 204
    replay = requests.Session()
    replay.cookies.set("svc_controller_session", value)
    assert ctl.get("/bff/v1/auth/session", session=replay).status_code == 401


def test_a_tampered_or_forged_cookie_is_refused(ctl):
    value = login(ctl, "alice").cookies["svc_controller_session"]
    token, _, signature = value.rpartition(".")
    forged = [token + "." + ("A" if signature[0] != "A" else "B") + signature[1:],
              "x" + value[1:], value + "x", "not-even-signed"]
    from itsdangerous import URLSafeSerializer
    forged.append(URLSafeSerializer("some-other-secret-of-enough-length!!", salt="svc-controller-session")
                  .dumps("whatever"))
    for bad in forged:
        session = requests.Session()
        session.cookies.set("svc_controller_session", bad)
        r = ctl.get("/bff/v1/backup-targets", session=session)
        assert r.status_code == 401 and r.json()["code"] == "unauthorized", bad


def test_state_changing_requests_need_the_csrf_header(ctl):
    session = login(ctl, "alice")
    body = {"displayId": "csrf-check", "baseUrl": "https://127.0.0.1:9"}
    r = ctl.request("PUT", "/bff/v1/backup-targets", session=session, json=body)
    assert r.status_code == 403 and r.json()["code"] == "csrf_required"
    r = ctl.request("PUT", "/bff/v1/backup-targets", session=session, json=body,
                    headers={"X-Requested-With": "XMLHttpRequest"})
    assert r.status_code == 403
    assert all(t["displayId"] != "csrf-check"
               for t in ctl.get("/bff/v1/backup-targets", session=session).json()["items"])
    r = ctl.request("POST", "/bff/v1/proxy/v1/screens", session=session,
                    headers={"X-Svc-Display-Url": "https://127.0.0.1:9"}, json={})
    assert r.status_code == 403 and r.json()["code"] == "csrf_required"
    r = ctl.request("POST", "/bff/v1/auth/login", session=requests.Session(),
                    json={"username": "alice", "password": PASSWORDS["alice"]})
    assert r.status_code == 403 and "Set-Cookie" not in r.headers
    r = ctl.request("PUT", "/bff/v1/backup-targets", session=session, json=body, headers=CSRF)
    assert r.status_code == 201
    # reads need no header
    assert ctl.get("/bff/v1/backup-targets", session=session).status_code == 200


def test_each_user_sees_and_touches_only_their_own_targets(ctl):
    alice, bob = login(ctl, "alice"), login(ctl, "bob")
    mine = ctl.request("PUT", "/bff/v1/backup-targets", session=alice, headers=CSRF,
                       json={"displayId": "shared-name", "baseUrl": "https://127.0.0.1:9"}).json()
    assert all(t["id"] != mine["id"] for t in ctl.get("/bff/v1/backup-targets", session=bob).json()["items"])
    for method, path in (("GET", f"/bff/v1/backup-targets/{mine['id']}"),
                         ("GET", f"/bff/v1/backup-targets/{mine['id']}/snapshots"),
                         ("DELETE", f"/bff/v1/backup-targets/{mine['id']}"),
                         ("POST", f"/bff/v1/backup-targets/{mine['id']}/pull-now"),
                         ("POST", f"/bff/v1/backup-targets/{mine['id']}/upload")):
        r = ctl.request(method, path, session=bob, headers=CSRF, data=b"x" if path.endswith("upload") else None)
        assert r.status_code == 404 and r.json()["code"] == "not_found", path
    # the same displayId in bob's scope is bob's own target, scheduled first in his scope
    theirs = ctl.request("PUT", "/bff/v1/backup-targets", session=bob, headers=CSRF,
                         json={"displayId": "shared-name", "baseUrl": "https://127.0.0.2:9"})
    assert theirs.status_code == 201 and theirs.json()["id"] != mine["id"]
    assert theirs.json()["cronExpr"] == "0 2 * * 0"
    assert ctl.get(f"/bff/v1/backup-targets/{mine['id']}", session=alice).json()["baseUrl"] == "https://127.0.0.1:9"


def test_login_attempts_are_rate_limited_per_address(ctl):
    ctl.advance_clock(61_000)  # a fresh window
    statuses = []
    for _ in range(LOGIN_LIMIT + 1):
        r = ctl.request("POST", "/bff/v1/auth/login", session=requests.Session(), headers=CSRF,
                        json={"username": "bob", "password": "not the password"})
        statuses.append(r.status_code)
    assert statuses[:LOGIN_LIMIT] == [401] * LOGIN_LIMIT
    assert statuses[-1] == 429 and r.json()["code"] == "rate_limited" and int(r.headers["Retry-After"]) > 0
    r = ctl.request("POST", "/bff/v1/auth/login", session=requests.Session(), headers=CSRF,
                    json={"username": "bob", "password": PASSWORDS["bob"]})
    assert r.status_code == 429  # even the right password waits
    ctl.advance_clock(61_000)
    login(ctl, "bob")


def test_auth_off_is_the_global_scope_only_and_leaves_user_targets_alone(tmp_path, module_database_url):
    """Targets made while auth was on stay their user's: with auth off the one global scope
    ``""`` neither lists them nor reaches them by id, and an upsert of the same displayId makes
    one global target (not a second row next to a listed one)."""
    with contextlib.ExitStack() as stack:
        env = {}
        if module_database_url:
            env["SVC_CONTROLLER_DATABASE_URL"] = stack.enter_context(throwaway_pg_database("svc_c_"))
        auth_on = {**env, "SVC_CONTROLLER_AUTH_ENABLED": "1", "SVC_CONTROLLER_SESSION_SECRET": SECRET}
        data = tmp_path / "data"
        on = ControllerProcess(data, auth_on)
        made = on.cli("users", "create", "--username", "alice", input=PASSWORDS["alice"] + "\n")
        assert made.returncode == 0, made.stderr
        stack.callback(on.stop)
        on.start()
        mine = on.request("PUT", "/bff/v1/backup-targets", session=login(on, "alice"), headers=CSRF,
                          json={"displayId": "lobby", "baseUrl": "https://127.0.0.1:9"}).json()
        on.stop()

        off = ControllerProcess(data, env)
        stack.callback(off.stop)
        off.start()
        assert off.get("/bff/v1/backup-targets").json()["items"] == []
        for method, path in (("GET", f"/bff/v1/backup-targets/{mine['id']}"),
                             ("DELETE", f"/bff/v1/backup-targets/{mine['id']}")):
            assert off.request(method, path).status_code == 404, path
        first, again = (off.request("PUT", "/bff/v1/backup-targets",
                                    json={"displayId": "lobby", "baseUrl": b})
                        for b in ("https://127.0.0.2:9", "https://127.0.0.3:9"))
        assert (first.status_code, again.status_code) == (201, 200)
        assert first.json()["id"] == again.json()["id"] != mine["id"]
        assert first.json()["cronExpr"] == "0 2 * * 0"  # the first of its scope
        items = off.get("/bff/v1/backup-targets").json()["items"]
        assert [(t["id"], t["baseUrl"]) for t in items] == [(first.json()["id"], "https://127.0.0.3:9")]
        off.stop()

        back = ControllerProcess(data, auth_on)
        stack.callback(back.stop)
        back.start()
        items = back.get("/bff/v1/backup-targets", session=login(back, "alice")).json()["items"]
        assert [(t["id"], t["baseUrl"]) for t in items] == [(mine["id"], "https://127.0.0.1:9")]


def test_any_signed_in_user_reaches_a_registered_display_by_id_with_the_stored_key(ctl, tmp_path):
    """One organisation (CONTRACT "The fleet"): alice registers a display with its key; bob, who
    never had the key, programs it through the proxy by id; without a session: 401."""
    alice, bob = login(ctl, "alice"), login(ctl, "bob")
    display = start_display(tmp_path / "display")
    with running(display):
        key = display.key("admin")
        r = ctl.request("PUT", "/bff/v1/displays/shared-hall", session=alice, headers=CSRF,
                        json={"name": "Shared hall", "baseUrl": display.url, "apiKey": key})
        assert r.status_code == 201, r.text
        try:
            by_id = {**CSRF, "X-Svc-Display-Id": "shared-hall"}
            r = ctl.request("POST", "/bff/v1/proxy/v1/screens", session=bob, headers=by_id,
                            json={"id": "bobs", "screen_type": "message", "config_json": {"title": "B", "body": "b"}})
            assert r.status_code == 201, r.text
            assert display.get("/v1/screens/bobs", key=key).status_code == 200
            r = ctl.request("GET", "/bff/v1/proxy/v1/screens", session=requests.Session(), headers=by_id)
            assert (r.status_code, r.json()["code"]) == (401, "unauthorized")
            r = ctl.request("DELETE", "/bff/v1/proxy/v1/screens/bobs", session=bob,
                            headers={"X-Svc-Display-Id": "shared-hall"})
            assert (r.status_code, r.json()["code"]) == (403, "csrf_required")
            assert display.get("/v1/screens/bobs", key=key).status_code == 200
        finally:
            ctl.request("DELETE", "/bff/v1/displays/shared-hall", session=alice, headers=CSRF)
