"""Runtime signals over real HTTP (CONTRACT "Runtime signals"), and the curator inputs they feed.

One server process per module; each test uses its own signal ids and configurations. The
server's clock is moved with the test clock file, so a TTL expires without waiting.
"""
from __future__ import annotations

import pytest
from marshmallow import Schema

from builtin_plugins.runtime_signals import routes
from builtin_plugins.runtime_signals.store import MAX_SIGNALS, SignalError, SignalStore
from svc_display.testing import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("signals")
    env = {"SVC_DISPLAY_DATA_DIR": str(root / "data"), "SVC_DISPLAY_HEADLESS": "1",
           "SVC_DISPLAY_TEST_CLOCK_FILE": str(root / "clock-offset-ms")}
    process = ServerProcess(env).start()
    process.clock_file = root / "clock-offset-ms"
    process.keys = {role: process.key(role) for role in ("operator", "viewer", "admin")}
    yield process
    process.stop()


def advance(server, ms):
    current = int(server.clock_file.read_text() or 0) if server.clock_file.exists() else 0
    server.clock_file.write_text(str(current + ms))


def call(server, method, path, role="operator", **kwargs):
    return server.request(method, path, key=server.keys[role], **kwargs)


def check_schema(schema, body):
    assert isinstance(schema(), Schema) and schema().validate(body) == {}


def test_put_get_list_delete(server):
    put = call(server, "PUT", "/v1/runtime/signals/door.open", json={"value": True})
    assert put.status_code == 200, put.text
    body = put.json()
    assert body["id"] == "door.open" and body["value"] is True and body["expires_at_ms"] is None
    assert isinstance(body["updated_at_ms"], int)
    for value in (21.5, -3, "meeting room: busy", False, "x" * 1000):
        answer = call(server, "PUT", "/v1/runtime/signals/room-1_temp",
                      json={"value": value, "ttl_seconds": 60})
        assert answer.status_code == 200 and answer.json()["value"] == value
        assert answer.json()["expires_at_ms"] == answer.json()["updated_at_ms"] + 60_000
    one = call(server, "GET", "/v1/runtime/signals/door.open", role="viewer")  # any valid key reads
    assert one.status_code == 200 and one.json() == body
    check_schema(routes.SignalSchema, one.json())
    listing = call(server, "GET", "/v1/runtime/signals", role="viewer").json()
    check_schema(routes.SignalList, listing)
    ids = [item["id"] for item in listing["items"]]
    assert {"door.open", "room-1_temp"} <= set(ids) and ids == sorted(ids)
    assert call(server, "DELETE", "/v1/runtime/signals/door.open").json() == {}
    assert call(server, "GET", "/v1/runtime/signals/door.open").status_code == 404
    gone = call(server, "DELETE", "/v1/runtime/signals/door.open")
    assert gone.status_code == 404 and gone.json()["code"] == "not_found"


@pytest.mark.parametrize("body, field", [
    ({}, "value"),
    ({"value": None}, "value"),
    ({"value": {"a": 1}}, "value"),
    ({"value": [1]}, "value"),
    ({"value": "x" * 1001}, "value"),
    ({"value": 2 ** 60}, "value"),
    ({"value": True, "ttl_seconds": 0}, "ttl_seconds"),
    ({"value": True, "ttl_seconds": 86401}, "ttl_seconds"),
    ({"value": True, "ttl_seconds": 1.5}, "ttl_seconds"),
    ({"value": True, "ttl_seconds": "60"}, "ttl_seconds"),
    ({"value": True, "colour": "red"}, "colour"),
])
def test_bad_bodies_are_refused_and_change_nothing(server, body, field):
    call(server, "PUT", "/v1/runtime/signals/steady", json={"value": "before"})
    answer = call(server, "PUT", "/v1/runtime/signals/steady", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "validation_failed" and field in answer.json()["details"]
    assert call(server, "GET", "/v1/runtime/signals/steady").json()["value"] == "before"


def test_non_finite_numbers_are_refused(server):
    answer = call(server, "PUT", "/v1/runtime/signals/nan", data='{"value": NaN}',
                  headers={"Content-Type": "application/json"})
    assert answer.status_code == 400


@pytest.mark.parametrize("signal_id", ["Upper", "9lives", "-dash", "a" * 65, "sp ace", "é"])
def test_ids_outside_the_pattern(server, signal_id):
    put = call(server, "PUT", f"/v1/runtime/signals/{signal_id}", json={"value": True})
    assert put.status_code in (400, 404) and put.json()["code"] in ("validation_failed", "not_found")
    assert call(server, "GET", f"/v1/runtime/signals/{signal_id}").status_code == 404
    assert call(server, "DELETE", f"/v1/runtime/signals/{signal_id}").status_code == 404


def test_writes_need_the_permission_reads_a_key(server):
    viewer = call(server, "PUT", "/v1/runtime/signals/perm", role="viewer", json={"value": 1})
    assert viewer.status_code == 403
    assert call(server, "PUT", "/v1/runtime/signals/perm", json={"value": 1}).status_code == 200
    assert call(server, "DELETE", "/v1/runtime/signals/perm", role="viewer").status_code == 403
    assert server.request("GET", "/v1/runtime/signals").status_code == 401
    assert call(server, "PUT", "/v1/runtime/signals/perm", role="admin", json={"value": 2}).status_code == 200


def test_a_signal_with_a_ttl_expires(server):
    call(server, "PUT", "/v1/runtime/signals/blink", json={"value": "on", "ttl_seconds": 30})
    call(server, "PUT", "/v1/runtime/signals/forever", json={"value": "on"})
    advance(server, 29_000)
    assert call(server, "GET", "/v1/runtime/signals/blink").json()["value"] == "on"
    advance(server, 1_000)
    assert call(server, "GET", "/v1/runtime/signals/blink").status_code == 404
    ids = {item["id"] for item in call(server, "GET", "/v1/runtime/signals").json()["items"]}
    assert "blink" not in ids and "forever" in ids


def active_ids(server):
    return set(call(server, "GET", "/v1/curator/active").json()["matching_configuration_ids"])


def test_motion_detected_makes_a_configuration_active_until_the_signal_expires(server):
    created = call(server, "POST", "/v1/curator/configurations", json={
        "id": "motion", "name": "Someone is here", "layer": "enhancement",
        "rules": [{"predicate": "motion_detected"}]})
    assert created.status_code == 201, created.text
    assert "motion" not in active_ids(server)
    call(server, "PUT", "/v1/runtime/signals/motion_detected", json={"value": True, "ttl_seconds": 120})
    assert "motion" in active_ids(server)
    assert call(server, "GET", "/v1/curator/runtime-state").json()["motion_detected"] is True
    advance(server, 120_000)
    assert "motion" not in active_ids(server)
    assert call(server, "GET", "/v1/curator/runtime-state").json()["motion_detected"] is False
    # only a boolean signal feeds the input
    call(server, "PUT", "/v1/runtime/signals/motion_detected", json={"value": "yes"})
    assert "motion" not in active_ids(server)
    call(server, "DELETE", "/v1/runtime/signals/motion_detected")


def test_every_runtime_input_reads_its_signal(server):
    for name in ("internet_reachable", "beacon_detected"):
        assert call(server, "GET", "/v1/curator/runtime-state").json()[name] is False
        call(server, "PUT", f"/v1/runtime/signals/{name}", json={"value": True})
        assert call(server, "GET", "/v1/curator/runtime-state").json()[name] is True
        call(server, "DELETE", f"/v1/runtime/signals/{name}")
    assert call(server, "GET", "/v1/curator/runtime-state").json()["display_server_reachable"] is True
    call(server, "PUT", "/v1/runtime/signals/display_server_reachable",
         json={"value": False, "ttl_seconds": 5})
    assert call(server, "GET", "/v1/curator/runtime-state").json()["display_server_reachable"] is False
    advance(server, 5_000)
    assert call(server, "GET", "/v1/curator/runtime-state").json()["display_server_reachable"] is True
    catalog = {p["id"]: p for p in call(server, "GET", "/v1/meta/curator-state-predicates").json()["items"]}
    for name in ("internet_reachable", "motion_detected", "beacon_detected", "display_server_reachable",
                 "runtime_signal"):
        assert catalog[name]["implemented"] is True and "signal" in catalog[name]["description"]


def test_the_runtime_signal_predicate_in_schedule_rules(server):
    for config_id, params in (("meeting", {"id": "room.mode", "equals": "meeting"}),
                              ("door", {"id": "door.latch"}), ("three", {"id": "room.people", "equals": 3})):
        created = call(server, "POST", "/v1/curator/configurations", json={
            "id": config_id, "name": config_id, "layer": "enhancement",
            "rules": [{"predicate": "runtime_signal", "params": params}]})
        assert created.status_code == 201, created.text
    assert not {"meeting", "door", "three"} & active_ids(server)
    call(server, "PUT", "/v1/runtime/signals/room.mode", json={"value": "meeting"})
    call(server, "PUT", "/v1/runtime/signals/door.latch", json={"value": "true"})  # a string, not true
    call(server, "PUT", "/v1/runtime/signals/room.people", json={"value": 3.0})
    assert {"meeting", "three"} <= active_ids(server) and "door" not in active_ids(server)
    call(server, "PUT", "/v1/runtime/signals/room.mode", json={"value": "lunch"})
    call(server, "PUT", "/v1/runtime/signals/door.latch", json={"value": True})
    call(server, "PUT", "/v1/runtime/signals/room.people", json={"value": True})  # true is not 3
    active = active_ids(server)
    assert "door" in active and not {"meeting", "three"} & active


@pytest.mark.parametrize("params", [{}, {"id": "Bad"}, {"id": "ok", "equals": None}, {"id": "ok", "x": 1},
                                    {"id": "ok", "equals": "y" * 1001}])
def test_runtime_signal_rule_params_are_checked(server, params):
    answer = call(server, "POST", "/v1/curator/configurations", json={
        "id": "bad-rule", "name": "x", "layer": "enhancement",
        "rules": [{"predicate": "runtime_signal", "params": params}]})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_failed"
    assert call(server, "GET", "/v1/curator/configurations/bad-rule").status_code == 404


def test_the_store_keeps_at_most_max_signals():
    now = [0]
    store = SignalStore(lambda: now[0])
    for n in range(MAX_SIGNALS):
        store.put(f"s{n}", n, ttl_seconds=10)
    with pytest.raises(SignalError) as refused:
        store.put("one-more", True)
    assert refused.value.field is None
    store.put("s0", "replaced")  # an existing id can still change
    now[0] = 10_000  # the TTL ones expire: room again
    assert store.put("one-more", True)["value"] is True and len(store.items()) == 2


def test_a_signal_change_is_a_change_event_and_an_expiry_a_due_time(api):
    """The canvas hears of a signal set or deleted at once (topics runtime_signals and curator) and
    re-evaluates the active view when a signal expires (the curator's next_change_ms)."""
    from hookspecs.services import CURATOR, EVENTS

    host = api.host
    topics: list[str] = []
    host.services[EVENTS].subscribe(topics.append)
    assert api.post("/v1/curator/configurations", json={
        "id": "motion", "name": "M", "layer": "enhancement",
        "rules": [{"predicate": "motion_detected"}]}).status_code == 201
    topics.clear()
    now = host.clock.now_ms()
    put = api.put("/v1/runtime/signals/motion_detected", json={"value": True, "ttl_seconds": 5})
    assert put.status_code == 200
    assert sorted(topics) == ["curator", "runtime_signals"]
    assert host.services[CURATOR].next_change_ms() <= now + 5_000 + 1_000  # the expiry, before the minute
    assert api.put("/v1/runtime/signals/motion_detected", json={"value": []}).status_code == 400
    assert len(topics) == 2  # a refused write is no event
    assert api.delete("/v1/runtime/signals/motion_detected").status_code == 200
    assert sorted(topics[2:]) == ["curator", "runtime_signals"]
