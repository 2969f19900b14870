"""Curator configurations, rules, members and the active view over HTTP (spec 2.10, 4.11)."""
from datetime import datetime, timezone

import pytest
from pony import orm

from hookspecs import CuratorPredicate, hookimpl
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests.curator.members_plugin import set_clock
from hookspecs.services import CURATOR_RUNTIME, SETTINGS

pytestmark = pytest.mark.svc_display_storage


def utc_ms(*args):
    return int(datetime(*args, tzinfo=timezone.utc).timestamp() * 1000)


class FlagPredicatePlugin:
    """A third-party predicate: holds when params.flag is true; 'boom' raises."""

    @hookimpl
    def register_curator_predicates(self):
        def evaluate(state, params):
            if params.get("boom"):
                raise RuntimeError("predicate failure")
            return bool(params.get("flag"))

        return [CuratorPredicate("test_flag", "Test flag", "holds when params.flag", True, evaluate),
                CuratorPredicate("test_unimplemented", "Unimplemented", "no evaluate", False, None)]


@pytest.fixture
def curator(make_host, env):
    """The real screens, ticker and overlays plugins, with rows created through their routes."""
    host = make_host(plugins=[("flag_predicates", FlagPredicatePlugin())])
    api = Api(host, issue_key(host, "admin"))
    screens = [("s1", "Clock", True), ("s2", "Weather", True), ("s3", "News", True), ("s4", "Photos", True),
               ("s5", "Off", False)]
    for screen_id, name, enabled in screens:
        created = api.post("/v1/screens", json={"id": screen_id, "name": name, "screen_type": "message",
                                                "enabled": enabled, "config_json": {"body": name}})
        assert created.status_code == 201, created.text
    for tape_id, name in (("t1", "Time"), ("t2", "Stocks")):
        created = api.post("/v1/ticker/tapes", json={"id": tape_id, "name": name, "ticker_type": "text",
                                                     "config_json": {"text": name}})
        assert created.status_code == 201, created.text
    created = api.post("/v1/display/overlays", json={"id": "o1", "label": "Snow", "overlay_type": "shape_rain",
                                                     "enabled": True, "start_month": 1, "start_day": 1,
                                                     "end_month": 12, "end_day": 31, "config_json": {}})
    assert created.status_code in (200, 201), created.text
    set_clock(env, utc_ms(2026, 3, 4, 10, 30))  # a Wednesday
    return api


def ids(view, kind):
    return [item["id"] for item in view["effective_members"][kind]]


def test_configuration_crud(curator):
    api = curator
    body = {"id": "weekday", "name": "Weekdays", "layer": "base", "sort_order": 5,
            "rules": [{"predicate": "days_of_week", "params": {"days": ["mon", "tue", "wed", "thu", "fri"]}}],
            "members": {"screens": ["s1", {"id": "s2", "op": "add"}], "tickers": [{"id": "t2", "op": "remove"}]},
            "ticker_enabled": False, "theme_id": "ocean", "viewport_overrides": {"text_scale_screen": 1.2},
            "ticker_overrides": '{"speed": 2}'}
    created = api.post("/v1/curator/configurations", json=body)
    assert created.status_code == 201, created.text
    detail = created.json
    assert detail["layer"] == "base" and detail["sort_order"] == 5 and detail["ticker_enabled"] is False
    assert detail["ticker_overrides"] == {"speed": 2} and detail["theme_id"] == "ocean"
    assert detail["members"] == {"screens": [{"id": "s1", "op": "add"}, {"id": "s2", "op": "add"}],
                                 "tickers": [{"id": "t2", "op": "remove"}], "overlays": []}
    assert [r["predicate"] for r in detail["rules"]] == ["days_of_week"]
    assert api.get("/v1/curator/configurations/weekday").json == detail
    listed = api.get("/v1/curator/configurations").json["items"]
    assert [(c["id"], c["name"], c["layer"], c["sort_order"]) for c in listed] == [("weekday", "Weekdays", "base", 5)]
    assert api.post("/v1/curator/configurations", json=body).status_code == 409
    patched = api.patch("/v1/curator/configurations/weekday", json={"name": "Work days", "ticker_enabled": None,
                                                                    "rules": []})
    assert patched.status_code == 200
    assert patched.json["name"] == "Work days" and patched.json["ticker_enabled"] is None
    assert patched.json["rules"] == [] and len(patched.json["members"]["screens"]) == 2
    assert api.patch("/v1/curator/configurations/weekday", json={}).status_code == 400
    assert api.patch("/v1/curator/configurations/nope", json={"name": "x"}).status_code == 404
    assert api.delete("/v1/curator/configurations/weekday").status_code == 204
    assert api.get("/v1/curator/configurations/weekday").status_code == 404
    with orm.db_session:
        assert api.host.db.CuratorRule.select().count() == 0
        assert api.host.db.CuratorMember.select().count() == 0


@pytest.mark.parametrize("body,field", [
    ({"id": "x", "name": "X", "layer": "top"}, "layer"),
    ({"id": "x", "layer": "base"}, "name"),
    ({"id": "bad id", "name": "X", "layer": "base"}, "id"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "nope"}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "days_of_week", "params": {"days": ["funday"]}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "time_of_day", "params": {"start": "25:00", "end": "01:00"}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "time_of_day", "params": {"start": "08:00", "end": "08:00"}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "date_range", "params": {"start_date": "2026-05-01", "end_date": "2026-04-01"}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "date_range", "params": {}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "rules": [{"predicate": "motion_detected", "params": {"x": 1}}]}, "rules"),
    ({"id": "x", "name": "X", "layer": "base", "members": {"screens": [{"id": "s1", "op": "toggle"}]}}, "members"),
    ({"id": "x", "name": "X", "layer": "base", "members": {"screens": ["s1", "s1"]}}, "screens"),
    ({"id": "x", "name": "X", "layer": "base", "members": {"widgets": []}}, "members"),
    ({"id": "x", "name": "X", "layer": "base", "ticker_overrides": [1]}, "ticker_overrides"),
])
def test_configuration_validation(curator, body, field):
    result = curator.post("/v1/curator/configurations", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"], result.json
    assert curator.get("/v1/curator/configurations").json["items"] == []


BLANK_NAMES = [" ", "\t", "\x0c", "\x85", "\xa0", " \u2003\n\x1c ", "\u3000"]


@pytest.mark.parametrize("name", BLANK_NAMES)
def test_a_name_of_only_whitespace_is_400_on_create_and_update(curator, name):
    """A fuzzer's find: such a name answered 500 (the storage strips it to nothing and refuses it)."""
    created = curator.post("/v1/curator/configurations", json={"id": "x", "name": name, "layer": "base"})
    assert created.status_code == 400, created.text
    assert created.json["code"] == "validation_failed" and "name" in created.json["details"]
    assert curator.get("/v1/curator/configurations").json["items"] == []
    assert curator.post("/v1/curator/configurations",
                        json={"id": "x", "name": "Morning", "layer": "base"}).status_code == 201
    updated = curator.patch("/v1/curator/configurations/x", json={"name": name})
    assert updated.status_code == 400, updated.text
    assert updated.json["code"] == "validation_failed" and "name" in updated.json["details"]
    assert curator.get("/v1/curator/configurations/x").json["name"] == "Morning"


def test_rules_routes(curator):
    api = curator
    api.post("/v1/curator/configurations", json={"id": "c", "name": "C", "layer": "enhancement"})
    rule = api.post("/v1/curator/configurations/c/rules",
                    json={"predicate": "time_of_day", "params": {"start": "22:00", "end": "06:00"}})
    assert rule.status_code == 201
    rule_id = rule.json["id"]
    assert rule.json == {"id": rule_id, "predicate": "time_of_day", "params": {"start": "22:00", "end": "06:00"},
                         "negate": False, "sort_order": 0}
    patched = api.patch(f"/v1/curator/configurations/c/rules/{rule_id}", json={"negate": True})
    assert patched.status_code == 200 and patched.json["negate"] is True
    bad = api.patch(f"/v1/curator/configurations/c/rules/{rule_id}", json={"predicate": "days_of_week"})
    assert bad.status_code == 400  # the kept params do not fit the new predicate
    assert api.patch(f"/v1/curator/configurations/c/rules/{rule_id}",
                     json={"predicate": "days_of_week", "params": {"days": ["sun"]}}).status_code == 200
    assert api.patch("/v1/curator/configurations/c/rules/none", json={"negate": True}).status_code == 404
    assert api.post("/v1/curator/configurations/none/rules", json={"predicate": "display_adopted"}).status_code == 404
    assert api.post("/v1/curator/configurations/c/rules", json={"predicate": "test_flag",
                                                               "params": {"anything": [1, 2]}}).status_code == 201
    assert len(api.get("/v1/curator/configurations/c").json["rules"]) == 2
    assert api.delete(f"/v1/curator/configurations/c/rules/{rule_id}").status_code == 204
    assert api.delete(f"/v1/curator/configurations/c/rules/{rule_id}").status_code == 404
    assert len(api.get("/v1/curator/configurations/c").json["rules"]) == 1


def test_members_put_replaces(curator):
    api = curator
    api.post("/v1/curator/configurations", json={"id": "c", "name": "C", "layer": "base",
                                                "members": {"screens": ["s1"], "overlays": ["o1"]}})
    result = api.put("/v1/curator/configurations/c/members",
                     json={"screens": ["s3", {"id": "s4", "op": "remove"}], "tickers": ["t1"]})
    assert result.status_code == 200
    assert result.json == {"screens": [{"id": "s3", "op": "add"}, {"id": "s4", "op": "remove"}],
                           "tickers": [{"id": "t1", "op": "add"}], "overlays": []}
    assert api.get("/v1/curator/configurations/c").json["members"] == result.json
    assert api.put("/v1/curator/configurations/c/members", json={"screens": [5]}).status_code == 400
    assert api.put("/v1/curator/configurations/missing/members", json={}).status_code == 404


def test_active_without_configurations_shows_everything_enabled(curator):
    view = curator.get("/v1/curator/active").json
    assert view["program_controls"] == {"screens_enabled": True, "ticker_enabled": True}
    assert view["effective_members"]["screens"] == [{"id": "s1", "label": "Clock"}, {"id": "s2", "label": "Weather"},
                                                    {"id": "s3", "label": "News"}, {"id": "s4", "label": "Photos"}]
    assert ids(view, "tickers") == ["t1", "t2"] and view["effective_members"]["overlays"] == [{"id": "o1", "label": "Snow"}]
    assert view["active_configurations"] == {"exclusive": [], "base": [], "enhancements": []}


def test_layers_base_plus_enhancements_in_sort_order(curator):
    api = curator
    api.post("/v1/curator/configurations", json={"id": "base", "name": "B", "layer": "base",
                                                "members": {"screens": ["s1", "s2", "s5"]}})
    api.post("/v1/curator/configurations", json={"id": "later", "name": "E2", "layer": "enhancement", "sort_order": 2,
                                                "members": {"screens": [{"id": "s3", "op": "remove"}, "s4"]}})
    api.post("/v1/curator/configurations", json={"id": "first", "name": "E1", "layer": "enhancement", "sort_order": 1,
                                                "members": {"screens": ["s3", {"id": "s1", "op": "remove"}],
                                                            "tickers": [{"id": "t2", "op": "remove"}]},
                                                "ticker_enabled": False})
    view = api.get("/v1/curator/active").json
    assert [c["id"] for c in view["active_configurations"]["base"]] == ["base"]
    assert [c["id"] for c in view["active_configurations"]["enhancements"]] == ["first", "later"]
    # base adds -> starts empty: [s1, s2, (s5 disabled)]; E1: +s3 -s1; E2: -s3 +s4
    assert ids(view, "screens") == ["s2", "s4"]
    assert ids(view, "tickers") == ["t1"]  # base lists no ticker adds: starts from every enabled tape
    assert view["program_controls"] == {"screens_enabled": True, "ticker_enabled": False}


def test_exclusive_applies_alone(curator):
    api = curator
    api.post("/v1/curator/configurations", json={"id": "base", "name": "B", "layer": "base", "theme_id": "a",
                                                "members": {"screens": ["s1"]}})
    api.post("/v1/curator/configurations", json={"id": "enh", "name": "E", "layer": "enhancement",
                                                "members": {"screens": ["s2"]}})
    api.post("/v1/curator/configurations", json={"id": "x2", "name": "X2", "layer": "exclusive", "sort_order": 9,
                                                "members": {"screens": ["s4"]}})
    api.post("/v1/curator/configurations", json={"id": "x1", "name": "X1", "layer": "exclusive", "sort_order": 3,
                                                "members": {"screens": ["s3"]}, "screens_enabled": False})
    view = api.get("/v1/curator/active").json
    assert [c["id"] for c in view["active_configurations"]["exclusive"]] == ["x1"]
    assert view["active_configurations"]["base"] == [] and view["active_configurations"]["enhancements"] == []
    assert ids(view, "screens") == ["s3"]
    assert view["program_controls"]["screens_enabled"] is False and view["overrides"]["theme_id"] is None
    assert set(view["matching_configuration_ids"]) == {"base", "enh", "x1", "x2"}
    api.patch("/v1/curator/configurations/x1", json={"enabled": False})
    api.patch("/v1/curator/configurations/x2", json={"rules": [{"predicate": "days_of_week",
                                                                "params": {"days": ["sun"]}}]})
    view = api.get("/v1/curator/active").json
    assert view["active_configurations"]["exclusive"] == []
    assert ids(view, "screens") == ["s1", "s2"] and view["overrides"]["theme_id"] == "a"


def test_time_rules_follow_the_clock_and_timezone(curator, env):
    api = curator
    api.post("/v1/curator/configurations", json={
        "id": "night", "name": "Night", "layer": "exclusive", "members": {"screens": ["s1"]},
        "rules": [{"predicate": "time_of_day", "params": {"start": "22:00", "end": "06:00"}}]})
    api.post("/v1/curator/configurations", json={
        "id": "weekend", "name": "Weekend", "layer": "base", "members": {"screens": ["s2"]},
        "rules": [{"predicate": "days_of_week", "params": {"days": ["sat", "sun"]}}]})
    api.post("/v1/curator/configurations", json={
        "id": "march", "name": "March", "layer": "enhancement", "members": {"screens": ["s3"]},
        "rules": [{"predicate": "date_range", "params": {"start_date": "2026-03-01", "end_date": "2026-03-31"}}]})
    active = lambda: api.get("/v1/curator/active").json["matching_configuration_ids"]  # noqa: E731
    assert active() == ["march"]  # Wed 10:30 UTC
    set_clock(env, utc_ms(2026, 3, 4, 23, 15))
    assert active() == ["march", "night"]
    set_clock(env, utc_ms(2026, 3, 5, 5, 59))
    assert "night" in active()
    set_clock(env, utc_ms(2026, 3, 5, 6, 0))
    assert "night" not in active()
    set_clock(env, utc_ms(2026, 3, 7, 12, 0))  # Saturday
    assert active() == ["march", "weekend"]
    set_clock(env, utc_ms(2026, 4, 1, 12, 0))
    assert active() == []
    # 2026-03-31 23:30 UTC is already April 1st 01:30 in Berlin (CEST), and 01:30 is night
    set_clock(env, utc_ms(2026, 3, 31, 23, 30))
    assert active() == ["march", "night"]
    with orm.db_session:
        api.host.services[SETTINGS].set("display_timezone", "Europe/Berlin")
    view = api.get("/v1/curator/active").json
    assert view["timezone"] == "Europe/Berlin" and view["matching_configuration_ids"] == ["night"]


def test_state_rules_and_negate(curator):
    api = curator
    api.post("/v1/curator/configurations", json={
        "id": "adopted", "name": "A", "layer": "enhancement", "rules": [{"predicate": "display_adopted"}]})
    api.post("/v1/curator/configurations", json={
        "id": "motion", "name": "M", "layer": "enhancement", "rules": [{"predicate": "motion_detected"}]})
    api.post("/v1/curator/configurations", json={
        "id": "still", "name": "S", "layer": "enhancement",
        "rules": [{"predicate": "motion_detected", "negate": True}, {"predicate": "display_server_reachable"}]})
    api.post("/v1/curator/configurations", json={
        "id": "plugin", "name": "P", "layer": "enhancement", "rules": [{"predicate": "test_flag", "params": {"flag": True}}]})
    api.post("/v1/curator/configurations", json={
        "id": "broken", "name": "B", "layer": "enhancement", "rules": [{"predicate": "test_flag", "params": {"boom": 1}}]})
    api.post("/v1/curator/configurations", json={
        "id": "unimpl", "name": "U", "layer": "enhancement", "rules": [{"predicate": "test_unimplemented"}]})
    matching = lambda: set(api.get("/v1/curator/active").json["matching_configuration_ids"])  # noqa: E731
    assert matching() == {"adopted", "still", "plugin"}
    api.host.services[CURATOR_RUNTIME].set("motion_detected", True)
    assert matching() == {"adopted", "motion", "plugin"}
    state = api.get("/v1/curator/runtime-state").json
    assert state == {"display_adopted": True, "internet_reachable": False, "display_server_reachable": True,
                     "motion_detected": True, "beacon_detected": False}


def test_runtime_state_display_adopted_follows_clients(make_host):
    host = make_host()
    from builtin_plugins.curator.predicates import RuntimeState
    with orm.db_session:
        assert RuntimeState().snapshot(host)["display_adopted"] is False
    key = issue_key(host, "viewer")
    assert Api(host, key).get("/v1/curator/runtime-state").json["display_adopted"] is True


def test_predicate_catalog_is_honest(curator):
    items = {p["id"]: p for p in curator.get("/v1/meta/curator-state-predicates").json["items"]}
    for name in ("days_of_week", "time_of_day", "date_range", "display_adopted", "display_server_reachable",
                 "internet_reachable", "motion_detected", "beacon_detected", "runtime_signal", "test_flag"):
        assert items[name]["implemented"] is True  # the three inputs read runtime signals (issue 13)
    assert items["test_unimplemented"]["implemented"] is False
    for item in items.values():
        assert set(item) == {"id", "label", "description", "implemented"} and item["label"]


def test_permissions(curator):
    api = curator
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    body = {"id": "c", "name": "C", "layer": "base"}
    assert api.post("/v1/curator/configurations", key=viewer, json=body).status_code == 403
    assert api.post("/v1/curator/configurations", key=operator, json=body).status_code == 201
    for path in ("/v1/curator/configurations", "/v1/curator/configurations/c", "/v1/curator/active",
                 "/v1/curator/runtime-state", "/v1/meta/curator-state-predicates"):
        assert api.get(path, key=viewer).status_code == 200, path
        assert api.get(path, key="svc_bad").status_code == 401, path
    assert api.patch("/v1/curator/configurations/c", key=viewer, json={"name": "x"}).status_code == 403
    assert api.put("/v1/curator/configurations/c/members", key=viewer, json={}).status_code == 403
    assert api.post("/v1/curator/configurations/c/rules", key=viewer,
                    json={"predicate": "display_adopted"}).status_code == 403
    assert api.delete("/v1/curator/configurations/c", key=viewer).status_code == 403
    assert api.delete("/v1/curator/configurations/c", key=operator).status_code == 204


def test_active_without_member_entities(api):
    view = api.get("/v1/curator/active").json
    assert view["effective_members"] == {"screens": [], "tickers": [], "overlays": []}


def test_real_server_active(start_server):
    server = start_server()
    key = server.key("operator")
    assert server.request("POST", "/v1/curator/configurations", key=key, json={
        "id": "all", "name": "All", "layer": "base", "rules": [{"predicate": "display_adopted"}]}).status_code == 201
    view = server.request("GET", "/v1/curator/active", key=key).json()
    assert [c["id"] for c in view["active_configurations"]["base"]] == ["all"]
