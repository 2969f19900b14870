"""Users, login sessions and password rotation (spec 4.14, 5.10), on SQLite and PostgreSQL."""
from __future__ import annotations

import io

import pytest
from pony import orm

from svc_host.passwords import read_password
from svc_host.passwords import hash_password, verify_password
from builtin_plugins.sessions.routes import FAILURES_PER_ADDRESS, FAILURES_PER_USERNAME
from builtin_plugins.sessions.store import SESSION_LIFETIME_MS, create_user
from svc_host.auth import sha256_hex
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from svc_display.testing.clock import advance_clock
from tests.trust.helpers import assert_error, count

pytestmark = pytest.mark.svc_display_storage

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def cheaper_scrypt(request, monkeypatch):
    """scrypt at n = 2**10 instead of the product's 2**15 (a hash is self-describing, so verifying
    reads the cost from it): these tests log in, fail and change passwords by the dozen (the rate
    limits), and at 0.1 s of CPU a hash they spent about 55 s of the suite's CPU on it. What they
    prove (who may log in, what is refused, counted and rate-limited) does not depend on the cost;
    the product's own cost is checked by ``test_password_hashes_are_salted_scrypt``, which keeps it."""
    if request.node.get_closest_marker("real_scrypt_cost") is None:
        import svc_host.passwords as passwords

        monkeypatch.setattr(passwords, "LOG2_N", 10)
        monkeypatch.setattr(passwords, "_DUMMY", None)  # the unknown-user hash, made again at this cost


def add_user(host, username="ada", role="operator", password=PASSWORD):
    with orm.db_session:
        return create_user(host, username, role, password).id


def login(api, username="ada", password=PASSWORD, **kwargs):
    return api.post("/v1/auth/login", key="", json={"username": username, "password": password}, **kwargs)


@pytest.mark.real_scrypt_cost
def test_password_hashes_are_salted_scrypt():
    one, two = hash_password("secret-password"), hash_password("secret-password")
    assert one != two and one.startswith("scrypt$15$8$1$") and "secret-password" not in one
    assert verify_password("secret-password", one)
    assert not verify_password("secret-passwore", one)
    assert not verify_password("anything", None)
    assert not verify_password("anything", "md5$abc")
    assert not verify_password("anything", "scrypt$x$y")


def test_read_password_takes_the_first_stdin_line():
    assert read_password(io.StringIO("s3cret pass\nrest\n")) == "s3cret pass"
    assert read_password(io.StringIO("no newline")) == "no newline"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_read_password_prompts_twice_on_a_terminal(monkeypatch):
    from svc_host.passwords import PasswordError

    answers = iter(["typed secret", "typed secret", "first try", "second try"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    assert read_password(_Terminal()) == "typed secret"
    with pytest.raises(PasswordError):
        read_password(_Terminal())


def test_login_gives_a_bearer_session_token(api):
    user_id = add_user(api.host, "ada", "power_viewer")
    before = api.host.clock.now_ms()
    answer = login(api)
    assert answer.status_code == 200, answer.text
    body = answer.json
    assert body["session_token"].startswith("svcs_")
    assert before + SESSION_LIFETIME_MS <= body["expires_at_ms"] <= api.host.clock.now_ms() + SESSION_LIFETIME_MS
    assert body["user_id"] == user_id and body["username"] == "ada" and body["role"] == "power_viewer"
    assert "telemetry.read" in body["permissions"]
    session = api.get("/v1/adoption/session", key=body["session_token"])
    assert session.json == {"identifier": "ada", "role": "power_viewer", "permissions": body["permissions"]}
    # the role's permissions apply to the session like to a key
    assert_error(api.get("/v1/adoption/clients", key=body["session_token"]), 403, "forbidden")


def test_usernames_are_case_insensitive(api):
    add_user(api.host, "Grace")
    assert login(api, "GRACE").status_code == 200
    assert login(api, " grace ").status_code == 200


def test_only_a_hash_of_the_session_token_is_stored(api):
    add_user(api.host)
    token = login(api).json["session_token"]
    with orm.db_session:
        (row,) = api.host.db.UserSession.select()[:]
        stored = str(row.to_dict())
        user = str(row.user.to_dict())
    assert row.token_hash == sha256_hex(token)
    assert token not in stored and token[5:] not in stored
    assert PASSWORD not in user


@pytest.mark.parametrize("username,password", [("ada", "wrong password"), ("nobody", PASSWORD),
                                               ("ADA ", "Correct horse battery")])
def test_wrong_credentials_are_401(api, username, password):
    add_user(api.host)
    assert_error(login(api, username, password), 401, "invalid_credentials")
    assert count(api.host, "UserSession") == 0


@pytest.mark.parametrize("body", [{}, {"username": "ada"}, {"password": PASSWORD},
                                  {"username": 1, "password": PASSWORD}, {"username": "ada", "password": None},
                                  {"username": "", "password": PASSWORD}, {"username": "a" * 65, "password": "x"},
                                  {"username": "ada", "password": "x" * 1025},
                                  {"username": "ada", "password": PASSWORD, "remember": True}])
def test_bad_login_bodies_are_400(api, body):
    add_user(api.host)
    assert_error(api.post("/v1/auth/login", key="", json=body), 400, "validation_failed")
    assert count(api.host, "UserSession") == 0


def test_session_expires_after_its_lifetime(api, env):
    add_user(api.host)
    token = login(api).json["session_token"]
    advance_clock(env, SESSION_LIFETIME_MS - 60_000)
    assert api.get("/v1/adoption/session", key=token).status_code == 200
    advance_clock(env, 60_001)
    assert_error(api.get("/v1/adoption/session", key=token), 401, "unauthorized")
    assert count(api.host, "UserSession") == 0  # the expired row is dropped


def test_logout_ends_only_the_current_session(api):
    add_user(api.host)
    first = login(api).json["session_token"]
    second = login(api).json["session_token"]
    assert api.post("/v1/auth/logout", key=first).status_code == 204
    assert_error(api.get("/v1/adoption/session", key=first), 401, "unauthorized")
    assert api.get("/v1/adoption/session", key=second).status_code == 200
    assert_error(api.post("/v1/auth/logout", key=first), 401, "unauthorized")
    assert_error(api.post("/v1/auth/logout", key=""), 401, "unauthorized")


def test_logout_with_an_api_key_is_409_and_the_key_keeps_working(api):
    assert_error(api.post("/v1/auth/logout"), 409, "not_a_session")
    assert api.get("/v1/adoption/session").status_code == 200


def test_user_changes_own_password_with_the_old_one_and_other_sessions_end(api):
    user_id = add_user(api.host)
    current = login(api).json["session_token"]
    other = login(api).json["session_token"]
    answer = api.post(f"/v1/users/{user_id}/password", key=current,
                      json={"old_password": PASSWORD, "new_password": "a brand new secret"})
    assert answer.status_code == 204, answer.text
    assert api.get("/v1/adoption/session", key=current).status_code == 200
    assert_error(api.get("/v1/adoption/session", key=other), 401, "unauthorized")
    assert_error(login(api), 401, "invalid_credentials")
    assert login(api, password="a brand new secret").status_code == 200


def test_own_password_change_needs_the_right_old_password(api):
    user_id = add_user(api.host)
    token = login(api).json["session_token"]
    missing = api.post(f"/v1/users/{user_id}/password", key=token, json={"new_password": "another secret"})
    assert_error(missing, 400, "validation_failed")
    wrong = api.post(f"/v1/users/{user_id}/password", key=token,
                     json={"old_password": "not it at all", "new_password": "another secret"})
    assert_error(wrong, 403, "invalid_credentials")
    assert login(api).status_code == 200


def test_admin_rotates_any_password_and_ends_every_session_of_that_user(api):
    user_id = add_user(api.host, "bob", "viewer")
    token = login(api, "bob").json["session_token"]
    answer = api.post(f"/v1/users/{user_id}/password", json={"new_password": "set by the admin"})
    assert answer.status_code == 204, answer.text
    assert_error(api.get("/v1/adoption/session", key=token), 401, "unauthorized")
    assert login(api, "bob", "set by the admin").status_code == 200
    assert_error(api.post("/v1/users/" + "0" * 32 + "/password", json={"new_password": "whatever123"}), 404,
                 "not_found")
    assert_error(api.post("/v1/users/bad id/password", json={"new_password": "whatever123"}), 404, "not_found")


def test_an_admin_user_session_holds_users_admin(api):
    add_user(api.host, "root", "admin")
    victim = add_user(api.host, "eve", "viewer")
    token = login(api, "root").json["session_token"]
    assert api.post(f"/v1/users/{victim}/password", key=token,
                    json={"new_password": "rotated by root"}).status_code == 204


def test_others_cannot_change_a_password(api):
    victim = add_user(api.host, "carol", "operator")
    add_user(api.host, "mallory", "operator")
    mallory = login(api, "mallory").json["session_token"]
    body = {"old_password": PASSWORD, "new_password": "taken over now"}
    assert_error(api.post(f"/v1/users/{victim}/password", key=mallory, json=body), 403, "forbidden")
    operator_key = issue_key(api.host, "operator")
    assert_error(api.post(f"/v1/users/{victim}/password", key=operator_key, json=body), 403, "forbidden")
    assert_error(api.post(f"/v1/users/{victim}/password", key="", json=body), 401, "unauthorized")
    assert login(api, "carol").status_code == 200


@pytest.mark.parametrize("new_password", ["short", "", "x" * 1025, 12345678, None])
def test_weak_or_odd_new_passwords_are_400(api, new_password):
    user_id = add_user(api.host)
    answer = api.post(f"/v1/users/{user_id}/password", json={"new_password": new_password})
    body = assert_error(answer, 400, "validation_failed")
    assert "new_password" in body["details"]
    assert login(api).status_code == 200


def test_login_failures_are_rate_limited_per_username(api, env):
    add_user(api.host)
    for _ in range(FAILURES_PER_USERNAME):
        assert_error(login(api, password="wrong password"), 401, "invalid_credentials")
    limited = login(api)  # even the right password waits
    assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["retry-after"]) <= 300
    # from another address the username is still locked
    assert_error(login(api, remote_addr="10.9.9.9"), 429, "rate_limited")
    advance_clock(env, 5 * 60 * 1000 + 1)
    assert login(api).status_code == 200


def test_login_failures_are_rate_limited_per_address(api, env):
    for i in range(FAILURES_PER_ADDRESS):
        assert_error(login(api, f"user{i}", "wrong password", remote_addr="10.1.1.1"), 401, "invalid_credentials")
    add_user(api.host, "fresh")
    limited = login(api, "fresh", remote_addr="10.1.1.1")
    assert_error(limited, 429, "rate_limited")
    assert "retry-after" in limited.headers
    assert login(api, "fresh", remote_addr="10.1.1.2").status_code == 200


def test_a_successful_login_clears_the_username_failures(api):
    add_user(api.host)
    for _ in range(FAILURES_PER_USERNAME - 1):
        login(api, password="wrong password")
    assert login(api).status_code == 200
    for _ in range(FAILURES_PER_USERNAME - 1):
        assert_error(login(api, password="wrong password"), 401, "invalid_credentials")
    assert login(api).status_code == 200


def test_wrong_old_passwords_count_as_login_failures(api):
    user_id = add_user(api.host)
    token = login(api).json["session_token"]
    body = {"old_password": "guessing wrong", "new_password": "another secret"}
    for _ in range(FAILURES_PER_USERNAME):
        assert_error(api.post(f"/v1/users/{user_id}/password", key=token, json=body), 403, "invalid_credentials")
    assert_error(api.post(f"/v1/users/{user_id}/password", key=token, json=body), 429, "rate_limited")


def test_users_create_command_validates(make_host):
    host = make_host()
    with orm.db_session:
        create_user(host, "dup", "viewer", PASSWORD)
    from builtin_plugins.sessions.store import UserError

    for username, role in [("dup", "viewer"), ("bad name!", "viewer"), ("", "viewer"), ("ok", "root")]:
        with pytest.raises(UserError), orm.db_session:
            create_user(host, username, role, PASSWORD)
    assert count(host, "User") == 1


def test_session_tokens_and_api_keys_do_not_cross(api):
    add_user(api.host)
    token = login(api).json["session_token"]
    assert_error(api.get("/v1/adoption/session", key="svc_" + token[5:]), 401, "unauthorized")
    assert_error(api.get("/v1/adoption/session", key="svcs_" + api.key[4:]), 401, "unauthorized")
    assert Api(api.host).get("/v1/adoption/session", key=token).status_code == 200
