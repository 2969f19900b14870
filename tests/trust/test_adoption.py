"""Adoption in process (spec 4.1, 5.3-5.7, CONTRACT "Adoption challenge"), on SQLite and PostgreSQL."""
from __future__ import annotations

import json
import re

import pytest
from pony import orm

from builtin_plugins.adoption.challenges import ALPHABET, CHALLENGE_TTL_MS, new_code, normalize_code
from svc_host.auth import sha256_hex
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from svc_display.testing.clock import advance_clock
from tests.trust.helpers import (
    CODE,
    CROCKFORD,
    MemoryAlertsPlugin,
    assert_error,
    challenge_for,
    count,
    pending,
    wrong_code,
)
from hookspecs.services import ADOPTION, ALERTS, CORS, DISPLAY_MODE, SETTINGS

ALL_ROLES = ["admin", "operator", "power_viewer", "viewer"]


@pytest.fixture
def trust(make_host):
    """A host with the in-memory alerts plugin, no adoption rate limit, and an admin client."""
    # The in-memory alerts contract stands in for the builtin alerts plugin here, so the tests can
    # read every raised alert; tests/trust/test_black_box.py runs the real one.
    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0", "SVC_DISPLAY_DISABLE_PLUGINS": "alerts"},
                     plugins=[("memory-alerts", MemoryAlertsPlugin())])
    return Api(host, issue_key(host, "admin", "test-admin"))


def request(api, identifier="kiosk-laptop", role=None, **kwargs):
    body = {"identifier": identifier}
    if role is not None:
        body["role"] = role
    return api.post("/v1/adoption/request", key="", json=body, **kwargs)


def confirm(api, identifier, code, **kwargs):
    return api.post("/v1/adoption/confirm", key="", json={"identifier": identifier, "challenge_code": code}, **kwargs)


def test_challenge_codes_are_crockford_and_normalised():
    for _ in range(200):
        code = new_code()
        assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", code)
    assert set(ALPHABET) == CROCKFORD and len(ALPHABET) == 32
    assert normalize_code("abcd-efgh") == "ABCDEFGH"
    assert normalize_code("ABCDEFGH") == "ABCDEFGH"
    assert normalize_code(" ab-cd efgh ") == "ABCDEFGH"
    assert normalize_code("oIl0-0000") == "01100000"  # Crockford reading aliases
    assert normalize_code("ABCD-EFG") is None
    assert normalize_code("ABCD-EFGHJ") is None
    assert normalize_code("ABCD-EFGU") is None  # U is not in the alphabet


def test_public_request_answers_without_the_challenge_and_confirm_issues_a_key(trust, env, capsys):
    host = trust.host
    before = host.clock.now_ms()
    answer = request(trust, "kiosk-laptop", "power_viewer")
    assert answer.status_code == 200, answer.text
    assert set(answer.json) == {"expires_at_ms", "identifier", "role"}
    assert answer.json["identifier"] == "kiosk-laptop" and answer.json["role"] == "power_viewer"
    assert before + CHALLENGE_TTL_MS <= answer.json["expires_at_ms"] <= host.clock.now_ms() + CHALLENGE_TTL_MS

    code = challenge_for(host, "kiosk-laptop")
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", code)
    assert code not in answer.text and code.replace("-", "") not in answer.text

    # headless: exactly one stderr line naming identifier, role and code
    lines = [line for line in capsys.readouterr().err.splitlines() if "adoption challenge" in line]
    assert len(lines) == 1
    assert "kiosk-laptop" in lines[0] and "power_viewer" in lines[0] and code in lines[0]

    granted = confirm(trust, "kiosk-laptop", code)
    assert granted.status_code == 200, granted.text
    assert set(granted.json) == {"api_key", "identifier", "role", "permissions"}
    assert granted.json["api_key"].startswith("svc_")
    assert granted.json["role"] == "power_viewer"
    assert granted.json["permissions"] == ["content.catalog_read", "interests.read", "navigation.control",
                                           "telemetry.read"]
    assert code not in granted.text and code.replace("-", "") not in granted.text

    session = trust.get("/v1/adoption/session", key=granted.json["api_key"])
    assert session.json == {"identifier": "kiosk-laptop", "role": "power_viewer",
                            "permissions": granted.json["permissions"]}
    assert pending(host, "kiosk-laptop") is None
    # the same code cannot be used twice
    assert_error(confirm(trust, "kiosk-laptop", code), 401, "invalid_challenge")


def test_console_line_shows_the_identifier_as_given(trust, capsys):
    identifier = 'Küche "oben" #2'
    capsys.readouterr()
    assert request(trust, identifier, "viewer").status_code == 200
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "adoption challenge" in line]
    assert identifier in line and "viewer" in line and challenge_for(trust.host, identifier) in line


def test_key_is_the_documented_hmac_and_only_its_sha256_is_stored(trust):
    from builtin_plugins.clients.keys import derive_api_key

    host = trust.host
    request(trust, "hmac-check", "viewer")
    code = challenge_for(host, "hmac-check")
    key = confirm(trust, "hmac-check", code).json["api_key"]
    assert key == derive_api_key(host.instance_id, code, "hmac-check")
    with orm.db_session:
        row = host.db.ApiClient.get(identifier="hmac-check")
        stored = [str(v) for v in row.to_dict().values()]
    assert row.key_hash == sha256_hex(key)
    assert key not in stored and key[4:] not in stored
    assert not any(code in value or code.replace("-", "") in value for value in stored)


@pytest.mark.parametrize("transform", [
    lambda c: c,
    lambda c: c.replace("-", ""),
    lambda c: c.lower(),
    lambda c: c.replace("-", "").lower(),
])
def test_confirm_accepts_the_code_with_or_without_hyphen_in_any_case(trust, transform):
    request(trust, "case-check")
    code = challenge_for(trust.host, "case-check")
    answer = confirm(trust, "case-check", transform(code))
    assert answer.status_code == 200, answer.text
    assert answer.json["role"] == "operator"  # the default role


def test_default_role_is_operator(trust):
    answer = request(trust, "default-role")
    assert answer.json["role"] == "operator"
    assert pending(trust.host, "default-role")["role"] == "operator"


def test_wrong_code_is_401_and_the_fifth_wrong_attempt_voids_the_challenge(trust):
    host = trust.host
    request(trust, "brute")
    code = challenge_for(host, "brute")
    for attempt in range(4):
        assert_error(confirm(trust, "brute", wrong_code(code)), 401, "invalid_challenge")
        assert pending(host, "brute") is not None
    assert_error(confirm(trust, "brute", "not-a-code"), 401, "invalid_challenge")  # fifth wrong attempt
    assert pending(host, "brute") is None
    assert_error(confirm(trust, "brute", code), 401, "invalid_challenge")
    assert count(host, "ApiClient") == 1  # only the test admin


def test_four_wrong_attempts_then_the_right_code_still_adopts(trust):
    request(trust, "clumsy")
    code = challenge_for(trust.host, "clumsy")
    for _ in range(4):
        assert_error(confirm(trust, "clumsy", wrong_code(code)), 401, "invalid_challenge")
    assert confirm(trust, "clumsy", code).status_code == 200


def test_challenge_expires_after_five_minutes(trust, env):
    host = trust.host
    request(trust, "slow")
    code = challenge_for(host, "slow")
    advance_clock(env, CHALLENGE_TTL_MS - 2_000)
    assert pending(host, "slow") is not None
    advance_clock(env, 2_001)
    assert_error(confirm(trust, "slow", code), 401, "invalid_challenge")
    assert pending(host, "slow") is None
    assert count(host, "AdoptionChallenge") == 0


def test_confirm_just_before_expiry_succeeds(trust, env):
    request(trust, "just-in-time")
    code = challenge_for(trust.host, "just-in-time")
    advance_clock(env, CHALLENGE_TTL_MS - 1_000)
    assert confirm(trust, "just-in-time", code).status_code == 200


def test_a_new_request_replaces_the_pending_challenge(trust):
    host = trust.host
    request(trust, "twice", "viewer")
    first = challenge_for(host, "twice")
    request(trust, "twice", "operator")
    second = challenge_for(host, "twice")
    assert count(host, "AdoptionChallenge") == 1
    if first != second:
        assert_error(confirm(trust, "twice", first), 401, "invalid_challenge")
    answer = confirm(trust, "twice", second)
    assert answer.status_code == 200 and answer.json["role"] == "operator"
    alerts = host.services[ALERTS]
    assert len(alerts.by_source("adoption")) == 2 and alerts.active() == []


def test_readopting_an_identifier_rotates_its_key(trust):
    request(trust, "rotating", "viewer")
    old = confirm(trust, "rotating", challenge_for(trust.host, "rotating")).json["api_key"]
    assert trust.get("/v1/adoption/session", key=old).status_code == 200
    request(trust, "rotating", "operator")
    new = confirm(trust, "rotating", challenge_for(trust.host, "rotating")).json["api_key"]
    assert new != old
    assert_error(trust.get("/v1/adoption/session", key=old), 401, "unauthorized")
    assert trust.get("/v1/adoption/session", key=new).json["role"] == "operator"
    with orm.db_session:
        assert trust.host.db.ApiClient.select(lambda c: c.identifier == "rotating").count() == 1


def test_a_pending_request_does_not_touch_the_existing_key(trust):
    request(trust, "stable")
    key = confirm(trust, "stable", challenge_for(trust.host, "stable")).json["api_key"]
    request(trust, "stable", "admin")
    assert trust.get("/v1/adoption/session", key=key).json["role"] == "operator"


def test_admin_key_grants_at_once_without_a_challenge(trust, capsys):
    capsys.readouterr()
    answer = trust.post("/v1/adoption/request", json={"identifier": "instant", "role": "viewer"})
    assert answer.status_code == 200, answer.text
    assert set(answer.json) == {"api_key", "identifier", "role", "permissions"}
    assert answer.json["permissions"] == ["telemetry.read"]
    assert trust.get("/v1/adoption/session", key=answer.json["api_key"]).json["identifier"] == "instant"
    assert count(trust.host, "AdoptionChallenge") == 0
    assert trust.host.services[ALERTS].by_source("adoption") == []
    assert "adoption challenge" not in capsys.readouterr().err


def test_admin_grant_moots_a_pending_challenge(trust):
    request(trust, "moot")
    code = challenge_for(trust.host, "moot")
    assert trust.post("/v1/adoption/request", json={"identifier": "moot"}).status_code == 200
    assert pending(trust.host, "moot") is None
    assert trust.host.services[ALERTS].active() == []
    assert_error(confirm(trust, "moot", code), 401, "invalid_challenge")


@pytest.mark.parametrize("role", ["operator", "power_viewer", "viewer"])
def test_non_admin_key_on_request_is_403(trust, role):
    key = issue_key(trust.host, role)
    assert_error(trust.post("/v1/adoption/request", key=key, json={"identifier": "x"}), 403, "forbidden")
    assert count(trust.host, "AdoptionChallenge") == 0


def test_invalid_bearer_on_request_is_401(trust):
    assert_error(trust.post("/v1/adoption/request", key="svc_not-a-key", json={"identifier": "x"}), 401,
                 "unauthorized")
    assert count(trust.host, "AdoptionChallenge") == 0


def _set_setting(host, key, value):
    with orm.db_session:
        host.services[SETTINGS].set(key, value)


def test_role_outside_adoption_allowed_roles_is_403(trust):
    host = trust.host
    _set_setting(host, "adoption_allowed_roles", ["viewer"])
    assert_error(request(trust, "narrow", "admin"), 403, "adoption_role_not_allowed")
    assert_error(request(trust, "narrow"), 403, "adoption_role_not_allowed")  # default operator
    assert request(trust, "narrow", "viewer").status_code == 200
    # admin grants honour the setting too; /v1/adoption/clients does not
    assert_error(trust.post("/v1/adoption/request", json={"identifier": "n2", "role": "operator"}), 403,
                 "adoption_role_not_allowed")
    assert trust.post("/v1/adoption/clients", json={"identifier": "n2", "role": "operator"}).status_code == 201


def test_empty_allowed_roles_blocks_public_adoption_naming_the_switch(trust):
    """New requests off (no role allowed): a 403 of its own that names the switch, not the role."""
    _set_setting(trust.host, "adoption_allowed_roles", [])
    for role in ALL_ROLES:
        body = assert_error(request(trust, "blocked", role), 403, "adoption_requests_off")
        assert "adoption_allow_new_requests" in body["message"]
        assert body["details"] == {"setting": "adoption_allow_new_requests"}
    assert count(trust.host, "AdoptionChallenge") == 0


def test_legacy_allow_new_requests_false_blocks_and_true_allows(trust):
    _set_setting(trust.host, "adoption_allow_new_requests", False)
    assert_error(request(trust, "legacy", "viewer"), 403, "adoption_requests_off")
    _set_setting(trust.host, "adoption_allow_new_requests", True)
    assert request(trust, "legacy", "admin").status_code == 200


def test_a_corrupt_allowed_roles_setting_blocks_public_adoption(trust):
    _set_setting(trust.host, "adoption_allowed_roles", "admin")
    assert_error(request(trust, "corrupt", "admin"), 403, "adoption_requests_off")
    _set_setting(trust.host, "adoption_allowed_roles", ["viewer", "wizard", 3])
    assert request(trust, "corrupt", "viewer").status_code == 200
    assert_error(request(trust, "corrupt", "operator"), 403, "adoption_role_not_allowed")


def test_narrowing_roles_before_confirm_refuses_and_voids(trust):
    request(trust, "late", "admin")
    code = challenge_for(trust.host, "late")
    _set_setting(trust.host, "adoption_allowed_roles", ["viewer"])
    assert_error(confirm(trust, "late", code), 403, "adoption_role_not_allowed")
    assert pending(trust.host, "late") is None
    assert count(trust.host, "ApiClient") == 1


def test_missing_instance_id_is_503(trust):
    host = trust.host
    (host.settings.data_dir / "svc_instance.id").unlink()
    assert_error(request(trust, "no-secret"), 503, "adoption_unavailable")
    assert_error(confirm(trust, "no-secret", "ABCD-EFGH"), 503, "adoption_unavailable")
    assert_error(trust.post("/v1/adoption/request", json={"identifier": "no-secret"}), 503, "adoption_unavailable")
    assert_error(trust.post("/v1/adoption/clients", json={"identifier": "no-secret"}), 503, "adoption_unavailable")
    assert count(host, "AdoptionChallenge") == 0


def test_unreadable_instance_id_is_503(trust):
    path = trust.host.settings.data_dir / "svc_instance.id"
    path.unlink()
    path.mkdir()  # reading a directory fails like an unreadable file
    assert_error(request(trust, "no-secret"), 503, "adoption_unavailable")


BAD_REQUESTS = [
    {},
    {"role": "viewer"},
    {"identifier": ""},
    {"identifier": "   "},
    {"identifier": "x" * 129},
    {"identifier": 42},
    {"identifier": None},
    {"identifier": ["a"]},
    {"identifier": {"a": 1}},
    {"identifier": "tab\there"},
    {"identifier": "line\nbreak"},
    {"identifier": "sep\u2028arator"},
    {"identifier": "lone\ud800surrogate"},
    {"identifier": "ok", "role": "root"},
    {"identifier": "ok", "role": "Admin"},
    {"identifier": "ok", "role": 1},
    {"identifier": "ok", "role": None},
    {"identifier": "ok", "extra": True},
]


@pytest.mark.parametrize("body", BAD_REQUESTS)
def test_bad_request_bodies_are_400_and_store_nothing(trust, body):
    answer = trust.post("/v1/adoption/request", key="", body=json.dumps(body),  # ASCII escapes: lone surrogates
                        headers={"Content-Type": "application/json"})
    assert_error(answer, 400, "validation_failed")
    assert count(trust.host, "AdoptionChallenge") == 0
    assert trust.host.services[ALERTS].alerts == {}


def test_identifier_of_128_characters_is_accepted_and_trimmed(trust):
    long = "é" * 128
    assert request(trust, long).status_code == 200
    answer = request(trust, f"  {long[:10]}  ")
    assert answer.json["identifier"] == long[:10]


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"\"text\"", b"\xff\xfe", b"{\"identifier\": "])
def test_malformed_json_is_400_invalid_json(trust, raw):
    answer = trust.post("/v1/adoption/request", key="", body=raw, headers={"Content-Type": "application/json"})
    assert_error(answer, 400, "invalid_json")


BAD_CONFIRMS = [
    {},
    {"identifier": "x"},
    {"challenge_code": "ABCD-EFGH"},
    {"identifier": "x", "challenge_code": 12345678},
    {"identifier": "x", "challenge_code": None},
    {"identifier": "x", "challenge_code": ""},
    {"identifier": "x", "challenge_code": "A" * 33},
    {"identifier": 7, "challenge_code": "ABCD-EFGH"},
    {"identifier": "x" * 129, "challenge_code": "ABCD-EFGH"},
]


@pytest.mark.parametrize("body", BAD_CONFIRMS)
def test_bad_confirm_bodies_are_400_and_store_nothing(trust, body):
    request(trust, "x")
    before = pending(trust.host, "x")
    assert_error(trust.post("/v1/adoption/confirm", key="", json=body), 400, "validation_failed")
    with orm.db_session:
        assert trust.host.db.AdoptionChallenge["x"].wrong_attempts == 0
    assert pending(trust.host, "x") == before
    assert count(trust.host, "ApiClient") == 1


def test_confirm_without_a_pending_challenge_is_401_and_stores_nothing(trust):
    assert_error(confirm(trust, "nobody", "ABCD-EFGH"), 401, "invalid_challenge")
    assert count(trust.host, "ApiClient") == 1
    assert count(trust.host, "AdoptionChallenge") == 0
    assert trust.host.services[CORS].list() == []


def test_a_challenge_belongs_to_its_identifier(trust):
    request(trust, "alice")
    request(trust, "bob")
    alice = challenge_for(trust.host, "alice")
    bob = challenge_for(trust.host, "bob")
    if alice != bob:
        assert_error(confirm(trust, "bob", alice), 401, "invalid_challenge")
    assert confirm(trust, "alice", alice).status_code == 200


# ---- the security alert -------------------------------------------------------------------

def test_request_raises_a_shield_alert_without_the_challenge(trust):
    host = trust.host
    request(trust, "alerting-laptop", "admin")
    code = challenge_for(host, "alerting-laptop")
    (alert,) = host.services[ALERTS].by_source("adoption")
    assert alert["icon"] == "shield"
    assert alert["source"] == "adoption"
    assert alert["expires_at"] == pending(host, "alerting-laptop")["expires_at_ms"]
    text = alert["title"] + " " + alert["body"]
    assert "alerting-laptop" in text and "admin" in text
    assert code not in text and code.replace("-", "") not in text
    assert alert["display_only"] == {"challenge": code, "role": "admin", "identifier": "alerting-laptop",
                                     "drawn_by": "adoption"}  # the adoption card is its picture
    # GET /v1/alerts never shows it
    listed = trust.get("/v1/alerts")
    assert listed.status_code == 200 and listed.json["items"]
    assert code not in listed.text and code.replace("-", "") not in listed.text


def test_alert_is_dismissed_on_confirm(trust):
    request(trust, "dismiss-confirm")
    confirm(trust, "dismiss-confirm", challenge_for(trust.host, "dismiss-confirm"))
    (alert,) = trust.host.services[ALERTS].by_source("adoption")
    assert alert["dismissed_at"] is not None


def test_alert_is_dismissed_when_voided(trust):
    request(trust, "dismiss-void")
    code = challenge_for(trust.host, "dismiss-void")
    for _ in range(5):
        confirm(trust, "dismiss-void", wrong_code(code))
    (alert,) = trust.host.services[ALERTS].by_source("adoption")
    assert alert["dismissed_at"] is not None


def test_alert_is_dismissed_on_expiry_by_the_sweep(trust, env):
    host = trust.host
    request(trust, "dismiss-expiry")
    advance_clock(env, CHALLENGE_TTL_MS + 1)
    with orm.db_session:
        assert host.services[ADOPTION].sweep() == 1
    (alert,) = host.services[ALERTS].by_source("adoption")
    assert alert["dismissed_at"] is not None


def test_pending_challenges_serves_the_display_and_hides_expired(trust, env):
    host = trust.host
    request(trust, "first", "viewer")
    advance_clock(env, 60_000)
    request(trust, "second", "admin")
    items = host.services[ADOPTION].pending_challenges()
    assert [i["identifier"] for i in items] == ["second", "first"]  # newest first: the card's order
    assert set(items[0]) == {"identifier", "role", "challenge", "created_at_ms", "expires_at_ms"}
    assert items[0]["role"] == "admin" and CODE.fullmatch(items[0]["challenge"])
    advance_clock(env, CHALLENGE_TTL_MS - 30_000)
    assert [i["identifier"] for i in host.services[ADOPTION].pending_challenges()] == ["second"]


def test_adoption_works_without_an_alerts_plugin(make_host):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "alerts"})
    api = Api(host)
    assert ALERTS not in host.services
    assert api.post("/v1/adoption/request", json={"identifier": "plain"}).status_code == 200
    code = challenge_for(host, "plain")
    assert api.post("/v1/adoption/confirm", json={"identifier": "plain", "challenge_code": code}).status_code == 200


def test_a_real_window_writes_no_console_line_anything_else_does(make_host, capsys):
    host = make_host({"SVC_DISPLAY_HEADLESS": "0"})
    api = Api(host)
    host.services[DISPLAY_MODE] = "window"  # what svc_host.display.run records for a real window
    capsys.readouterr()
    assert api.post("/v1/adoption/request", json={"identifier": "windowed"}).status_code == 200
    assert "adoption challenge" not in capsys.readouterr().err
    host.services[DISPLAY_MODE] = "offscreen"  # a canvas nobody sees: the console shows the code
    assert api.post("/v1/adoption/request", json={"identifier": "offscreen"}).status_code == 200
    assert '"offscreen"' in capsys.readouterr().err


def test_the_challenge_is_in_no_response_of_the_flow(trust):
    """Every answer along a full flow, including errors and listings, is free of the code."""
    host = trust.host
    answers = [request(trust, "leak-check", "viewer")]
    code = challenge_for(host, "leak-check")
    answers.append(confirm(trust, "leak-check", wrong_code(code)))
    answers.append(trust.get("/v1/alerts"))
    answers.append(trust.get("/v1/adoption/clients"))
    answers.append(trust.get("/v1/openapi.json"))
    answers.append(confirm(trust, "leak-check", code))
    for answer in answers:
        text = answer.text + json.dumps(dict(answer.headers))
        assert code not in text and code.replace("-", "") not in text


# ---- rate limits --------------------------------------------------------------------------

def test_public_adoption_is_rate_limited_per_address(make_host, env):
    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "3"})
    api = Api(host)
    for i in range(3):
        assert request(api, f"r{i}", remote_addr="10.0.0.7").status_code == 200
    limited = request(api, "r3", remote_addr="10.0.0.7")
    assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert pending(host, "r3") is None
    # another address has its own budget; confirms have their own budget
    assert request(api, "r3", remote_addr="10.0.0.8").status_code == 200
    code = challenge_for(host, "r0")
    assert confirm(api, "r0", code, remote_addr="10.0.0.7").status_code == 200
    # admin grants are never limited
    admin = issue_key(host, "admin")
    for i in range(5):
        answer = api.post("/v1/adoption/request", key=admin, json={"identifier": f"a{i}"}, remote_addr="10.0.0.7")
        assert answer.status_code == 200
    # the window slides on the host clock
    advance_clock(env, 61_000)
    assert request(api, "r4", remote_addr="10.0.0.7").status_code == 200


def test_confirm_is_rate_limited_per_address(make_host, env):
    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "2"})
    api = Api(host)
    request(api, "c1")
    code = challenge_for(host, "c1")
    assert_error(confirm(api, "c1", wrong_code(code)), 401, "invalid_challenge")
    assert_error(confirm(api, "c1", wrong_code(code)), 401, "invalid_challenge")
    limited = confirm(api, "c1", code)
    assert_error(limited, 429, "rate_limited")
    assert "retry-after" in limited.headers
    advance_clock(env, 60_001)
    assert confirm(api, "c1", code).status_code == 200


def test_rate_zero_disables_the_limit(make_host):
    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    api = Api(host)
    for i in range(15):
        assert request(api, f"free-{i % 3}").status_code == 200


def test_pending_challenges_are_capped(make_host):
    from builtin_plugins.adoption.challenges import MAX_PENDING

    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    api = Api(host)
    for i in range(MAX_PENDING):
        assert request(api, f"flood-{i}").status_code == 200
    limited = request(api, "flood-extra")
    assert_error(limited, 429, "rate_limited")
    assert int(limited.headers["retry-after"]) >= 1
    assert request(api, "flood-0").status_code == 200  # replacing a pending one is fine
    assert count(host, "AdoptionChallenge") == MAX_PENDING


# ---- races ---------------------------------------------------------------------------------

def _together(calls):
    """Run the calls on threads released at the same moment; their results in order."""
    import threading

    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_concurrent_confirms_issue_one_working_key_and_never_fail_500(trust):
    for round_ in range(3):
        identifier = f"race-{round_}"
        request(trust, identifier)
        code = challenge_for(trust.host, identifier)
        answers = _together([lambda: confirm(trust, identifier, code) for _ in range(4)])
        statuses = sorted(a.status_code for a in answers)
        assert 200 in statuses and all(s in (200, 401, 409) for s in statuses), statuses
        keys = [a.json["api_key"] for a in answers if a.status_code == 200]
        working = [k for k in keys if trust.get("/v1/adoption/session", key=k).status_code == 200]
        assert len(working) == 1
        with orm.db_session:
            assert trust.host.db.ApiClient.select(lambda c: c.identifier == identifier).count() == 1


def test_concurrent_requests_for_one_identifier_leave_one_challenge(trust):
    answers = _together([lambda: request(trust, "same-time") for _ in range(4)])
    assert all(a.status_code in (200, 409) for a in answers), [a.status_code for a in answers]
    assert 200 in [a.status_code for a in answers]
    assert count(trust.host, "AdoptionChallenge") == 1


def test_concurrent_admin_creations_of_one_identifier_never_fail_500(trust):
    answers = _together([lambda: trust.post("/v1/adoption/clients", json={"identifier": "twin"}) for _ in range(4)])
    assert all(a.status_code in (201, 409) for a in answers), [a.status_code for a in answers]
    with orm.db_session:
        assert trust.host.db.ApiClient.select(lambda c: c.identifier == "twin").count() == 1


def test_adoption_without_the_clients_plugin_stops_startup_with_a_clear_message(make_host):
    from svc_host.plugins import PluginError

    with pytest.raises(PluginError, match="adoption.*clients"):
        make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "clients"})


def test_each_trust_plugin_but_adoption_can_be_disabled_alone(make_host):
    for name in ("cors", "sessions", "permissions_doc", "settings"):
        host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": name, "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
        api = Api(host)
        assert api.post("/v1/adoption/request", json={"identifier": f"without-{name}"}).status_code == 200
        code = challenge_for(host, f"without-{name}")
        answer = api.post("/v1/adoption/confirm", json={"identifier": f"without-{name}", "challenge_code": code},
                          headers={"Origin": "http://192.168.1.2"})
        assert answer.status_code == 200


def test_the_builtin_alerts_plugin_carries_the_security_alert_without_the_code(make_host):
    host = make_host({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    admin = Api(host, issue_key(host, "admin"))
    asked = admin.post("/v1/adoption/request", json={"identifier": "lobby-tablet", "role": "viewer"}, key="")
    assert asked.status_code == 200, asked.text
    code = challenge_for(host, "lobby-tablet")
    listed = admin.get("/v1/alerts")
    assert listed.status_code == 200
    alerts = [a for a in listed.json["items"] if a["source"] == "adoption"]
    assert len(alerts) == 1 and alerts[0]["icon"] == "shield"
    assert "lobby-tablet" in alerts[0]["title"] + alerts[0]["body"] and "viewer" in alerts[0]["title"] + alerts[0]["body"]
    for variant in (code, code.replace("-", "")):
        assert variant not in listed.text
        assert variant not in admin.get("/v1/catalog/alerts").text
    on_screen = [a for a in host.services[ALERTS].active() if a["source"] == "adoption"]
    assert on_screen[0]["display_only"]["challenge"] == code
    confirmed = admin.post("/v1/adoption/confirm", json={"identifier": "lobby-tablet", "challenge_code": code}, key="")
    assert confirmed.status_code == 200, confirmed.text
    assert not [a for a in host.services[ALERTS].active() if a["source"] == "adoption"]
