"""REST side of the display in headless mode (in-process, SQLite and PostgreSQL)."""
from __future__ import annotations

import pytest

from svc_display.testing import issue_key
from hookspecs.services import PROGRAM_TELEMETRY


def test_navigation_is_unavailable_headless(api):
    r = api.post("/v1/display/navigation", json={"surface": "screen", "direction": "forward"})
    assert r.status_code == 503
    assert r.json["code"] == "navigation_unavailable"


@pytest.mark.parametrize("body", [
    {}, {"surface": "screen"}, {"surface": "wall", "direction": "forward"},
    {"surface": "screen", "direction": "sideways"}, {"surface": 1, "direction": "back"},
    {"surface": "screen", "direction": "back", "extra": True},
])
def test_navigation_body_is_validated(api, body):
    r = api.post("/v1/display/navigation", json=body)
    assert r.status_code == 400
    assert r.json["code"] == "validation_failed"


def test_navigation_posts_to_the_bus_when_one_exists(api, host):
    class Bus:
        def __init__(self):
            self.posted = []

        def post(self, kind, **payload):
            self.posted.append((kind, payload))

    host.display_bus = Bus()
    r = api.post("/v1/display/navigation", json={"surface": "ticker", "direction": "back"})
    assert r.status_code == 202
    assert r.json == {"surface": "ticker", "direction": "back", "queued": True}
    assert host.display_bus.posted == [("navigate", {"surface": "ticker", "direction": "back"})]


def test_navigation_and_preview_need_navigation_control(api, host):
    viewer = issue_key(host, "viewer")
    power = issue_key(host, "power_viewer")
    assert api.post("/v1/display/navigation", key=viewer,
                    json={"surface": "screen", "direction": "back"}).status_code == 403
    assert api.get("/v1/display/live-preview", key=viewer).status_code == 403
    assert api.post("/v1/display/live-preview/session", key=viewer).status_code == 403
    assert api.get("/v1/display/live-preview", key=power).status_code == 200
    assert api.post("/v1/display/navigation", json={"surface": "screen", "direction": "back"},
                    key="svc_bogus").status_code == 401


def test_live_preview_status_headless(api):
    r = api.get("/v1/display/live-preview")
    assert r.status_code == 200
    assert r.json == {"configured": False, "enabled": True, "fps": 10, "width": 720, "quality": 50}
    r = api.post("/v1/display/live-preview/session")
    assert r.status_code == 503
    assert r.json["code"] == "live_preview_unavailable"


def test_live_preview_settings_come_from_the_environment(make_host):
    from svc_display.testing import ApiClient as Api

    host = make_host({"SVC_DISPLAY_LIVE_PREVIEW_ENABLED": "0", "SVC_DISPLAY_LIVE_PREVIEW_FPS": "5",
                      "SVC_DISPLAY_LIVE_PREVIEW_WIDTH": "480", "SVC_DISPLAY_LIVE_PREVIEW_QUALITY": "90"})
    api = Api(host, issue_key(host, "admin"))
    assert api.get("/v1/display/live-preview").json == {"configured": False, "enabled": False, "fps": 5,
                                                        "width": 480, "quality": 90}
    assert not [r for _name, r in host.websocket_routes if "live-preview" in r.path]


def test_session_tickets_when_a_canvas_runs(api, host):
    host.display_bus = object()
    r = api.post("/v1/display/live-preview/session")
    assert r.status_code == 200
    assert set(r.json) == {"ticket", "expires_at_ms"}
    assert r.json["expires_at_ms"] - host.clock.now_ms() <= 30_000
    other = api.post("/v1/display/live-preview/session").json
    assert other["ticket"] != r.json["ticket"]


def test_program_telemetry_routes(api, host):
    telemetry = host.services[PROGRAM_TELEMETRY]
    for at in range(1, 21):
        telemetry.programs.append({"at_ms": at, "reason": "dwell",
                                   "slides": [{"id": f"s{at}", "screen_type": "message", "dwell_seconds": 5.0}]})
        telemetry.ticker_programs.append({"at_ms": at, "items": [{"ordinal": 0, "kind": "time", "body": "x"}]})
    r = api.get("/v1/telemetry/programs")
    assert r.status_code == 200
    assert [i["at_ms"] for i in r.json["items"]] == list(range(20, 10, -1))  # default limit 10, newest first
    assert api.get("/v1/telemetry/programs?limit=500").json["items"][-1]["at_ms"] == 1
    assert [i["at_ms"] for i in api.get("/v1/telemetry/programs?since_ms=18").json["items"]] == [20, 19, 18]
    r = api.get("/v1/telemetry/ticker-programs?limit=2")
    assert r.json["items"] == [{"at_ms": 20, "items": [{"ordinal": 0, "kind": "time", "body": "x"}]},
                               {"at_ms": 19, "items": [{"ordinal": 0, "kind": "time", "body": "x"}]}]


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "limit=abc", "since_ms=-1", "since_ms=x",
                                   "limit=" + "9" * 40])
def test_program_telemetry_query_is_validated(api, query):
    for path in ("/v1/telemetry/programs", "/v1/telemetry/ticker-programs"):
        r = api.get(f"{path}?{query}")
        assert r.status_code == 400, (path, query)
        assert r.json["code"] == "validation_failed"


def test_program_telemetry_needs_telemetry_read(api, host):
    viewer = issue_key(host, "viewer")
    assert api.get("/v1/telemetry/programs", key=viewer).status_code == 200
    assert api.get("/v1/telemetry/ticker-programs", key=viewer).status_code == 200
    assert api.get("/v1/telemetry/programs", key="").status_code == 401


def test_the_screens_and_ticker_services_list_the_enabled_rows_in_order(api, host):
    from hookspecs.services import SCREENS, TICKER

    for body in ({"id": "b", "screen_type": "message", "sort_order": 2, "config_json": {"body": "b"}},
                 {"id": "a", "screen_type": "message", "sort_order": 2, "config_json": {"body": "a"}},
                 {"id": "off", "screen_type": "message", "enabled": False, "config_json": {"body": "off"}},
                 {"id": "first", "screen_type": "clock", "sort_order": -1, "config_json": {}}):
        assert api.post("/v1/screens", json=body).status_code == 201
    assert api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": "text",
                                              "config_json": {"text": "hi"}}).status_code == 201
    screens = host.services[SCREENS].enabled()
    assert [s["id"] for s in screens] == ["first", "a", "b"]
    assert screens[1]["config_json"] == {"body": "a"}  # decoded
    assert [t["id"] for t in host.services[TICKER].enabled()] == ["t"]


def test_routes_are_in_the_openapi_document(api):
    paths = api.get("/v1/openapi.json").json["paths"]
    for path in ("/v1/display/navigation", "/v1/telemetry/programs", "/v1/telemetry/ticker-programs",
                 "/v1/display/live-preview", "/v1/display/live-preview/session"):
        assert path in paths
