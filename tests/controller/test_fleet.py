"""The fleet (CONTRACT "The fleet") on a real controller, SQLite and PostgreSQL: the registry
(``/bff/v1/displays``), the poller against fake displays on loopback (tests/controller/fakedisplay.py)
and a real display, and the server-sent events."""
from __future__ import annotations

import sqlite3
import threading

import httpx
import psycopg2
import pytest
from httpx_sse import connect_sse

from svc_display.testing import wait_for
from tests.controllers import ControllerProcess, running, start_display
from tests.controller.fakedisplay import FakeDisplay

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]

KEY = "svc_" + "Fl33tK3yN0tT0B3Se3n" * 2
POLL_S = 1


@pytest.fixture(scope="module")
def ctl(tmp_path_factory, module_database_url):
    root = tmp_path_factory.mktemp("fleet")
    env = {"SVC_CONTROLLER_FLEET_POLL_SECONDS": str(POLL_S)}
    if module_database_url:
        env["SVC_CONTROLLER_DATABASE_URL"] = module_database_url
    controller = ControllerProcess(root / "ctl" / "data", env)
    controller.database_url = module_database_url
    with running(controller):
        controller.start()
        yield controller


@pytest.fixture
def fakes():
    made: list[FakeDisplay] = []

    def make(**kwargs) -> FakeDisplay:
        display = FakeDisplay(**kwargs).start()
        made.append(display)
        return display

    yield make
    for display in made:
        display.stop()


@pytest.fixture
def clean(ctl):
    yield
    for item in ctl.get("/bff/v1/displays").json()["items"]:
        ctl.request("DELETE", f"/bff/v1/displays/{item['id']}")
    for item in ctl.get("/bff/v1/backup-targets").json()["items"]:
        ctl.request("DELETE", f"/bff/v1/backup-targets/{item['id']}")


def put(ctl, display_id, **body):
    return ctl.request("PUT", f"/bff/v1/displays/{display_id}", json=body)


def item(ctl, display_id):
    r = ctl.get(f"/bff/v1/displays/{display_id}")
    assert r.status_code == 200, r.text
    return r.json()


def state_of(ctl, display_id, state):
    """The item once its state is ``state`` (the poll period is 1 s here)."""
    return wait_for(lambda: (lambda i: i if i["status"]["state"] == state else None)(item(ctl, display_id)),
                    timeout=30, what=f"{display_id} {state}")


def stored_rows(ctl) -> str:
    """Every stored value of ctl_display and ctl_backup_target, as text."""
    queries = ["SELECT * FROM ctl_display", "SELECT * FROM ctl_backup_target"]
    if ctl.database_url:
        with psycopg2.connect(ctl.database_url) as conn, conn.cursor() as cur:
            rows = []
            for query in queries:
                cur.execute(query)
                rows += cur.fetchall()
        conn.close()
    else:
        conn = sqlite3.connect(ctl.data_dir / "svc_controller.sqlite3")
        rows = [r for query in queries for r in conn.execute(query).fetchall()]
        conn.close()
    return repr(rows)


# -- the registry --------------------------------------------------------------------------
def test_upsert_list_get_delete_and_the_key_is_stored_encrypted_and_never_returned(ctl, clean, fakes):
    fake = fakes(key=KEY)
    created = put(ctl, "lobby", name="Lobby", baseUrl=fake.url, apiKey=KEY, group="ground floor")
    assert created.status_code == 201, created.text
    body = created.json()
    assert body == {"id": "lobby", "name": "Lobby", "baseUrl": fake.url, "group": "ground floor",
                    "apiKeyConfigured": True, "status": body["status"]}
    assert set(body["status"]) == {"state", "since_ms", "checked_at_ms", "version", "power", "screen", "problems",
                                   "sync", "clock"}
    # an upsert without apiKey keeps the stored one; the group can be dropped
    updated = put(ctl, "lobby", name="Front lobby", baseUrl=fake.url, group=None)
    assert updated.status_code == 200 and updated.json()["apiKeyConfigured"] is True
    assert updated.json()["name"] == "Front lobby" and updated.json()["group"] is None
    assert put(ctl, "cafe", name="Cafe", baseUrl="https://127.0.0.9:9").status_code == 201
    listed = ctl.get("/bff/v1/displays").json()["items"]
    assert [i["id"] for i in listed] == ["cafe", "lobby"]
    assert [i["apiKeyConfigured"] for i in listed] == [False, True]
    for response in (created, updated, ctl.get("/bff/v1/displays"), ctl.get("/bff/v1/displays/lobby")):
        assert KEY not in response.text and "apiKey\"" not in response.text
    assert KEY not in stored_rows(ctl) and KEY not in ctl.log
    # the key is the one the display accepts: the poller's power and screen reads pass
    polled = state_of(ctl, "lobby", "online")
    assert polled["status"]["power"]["state"] == "on" and polled["status"]["problems"] == []
    assert put(ctl, "lobby", name="Front lobby", baseUrl=fake.url, apiKey=None).json()["apiKeyConfigured"] is False
    assert ctl.request("DELETE", "/bff/v1/displays/lobby").status_code == 204
    assert ctl.get("/bff/v1/displays/lobby").status_code == 404
    assert ctl.request("DELETE", "/bff/v1/displays/lobby").status_code == 404
    assert [i["id"] for i in ctl.get("/bff/v1/displays").json()["items"]] == ["cafe"]


BAD_IDS = ["x" * 65, "x" * 5000, "Lobby", "-lobby", "lob by", "lobby%00", "%00", "l%C3%B6bby", "%ED%A0%80",
           "lobby%2Fx", "a" * 64 + "%FF"]


@pytest.mark.parametrize("bad_id", BAD_IDS)
def test_ids_of_any_length_or_byte_are_400_on_put_and_404_elsewhere(ctl, clean, bad_id):
    r = ctl.request("PUT", f"/bff/v1/displays/{bad_id}", json={"name": "x", "baseUrl": "https://127.0.0.1:9"})
    assert r.status_code in (400, 404), r.text
    assert r.json()["code"] in ("validation_failed", "not_found")
    for method in ("GET", "DELETE"):
        r = ctl.request(method, f"/bff/v1/displays/{bad_id}")
        assert r.status_code == 404 and r.json()["code"] == "not_found", (method, r.text)
    assert ctl.get("/bff/v1/displays").json()["items"] == []


BACKUP_ROUTES = [("GET", "/bff/v1/backup-targets/{}"), ("DELETE", "/bff/v1/backup-targets/{}"),
                 ("GET", "/bff/v1/backup-targets/{}/snapshots"), ("POST", "/bff/v1/backup-targets/{}/pull-now"),
                 ("POST", "/bff/v1/backup-targets/{}/upload"), ("GET", "/bff/v1/backup-snapshots/{}"),
                 ("DELETE", "/bff/v1/backup-snapshots/{}"), ("GET", "/bff/v1/backup-snapshots/{}/download"),
                 ("POST", "/bff/v1/backup-snapshots/{}/restore")]


@pytest.mark.parametrize("method,route", BACKUP_ROUTES)
def test_backup_routes_answer_404_to_ids_of_any_length_or_byte(ctl, method, route):
    """Ids longer than the 32-character column were a 500 (Pony's 'too long' ValueError)."""
    for bad_id in ("x" * 33, "y" * 4000, "%00", "ab%00cd", "%ED%A0%80"):
        kwargs = {"data": b"PK\x03\x04", "headers": {"Content-Type": "application/octet-stream"}} \
            if route.endswith("upload") else {}
        r = ctl.request(method, route.format(bad_id), **kwargs)
        assert r.status_code == 404 and r.json()["code"] == "not_found", (bad_id, r.status_code, r.text)


@pytest.mark.parametrize("body,field,status", [
    ({"baseUrl": "https://127.0.0.1:9"}, "name", 400),
    ({"name": "", "baseUrl": "https://127.0.0.1:9"}, "name", 400),
    ({"name": "x"}, "baseUrl", 400),
    ({"name": "x", "baseUrl": "ftp://127.0.0.1"}, "baseUrl", 400),
    ({"name": "x", "baseUrl": "https://user:pw@127.0.0.1"}, "baseUrl", 400),
    ({"name": "x", "baseUrl": "https://127.0.0.1:9", "apiKey": ""}, "apiKey", 400),
    ({"name": "x", "baseUrl": "https://127.0.0.1:9", "apiKey": 12}, "apiKey", 400),
    ({"name": "x", "baseUrl": "https://127.0.0.1:9", "group": "a\nb"}, "group", 400),
    ({"name": "x", "baseUrl": "https://127.0.0.1:9", "group": "g" * 65}, "group", 400),
    ({"name": "x", "baseUrl": "https://8.8.8.8:8787"}, None, 403),
    ({"name": "x", "baseUrl": "http://169.254.169.254/"}, None, 403),
])
def test_bad_upserts_are_refused_and_store_nothing(ctl, clean, body, field, status):
    # (loopback addresses only: registered displays are polled, and tests reach nothing beyond it)
    assert put(ctl, "keep", name="Kept", baseUrl="https://127.0.0.2:9").status_code == 201

    def stored():  # the polled status changes by itself; the rest must not
        return [{k: v for k, v in i.items() if k != "status"} for i in ctl.get("/bff/v1/displays").json()["items"]]

    before = stored()
    for display_id in ("keep", "new-one"):
        r = put(ctl, display_id, **body)
        assert r.status_code == status, r.text
        if status == 403:
            assert r.json()["code"] == "proxy_target_forbidden"
        else:
            assert r.json()["code"] == "validation_failed" and field in r.json()["details"], r.text
    assert stored() == before


def test_a_backup_target_can_follow_a_fleet_display_and_pulls_with_its_url_and_key(ctl, clean, tmp_path):
    display = start_display(tmp_path / "display")
    with running(display):
        key = display.key("admin")
        assert put(ctl, "hall", name="Hall", baseUrl=display.url, apiKey=key).status_code == 201
        r = ctl.request("PUT", "/bff/v1/backup-targets", json={"fleetDisplayId": "hall", "retentionCount": 2})
        assert r.status_code == 201, r.text
        target = r.json()
        assert (target["displayId"], target["fleetDisplayId"], target["baseUrl"], target["apiKeyConfigured"]) == (
            "hall", "hall", display.url, True)
        assert key not in stored_rows(ctl).replace(display.url, "")
        pulled = ctl.request("POST", f"/bff/v1/backup-targets/{target['id']}/pull-now")
        assert pulled.status_code == 201, pulled.text
        # a real display answers health, power (and screen where it has it): online, its version
        polled = state_of(ctl, "hall", "online")
        assert polled["status"]["version"] == display.get("/v1/health").json()["version"]
        assert polled["status"]["power"]["state"] == "on"
        # refused: an unknown display, a URL or key beside it, neither URL nor display
        for body, field in (({"fleetDisplayId": "nope"}, "fleetDisplayId"),
                            ({"fleetDisplayId": "x" * 500}, "fleetDisplayId"),
                            ({"fleetDisplayId": "hall", "baseUrl": display.url}, "baseUrl"),
                            ({"fleetDisplayId": "hall", "apiKey": "k"}, "apiKey"),
                            ({"displayId": "solo"}, "baseUrl"), ({}, "displayId")):
            r = ctl.request("PUT", "/bff/v1/backup-targets", json=body)
            assert r.status_code == 400 and field in r.json()["details"], (body, r.text)
        # the display removed from the fleet: the next pull fails and says why
        assert ctl.request("DELETE", "/bff/v1/displays/hall").status_code == 204
        failed = ctl.request("POST", f"/bff/v1/backup-targets/{target['id']}/pull-now")
        assert failed.status_code == 502 and "removed" in failed.json()["message"]


# -- the poller ------------------------------------------------------------------------------
def test_states_and_problems_from_what_each_display_answers(ctl, clean, fakes):
    ok = fakes(version="1.4.0")
    old = fakes(version="1.3.9")
    off = fakes()
    off.power_state, off.power_reason = "off", "schedule"
    degraded = fakes()
    degraded.screen = {"state": "showing", "current": None, "failing": [],
                       "skipped": [{"screen_id": "weather", "screen_type": "weather", "reason": "type_unavailable",
                                    "message": "the weather plugin is disabled"}]}
    empty = fakes()
    empty.screen = {"state": "nothing_to_show", "current": None, "skipped": [], "failing": []}
    no_screen_route = fakes()
    no_screen_route.screen = None
    skewed = fakes()
    skewed.clock_offset_s = 600
    for name, fake in (("ok", ok), ("old", old), ("off", off), ("degraded", degraded), ("empty", empty),
                       ("no-screen", no_screen_route), ("skewed", skewed)):
        assert put(ctl, name, name=name, baseUrl=fake.url).status_code == 201
    assert state_of(ctl, "ok", "online")["status"]["problems"] == []
    assert state_of(ctl, "no-screen", "online")["status"]["screen"] is None
    assert [p["code"] for p in state_of(ctl, "off", "off")["status"]["problems"]] == ["panel_off"]
    problem = state_of(ctl, "degraded", "degraded")["status"]["problems"]
    assert problem[0]["code"] == "screen_degraded" and "the weather plugin is disabled" in problem[0]["message"]
    assert "nothing to show" in state_of(ctl, "empty", "degraded")["status"]["problems"][0]["message"]
    clock = state_of(ctl, "skewed", "online")["status"]["problems"]
    assert [p["code"] for p in clock] == ["clock_off"] and "ahead" in clock[0]["message"]
    behind = wait_for(lambda: [p for p in item(ctl, "old")["status"]["problems"] if p["code"] == "version_behind"],
                      timeout=30, what="version_behind")
    assert "1.4.0" in behind[0]["message"]
    assert item(ctl, "old")["status"]["state"] == "online"


@pytest.mark.parametrize("mode,code", [("hang", "unreachable"), ("trickle", "unreachable"), ("garbage", "bad_answer"),
                                       ("huge", "bad_answer"), ("close", "unreachable")])
def test_a_display_that_hangs_or_answers_garbage_is_unreachable_and_the_list_never_waits(ctl, clean, fakes, mode,
                                                                                       code):
    bad = fakes()
    bad.mode = mode
    good = fakes()
    assert put(ctl, "bad", name="bad", baseUrl=bad.url).status_code == 201
    assert put(ctl, "good", name="good", baseUrl=good.url).status_code == 201
    unreachable = state_of(ctl, "bad", "unreachable")
    assert [p["code"] for p in unreachable["status"]["problems"]] == [code]
    assert state_of(ctl, "good", "online")
    # the list reads stored results while the bad display is being polled again
    for _ in range(5):
        listed = ctl.get("/bff/v1/displays", timeout=3)
        assert listed.status_code == 200
    assert ctl.get("/bff/v1/health").status_code == 200


def test_a_display_going_down_and_back_changes_state_and_since_and_the_events_say_so(ctl, clean, fakes):
    fake = fakes()
    assert put(ctl, "door", name="Door", baseUrl=fake.url).status_code == 201
    online = state_of(ctl, "door", "online")
    events: list[dict] = []
    opened = threading.Event()

    def listen() -> None:
        with httpx.Client(verify=ctl.ssl_context(), timeout=httpx.Timeout(5, read=60)) as client:
            with connect_sse(client, "GET", ctl.url + "/bff/v1/fleet/events") as source:
                assert source.response.headers["content-type"].startswith("text/event-stream")
                opened.set()
                for event in source.iter_sse():
                    if event.event == "status":
                        events.append(event.json())
                    if any(e["id"] == "door" and e["status"]["state"] == "online" for e in events[1:]) and any(
                            e["status"]["state"] == "unreachable" for e in events):
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(30)
    fake.stop()
    down = state_of(ctl, "door", "unreachable")
    assert down["status"]["since_ms"] > online["status"]["since_ms"]
    assert down["status"]["problems"][0]["code"] == "unreachable"
    fake.start()
    back = state_of(ctl, "door", "online")
    assert back["status"]["since_ms"] > down["status"]["since_ms"] and back["status"]["problems"] == []
    listener.join(30)
    assert not listener.is_alive()
    # first the stored state, then the changes in order
    states = [e["status"]["state"] for e in events if e["id"] == "door"]
    assert states[0] == "online" and "unreachable" in states and states[-1] == "online", states


def test_the_event_stream_needs_get(ctl):
    r = ctl.request("POST", "/bff/v1/fleet/events")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"


# -- groups and bulk actions -------------------------------------------------------------------
def test_bulk_actions_on_a_group_report_each_display_and_a_hung_one_never_holds_the_rest(ctl, clean, fakes,
                                                                                        tmp_path):
    display = start_display(tmp_path / "display")
    hung = fakes()
    hung.mode = "hang"
    with running(display):
        admin = display.key("admin")
        for display_id, url, key in (("real", display.url, admin), ("hung", hung.url, "svc_whatever"),
                                     ("keyless", display.url, None)):
            body = {"name": display_id, "baseUrl": url, "group": "hall", **({"apiKey": key} if key else {})}
            assert put(ctl, display_id, **body).status_code == 201
        assert put(ctl, "elsewhere", name="elsewhere", baseUrl=display.url, apiKey=admin, group="other").status_code == 201
        assert [i["id"] for i in ctl.get("/bff/v1/displays", params={"group": "hall"}).json()["items"]] == [
            "hung", "keyless", "real"]

        def act(**body):
            r = ctl.request("POST", "/bff/v1/fleet/actions", json={"group": "hall", **body})
            assert r.status_code == 200, r.text
            return {i["id"]: i for i in r.json()["items"]}

        alert = {"title": "Fire drill at 3", "body": "Meet in the car park", "severity": "warning", "priority": 50}
        results = act(action="raise_alert", alert=alert)
        assert set(results) == {"real", "hung", "keyless"}  # the group, not the other display
        assert results["real"]["result"] == "done"
        assert results["hung"]["result"] == "timed_out" and "no answer" in results["hung"]["reason"]
        assert results["keyless"]["result"] == "failed" and "no API key" in results["keyless"]["reason"]
        hung.mode = "close"  # the rest of the test need not wait out its budget each time
        titles = [a["title"] for a in display.get("/v1/alerts", key=admin).json()["items"] if a["dismissed_at"] is None]
        assert titles.count("Fire drill at 3") == 1
        assert act(action="clear_alerts")["real"]["result"] == "done"
        assert all(a["dismissed_at"] is not None for a in display.get("/v1/alerts", key=admin).json()["items"])
        # the display's own validation comes back as the reason
        bad = act(action="set_power_schedule", schedule=[{"days": ["mon"], "on": "25:00", "off": "07:00"}])["real"]
        assert bad["result"] == "failed" and "invalid_power_schedule" in bad["reason"]
        window = [{"days": ["mon", "tue"], "on": "07:00", "off": "19:00"}]
        assert act(action="set_power_schedule", schedule=window)["real"]["result"] == "done"
        assert display.get("/v1/display/power", key=admin).json()["schedule"] == window
        for action in ("pause_program", "pause_program", "resume_program"):
            assert act(action=action)["real"]["result"] == "done", action
        pause = display.get("/v1/curator/configurations/svc-controller-pause", key=admin).json()
        assert (pause["layer"], pause["screens_enabled"], pause["ticker_enabled"], pause["enabled"]) == (
            "exclusive", False, False, False)
    # refused before any display is asked
    for body in ({"action": "raise_alert", "group": "hall"}, {"action": "reboot", "group": "hall"},
                 {"action": "clear_alerts"}, {"action": "set_power_schedule", "group": "hall"}):
        r = ctl.request("POST", "/bff/v1/fleet/actions", json=body)
        assert r.status_code == 400 and r.json()["code"] == "validation_failed", r.text
    r = ctl.request("POST", "/bff/v1/fleet/actions", json={"action": "clear_alerts", "group": "nobody"})
    assert r.status_code == 404


def test_a_bulk_action_on_a_display_answering_json_nested_too_deep_is_failed_not_a_500(ctl, clean, fakes):
    deep = fakes()
    deep.mode = "deep"  # GET /v1/alerts: 200 with JSON 100,000 levels deep (json.loads: RecursionError)
    assert put(ctl, "deep", name="Deep", baseUrl=deep.url, apiKey="svc_whatever", group="deep").status_code == 201
    r = ctl.request("POST", "/bff/v1/fleet/actions", json={"action": "clear_alerts", "group": "deep"})
    assert r.status_code == 200, r.text
    assert r.json()["items"][0]["result"] == "failed"
    assert r.json()["items"][0]["reason"] == "/v1/alerts answered 200 without a list of alerts"


# -- the webhook -------------------------------------------------------------------------------
class Receiver:
    """A webhook receiver on 127.0.0.1: answers 500 to the first ``fail_first`` posts, then 204."""

    def __init__(self, fail_first: int = 1):
        import http.server
        import json as json_module

        self.posts: list[tuple[dict, bytes, dict]] = []
        self.fail_first = fail_first
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append((json_module.loads(body), body, dict(self.headers)))
                self.send_response(500 if len(receiver.posts) <= receiver.fail_first else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/screens"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_webhook_signed_and_retried_when_a_display_stays_dark_and_when_it_recovers(tmp_path, module_database_url,
                                                                                     fakes):
    import hashlib
    import hmac
    from contextlib import ExitStack

    from svc_display.testing.databases import throwaway_pg_database

    secret = "webhook-secret-" + "s" * 20
    receiver = Receiver(fail_first=1)
    fake = fakes()
    with ExitStack() as stack:
        stack.callback(receiver.close)
        env = {"SVC_CONTROLLER_FLEET_POLL_SECONDS": "1", "SVC_CONTROLLER_ALERT_AFTER_SECONDS": "2",
               "SVC_CONTROLLER_WEBHOOK_URL": receiver.url, "SVC_CONTROLLER_WEBHOOK_SECRET": secret}
        if module_database_url:
            env["SVC_CONTROLLER_DATABASE_URL"] = stack.enter_context(throwaway_pg_database("svc_c_"))
        own = ControllerProcess(tmp_path / "data", env)
        stack.enter_context(running(own))
        own.start()
        assert put(own, "porch", name="Porch", baseUrl=fake.url).status_code == 201
        state_of(own, "porch", "online")
        assert receiver.posts == []  # online: nothing to say
        fake.stop()
        down = state_of(own, "porch", "unreachable")
        # sent once the spell lasts 2 s; the first attempt got 500 and was retried
        wait_for(lambda: len(receiver.posts) >= 2, timeout=60, what="the retried display.down")
        fake.start()
        state_of(own, "porch", "online")
        wait_for(lambda: len(receiver.posts) >= 3, timeout=60, what="display.recovered")
        events = [(p[0]["event"], p[0]["display"]["id"], p[0]["display"]["status"]["state"]) for p in receiver.posts]
        assert events == [("display.down", "porch", "unreachable")] * 2 + [("display.recovered", "porch", "online")]
        assert receiver.posts[0][1] == receiver.posts[1][1]  # the retry sends the same body
        assert receiver.posts[0][0]["display"]["status"]["since_ms"] == down["status"]["since_ms"]
        for payload, body, headers in receiver.posts:
            expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            assert hmac.compare_digest(headers["X-Svc-Signature"], expected)
            assert headers["Content-Type"] == "application/json"
        assert secret not in own.log


def by_id(ctl, method, path, display_id, headers=None, **kwargs):
    """The proxy, naming a registered display by its id (docs/controller.md "The proxy")."""
    return ctl.request(method, "/bff/v1/proxy" + path, headers={"X-Svc-Display-Id": display_id, **(headers or {})},
                       **kwargs)


def test_the_proxy_reaches_a_registered_display_by_id_with_its_stored_key(ctl, clean, tmp_path):
    display = start_display(tmp_path / "display")
    with running(display):
        key = display.key("admin")
        assert put(ctl, "hall", name="Hall", baseUrl=display.url, apiKey=key).status_code == 201
        assert put(ctl, "keyless", name="Keyless", baseUrl=display.url).status_code == 201
        screen = "s-by-id"
        r = by_id(ctl, "POST", "/v1/screens", "hall",
                  json={"id": screen, "screen_type": "message", "config_json": {"title": "Hi", "body": "there"}})
        assert r.status_code == 201, r.text
        assert display.get(f"/v1/screens/{screen}", key=key).json()["id"] == screen  # really on the display
        listed = by_id(ctl, "GET", "/v1/screens", "hall")
        assert listed.status_code == 200 and screen in [s["id"] for s in listed.json()["items"]]
        # the stored key replaces whatever the caller sends
        r = by_id(ctl, "GET", f"/v1/screens/{screen}", "hall", headers={"Authorization": "Bearer svc_wrong"})
        assert r.status_code == 200, r.text
        # and it shows nowhere: not in the answers, not in the controller's log
        assert key not in r.text + listed.text and key not in ctl.log
        # URL mode is unchanged: only the caller's key goes along (here none)
        r = ctl.request("GET", "/bff/v1/proxy/v1/screens", headers={"X-Svc-Display-Url": display.url})
        assert (r.status_code, r.json()["code"]) == (401, "unauthorized")

        # refused, never a 500, and nothing reaches the display: unknown or malformed ids of any
        # byte, both headers at once
        before = display.get("/v1/screens", key=key).json()
        for bad in ("nope", "x" * 500, "HALL", "hall/../x", "-hall", "h%00all", "a b", b"hall\xff\x01\x7f",
                    "hall\u00e9".encode(), ""):
            r = by_id(ctl, "POST", "/v1/screens", bad,
                      json={"id": "never", "screen_type": "message", "config_json": {"title": "x", "body": "y"}})
            assert r.status_code in (400, 404), (bad, r.status_code, r.text)
            assert r.json()["code"] in ("not_found", "validation_failed", "bad_request"), (bad, r.text)
        r = by_id(ctl, "GET", "/v1/screens", "nope")
        assert (r.status_code, r.json()["code"]) == (404, "not_found")
        r = by_id(ctl, "GET", "/v1/screens", "hall", headers={"X-Svc-Display-Url": display.url})
        assert (r.status_code, r.json()["code"]) == (400, "validation_failed")
        assert "X-Svc-Display-Id" in r.json()["details"]
        assert display.get("/v1/screens", key=key).json() == before

        # no stored key: a clear 409; a key stored later makes it reachable, cleared again refused
        r = by_id(ctl, "GET", "/v1/screens", "keyless")
        assert (r.status_code, r.json()["code"]) == (409, "display_key_missing"), r.text
        assert put(ctl, "keyless", name="Keyless", baseUrl=display.url, apiKey=key).status_code == 200
        assert by_id(ctl, "GET", "/v1/screens", "keyless").status_code == 200
        assert put(ctl, "keyless", name="Keyless", baseUrl=display.url, apiKey=None).status_code == 200
        assert by_id(ctl, "GET", "/v1/screens", "keyless").status_code == 409
        # removed from the fleet: unknown
        assert ctl.request("DELETE", "/bff/v1/displays/hall").status_code == 204
        assert by_id(ctl, "GET", "/v1/screens", "hall").status_code == 404


# -- displays in step (CONTRACT "Displays in step"): sync groups and clock offsets ------------------
LOBBY_A, LOBBY_B = "a1" * 32, "b2" * 32


def in_sync_group(fake: FakeDisplay, group: str | None, program_hash: str) -> FakeDisplay:
    fake.screen = {**fake.screen, "sync": {"group": group, "program_hash": program_hash, "cycle_ms": 30_000}}
    return fake


def sync_group(ctl, name):
    """The listing's entry of sync group ``name``, or None."""
    return next((g for g in ctl.get("/bff/v1/displays").json()["syncGroups"] if g["group"] == name), None)


def differ_problems(display):
    return [p for p in display["status"]["problems"] if p["code"] == "programs_differ"]


def test_a_sync_group_whose_programs_differ_is_marked_on_the_group_and_each_member_until_they_agree(ctl, clean,
                                                                                                  fakes):
    first, second = in_sync_group(fakes(), "lobby", LOBBY_A), in_sync_group(fakes(), "lobby", LOBBY_A)
    third = in_sync_group(fakes(), "lobby", LOBBY_B)
    alone = in_sync_group(fakes(), "cafe", LOBBY_B)  # same program as third, another group
    unset = in_sync_group(fakes(), None, LOBBY_B)  # no sync group: in none
    older = fakes()  # an older release: no sync in its screen status
    for name, fake in (("first", first), ("second", second), ("third", third), ("alone", alone), ("unset", unset),
                       ("older", older)):
        assert put(ctl, name, name=name.capitalize(), baseUrl=fake.url).status_code == 201
    # every display polled once (the poller reaches them in any order), then the groups are read
    wait_for(lambda: all(i["status"]["checked_at_ms"] for i in ctl.get("/bff/v1/displays").json()["items"]),
             timeout=30, what="every display's first poll")
    lobby = sync_group(ctl, "lobby")
    assert lobby["displayIds"] == ["first", "second", "third"]
    assert lobby["programsDiffer"] is True
    assert lobby["programs"] == [{"programHash": LOBBY_A, "displayIds": ["first", "second"]},
                                 {"programHash": LOBBY_B, "displayIds": ["third"]}]
    assert sync_group(ctl, "cafe") == {"group": "cafe", "displayIds": ["alone"], "programsDiffer": False,
                                       "programs": [{"programHash": LOBBY_B, "displayIds": ["alone"]}]}
    assert [g["group"] for g in ctl.get("/bff/v1/displays").json()["syncGroups"]] == ["cafe", "lobby"]
    # each member names the group and who runs what; the state stays what the display says
    odd = item(ctl, "third")
    assert odd["status"]["state"] == "online"
    assert odd["status"]["sync"] == {"group": "lobby", "program_hash": LOBBY_B, "cycle_ms": 30_000}
    [problem] = differ_problems(odd)
    assert "sync group lobby" in problem["message"] and LOBBY_B[:8] in problem["message"]
    assert f"First, Second run {LOBBY_A[:8]}" in problem["message"]
    assert "Third runs " + LOBBY_B[:8] in differ_problems(item(ctl, "first"))[0]["message"]
    listed = {i["id"]: i for i in ctl.get("/bff/v1/displays").json()["items"]}
    assert [i for i in listed if differ_problems(listed[i])] == ["first", "second", "third"]
    assert listed["unset"]["status"]["sync"]["group"] is None and listed["older"]["status"]["sync"] is None
    # ?group= filters the items, never the sync groups
    filtered = ctl.get("/bff/v1/displays", params={"group": "nowhere"}).json()
    assert filtered["items"] == [] and [g["group"] for g in filtered["syncGroups"]] == ["cafe", "lobby"]

    # the odd one takes the group's program: every member hears it at once (the events), the mark clears
    opened, cleared = threading.Event(), threading.Event()

    def listen() -> None:
        with httpx.Client(verify=ctl.ssl_context(), timeout=httpx.Timeout(5, read=60)) as client:
            with connect_sse(client, "GET", ctl.url + "/bff/v1/fleet/events") as source:
                opened.set()
                for event in source.iter_sse():  # the stored states first: first's is marked
                    if event.event == "status" and event.json()["id"] == "first" and not differ_problems(event.json()):
                        cleared.set()
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(30)
    in_sync_group(third, "lobby", LOBBY_A)
    wait_for(lambda: not sync_group(ctl, "lobby")["programsDiffer"], timeout=30, what="the lobby agreeing")
    assert not any(differ_problems(item(ctl, name)) for name in ("first", "second", "third"))
    listener.join(30)
    assert cleared.is_set(), "no event cleared the mark on a member whose own status did not change"
    # it differs again, then stops answering: a display that does not answer is no member
    in_sync_group(third, "lobby", LOBBY_B)
    wait_for(lambda: sync_group(ctl, "lobby")["programsDiffer"], timeout=30, what="the lobby differing again")
    third.stop()
    state_of(ctl, "third", "unreachable")
    assert sync_group(ctl, "lobby")["displayIds"] == ["first", "second"]
    assert not differ_problems(item(ctl, "first")) and item(ctl, "third")["status"]["sync"] is None
    # a member removed from the fleet leaves the group
    third.start()
    wait_for(lambda: sync_group(ctl, "lobby")["programsDiffer"], timeout=30, what="the lobby differing again")
    assert ctl.request("DELETE", "/bff/v1/displays/third").status_code == 204
    assert sync_group(ctl, "lobby")["programsDiffer"] is False and not differ_problems(item(ctl, "second"))


def test_each_display_shows_its_clock_offset_from_the_controller(ctl, clean, fakes):
    offsets = {"ahead": 2.5, "behind": -3.0, "same": 0.0}
    for name, offset_s in offsets.items():
        fake = fakes()
        fake.clock_offset_s = offset_s
        assert put(ctl, name, name=name, baseUrl=fake.url).status_code == 201
    for name, offset_s in offsets.items():
        clock = wait_for(lambda: item(ctl, name)["status"]["clock"], timeout=30, what=f"{name}'s clock")
        # the Date header has whole seconds: the offset is known within error_ms (about a second)
        assert 1000 <= clock["error_ms"] < 6000, clock
        assert abs(clock["offset_ms"] - offset_s * 1000) <= clock["error_ms"], (name, clock)
        assert item(ctl, name)["status"]["problems"] == []  # within a minute: no clock_off


def test_a_display_that_sends_its_clock_in_milliseconds_is_read_from_it_not_from_date(ctl, clean, fakes):
    """This release's display sends X-Svc-Clock-Ms on /v1/health: the offset is read from it,
    within half the round trip, and the Date header (here an hour off) is not used."""
    fake = fakes()
    fake.sends_clock_ms = True
    fake.clock_offset_s = 2.345
    fake.date_skew_s = 3600
    assert put(ctl, "precise", name="Precise", baseUrl=fake.url).status_code == 201
    clock = wait_for(lambda: item(ctl, "precise")["status"]["clock"], timeout=30, what="the display's clock")
    assert abs(clock["offset_ms"] - 2345) <= clock["error_ms"] + 1, clock
    assert item(ctl, "precise")["status"]["problems"] == []  # Date would say an hour: clock_off
    fake.sends_clock_ms = False  # an older release: Date it is
    wait_for(lambda: item(ctl, "precise")["status"]["problems"], timeout=30, what="the Date's clock_off")
    assert item(ctl, "precise")["status"]["problems"][0]["code"] == "clock_off"
