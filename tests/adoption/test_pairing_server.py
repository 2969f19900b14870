"""Pairing against a real ``svc-display serve`` over HTTPS, on SQLite and PostgreSQL: two newcomers
asking at once each pair on the first try with the code the console shows for their identifier
(the screen's card shows the same codes: tests/adoption/test_pairing_screen.py), and the requests
pending when the server stops are gone after it starts again (their codes void, their alerts
dismissed)."""
from __future__ import annotations

import pytest

from tests.trust.helpers import assert_error
from tests.trust.helpers import wait_for_code


def ask(server, identifier: str, role: str):
    answer = server.request("POST", "/v1/adoption/request", json={"identifier": identifier, "role": role})
    assert answer.status_code == 200, answer.text
    return answer


def confirm(server, identifier: str, code: str):
    return server.request("POST", "/v1/adoption/confirm", json={"identifier": identifier, "challenge_code": code})


@pytest.mark.slow
@pytest.mark.svc_display_storage
def test_two_pending_requests_pair_first_try_and_a_restart_drops_the_pending(start_server, env):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    admin = server.key("admin")
    ask(server, "kiosk-laptop", "operator")
    ask(server, "maria-phone", "viewer")
    codes = {name: wait_for_code(server, name) for name in ("kiosk-laptop", "maria-phone")}
    assert codes["kiosk-laptop"] != codes["maria-phone"]
    for name in ("maria-phone", "kiosk-laptop"):  # the newer first, as the card lists them
        granted = confirm(server, name, codes[name])
        assert granted.status_code == 200, (name, granted.text)
    roles = {c["identifier"]: c["role"] for c in server.get("/v1/adoption/clients", key=admin).json()["items"]}
    assert roles["kiosk-laptop"] == "operator" and roles["maria-phone"] == "viewer"

    # a request pending when the server stops does not survive the restart
    ask(server, "left-behind", "viewer")
    stale = wait_for_code(server, "left-behind")
    active = [a for a in server.get("/v1/alerts", key=admin, params={"active": "true"}).json()["items"]
              if a["source"] == "adoption"]
    assert len(active) == 1, active
    assert server.stop() == 0
    server.start()
    assert "1 pending request(s) of the previous run dropped" in server.stderr, server.stderr[-3000:]
    assert_error(confirm(server, "left-behind", stale), 401, "invalid_challenge")
    active = [a for a in server.get("/v1/alerts", key=admin, params={"active": "true"}).json()["items"]
              if a["source"] == "adoption"]
    assert active == [], active
    # a new request after the restart pairs as before
    ask(server, "left-behind", "viewer")
    fresh = wait_for_code(server, "left-behind", count=2)
    assert confirm(server, "left-behind", fresh).status_code == 200
