"""Overlays: types, CRUD/upsert, legacy input, window rules, seed, and the active() service."""
import datetime as dt

import jsonschema
import pytest
from pony import orm

from builtin_plugins.overlays import SEED_ID, _hearts_rain_to_shape_rain
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from svc_display.testing.clock import FixedClock
from hookspecs.services import OVERLAYS, SETTINGS

pytestmark = pytest.mark.svc_display_storage

OVERLAY_TYPES = {
    "shape_rain", "birthday_confetti", "bouncing_message", "falling_images", "matrix_rain", "edge_glow",
    "floating_balloons", "cloud_drift", "static_image", "digital_clock", "analog_clock", "calendar_month",
    "calendar_upcoming", "stock_quote", "photo_slideshow", "qr_code", "plugin_template", "plugin_web",
}


def _when(*args):
    return dt.datetime(*args, tzinfo=dt.timezone.utc)


@pytest.fixture
def overlays(api):
    api.host.clock = FixedClock(_when(2026, 6, 1, 12))
    return api


def _post(api, **body):
    body.setdefault("overlay_type", "bouncing_message")
    body.setdefault("start_month", 6)
    body.setdefault("start_day", 1)
    body = {k: v for k, v in body.items() if v is not None}
    result = api.post("/v1/display/overlays", json=body)
    assert result.status_code == 200, result.text
    return result.json


def _active_ids(api, when):
    return [row["id"] for row in api.host.services[OVERLAYS].active(when)]


def test_types_schemas_and_examples(host):
    types = list(host.registries.overlay_types)
    assert {t.id for t in types} == OVERLAY_TYPES
    for item in types:
        jsonschema.Draft202012Validator.check_schema(item.config_schema)
        assert item.config_schema["additionalProperties"] is False
        assert list(jsonschema.Draft202012Validator(item.config_schema).iter_errors(item.example_config)) == []
    confetti = host.registries.overlay_types.get("birthday_confetti").config_schema
    assert set(confetti["properties"]) == {"messages", "shapes", "colors", "density", "message_interval_sec",
                                           "fall_speed", "opacity"}
    assert confetti["properties"]["shapes"]["items"] == {
        "enum": ["rect", "circle", "mix"], "x-enum-titles": {"rect": "Strips", "circle": "Dots", "mix": "Strips and dots"}}


def test_first_start_seeds_a_disabled_birthday_example_and_delete_sticks(make_host):
    host = make_host()
    api = Api(host, issue_key(host))
    seed = api.get(f"/v1/display/overlays/{SEED_ID}").json
    assert seed["enabled"] is False and seed["overlay_type"] == "birthday_confetti"
    assert (seed["start_month"], seed["start_day"], seed["repeat_annually"]) == (5, 13, True)
    assert api.delete(f"/v1/display/overlays/{SEED_ID}").status_code == 200
    again = make_host()  # a restart on the same storage
    assert Api(again, issue_key(again)).get(f"/v1/display/overlays/{SEED_ID}").status_code == 404


def test_create_upsert_patch_delete(overlays):
    created = _post(overlays, id="welcome", label="Welcome", config_json={"messages": ["Hi"]})
    assert created["overlay_type"] == "bouncing_message" and created["enabled"] is True
    assert created["repeat_annually"] is True and created["end_month"] is None
    listed = overlays.get("/v1/display/overlays").json["items"]
    assert [r["id"] for r in listed] == [SEED_ID, "welcome"]
    assert "config_json_schema" not in listed[0]
    with_schema = overlays.get("/v1/display/overlays?include_config_schema=true").json["items"]
    assert with_schema[1]["config_json_schema"]["title"] == "bouncing_message"

    replaced = _post(overlays, id="welcome", overlay_type="edge_glow", start_month=7, start_day=4,
                     config_json={"color": "#ff0000"})
    assert replaced["label"] == "" and replaced["overlay_type"] == "edge_glow"
    assert replaced["created_at_ms"] == created["created_at_ms"]
    assert len(overlays.get("/v1/display/overlays").json["items"]) == 2

    patched = overlays.patch("/v1/display/overlays/welcome", json={"enabled": False, "end_month": 7, "end_day": 6})
    assert patched.status_code == 200, patched.text
    assert patched.json["enabled"] is False and patched.json["config_json"] == {"color": "#ff0000"}
    assert (patched.json["start_month"], patched.json["end_day"]) == (7, 6)
    cleared = overlays.patch("/v1/display/overlays/welcome", json={"end_month": None, "end_day": None})
    assert cleared.json["end_month"] is None

    generated = _post(overlays, overlay_type="matrix_rain")
    assert len(generated["id"]) == 32

    assert overlays.delete("/v1/display/overlays/welcome").status_code == 200
    assert overlays.delete("/v1/display/overlays/welcome").status_code == 404
    assert overlays.patch("/v1/display/overlays/welcome", json={"enabled": True}).status_code == 404
    assert overlays.get("/v1/display/overlays/welcome").status_code == 404
    assert overlays.get("/v1/display/overlays/" + "%20" * 3).status_code == 404


def test_legacy_kind_and_messages(overlays):
    row = _post(overlays, id="love", overlay_type=None, overlay_kind="hearts_rain", start_month=2, start_day=14,
                messages_json='["Be mine", "XOXO"]', config_json={"messages": ["XOXO"], "density": 2})
    assert row["overlay_type"] == "shape_rain"
    assert row["config_json"] == {"messages": ["XOXO", "Be mine"], "density": 2, "shapes": ["heart"]}
    patched = overlays.patch("/v1/display/overlays/love", json={"messages_json": ["Hugs"]})
    assert patched.json["config_json"]["messages"] == ["XOXO", "Be mine", "Hugs"]
    bad = overlays.patch("/v1/display/overlays/love", json={"messages_json": "[1, 2]"})
    assert bad.status_code == 400 and "messages_json" in bad.json["details"]
    bad = overlays.patch("/v1/display/overlays/love", json={"messages_json": "not json"})
    assert bad.status_code == 400 and "messages_json" in bad.json["details"]
    kind_only = _post(overlays, id="kind", overlay_type=None, overlay_kind="birthday_confetti")
    assert kind_only["overlay_type"] == "birthday_confetti"


def test_hearts_rain_rows_migrate(overlays):
    db = overlays.host.db
    with orm.db_session:
        db.OverlaySchedule(id="old", overlay_type="hearts_rain", start_month=2, start_day=14, created_at_ms=1,
                           updated_at_ms=1, config_json={"density": 1})
    with orm.db_session:
        _hearts_rain_to_shape_rain(db)
    row = overlays.get("/v1/display/overlays/old").json
    assert row["overlay_type"] == "shape_rain" and row["config_json"] == {"density": 1, "shapes": ["heart"]}


@pytest.mark.parametrize("body, field", [
    ({"start_month": 13}, "start_month"),
    ({"start_month": 0}, "start_month"),
    ({"start_month": 2, "start_day": 30}, "start_day"),
    ({"start_month": 4, "start_day": 31}, "start_day"),
    ({"start_month": 2, "start_day": 29, "year_exact": 2027}, "start_day"),
    ({"end_month": 11}, "end_day"),
    ({"end_day": 3}, "end_month"),
    ({"end_month": 6, "end_day": 31}, "end_day"),
    ({"nth_week_of_month": 2}, "nth_weekday"),
    ({"nth_weekday": 2}, "nth_week_of_month"),
    ({"nth_weekday": 8, "nth_week_of_month": 1}, "nth_weekday"),
    ({"nth_weekday": 1, "nth_week_of_month": 6}, "nth_week_of_month"),
    ({"year_exact": 10 ** 12}, "year_exact"),
    ({"start_day": "first"}, "start_day"),
    ({"overlay_type": "disco_ball"}, "overlay_type"),
    ({"overlay_type": None}, "overlay_type"),
    ({"config_json": {"speed": 99}}, "config_json"),
    ({"overlay_type": "digital_clock", "config_json": {"time_zone": "Nowhere/Land"}}, "config_json"),
    ({"id": "bad id"}, "id"),
])
def test_invalid_windows_and_configs(overlays, body, field):
    payload = {"overlay_type": "bouncing_message", "start_month": 6, "start_day": 1, **body}
    payload = {k: v for k, v in payload.items() if not (k == "overlay_type" and v is None)}
    result = overlays.post("/v1/display/overlays", json=payload)
    assert result.status_code == 400, result.text
    assert result.json["code"] == "validation_failed" and field in result.json["details"]
    assert len(overlays.get("/v1/display/overlays").json["items"]) == 1  # only the seed


def test_leap_day_is_accepted_without_year_and_with_a_leap_year(overlays):
    _post(overlays, id="leap", start_month=2, start_day=29)
    _post(overlays, id="leap28", start_month=2, start_day=29, year_exact=2028)
    assert _active_ids(overlays, _when(2027, 2, 28, 12)) == ["leap"]  # Feb 29 counts as Feb 28 in 2027
    assert _active_ids(overlays, _when(2028, 2, 29, 12)) == ["leap", "leap28"]


def test_patch_window_rules_apply_to_the_merged_row(overlays):
    _post(overlays, id="x", start_month=1, start_day=31)
    result = overlays.patch("/v1/display/overlays/x", json={"start_month": 2})
    assert result.status_code == 400 and "start_day" in result.json["details"]
    result = overlays.patch("/v1/display/overlays/x", json={"nth_weekday": 3})
    assert result.status_code == 400 and "nth_week_of_month" in result.json["details"]
    assert overlays.patch("/v1/display/overlays/x", json={}).status_code == 400


def test_active_single_day_and_disabled(overlays):
    _post(overlays, id="may13", start_month=5, start_day=13)
    _post(overlays, id="off", start_month=5, start_day=13, enabled=False)
    assert _active_ids(overlays, _when(2026, 5, 13, 0)) == ["may13"]
    assert _active_ids(overlays, _when(2030, 5, 13, 23, 59)) == ["may13"]
    assert _active_ids(overlays, _when(2026, 5, 14, 0)) == []
    assert _active_ids(overlays, int(_when(2026, 5, 13, 9).timestamp() * 1000)) == ["may13"]


def test_active_spans_new_year(overlays):
    _post(overlays, id="holidays", start_month=12, start_day=24, end_month=1, end_day=2)
    assert _active_ids(overlays, _when(2026, 12, 24, 1)) == ["holidays"]
    assert _active_ids(overlays, _when(2027, 1, 1, 12)) == ["holidays"]
    assert _active_ids(overlays, _when(2027, 1, 2, 23)) == ["holidays"]
    assert _active_ids(overlays, _when(2027, 1, 3, 0)) == []
    assert _active_ids(overlays, _when(2026, 12, 23, 23)) == []


def test_active_year_exact_pins_the_window_that_starts_in_that_year(overlays):
    _post(overlays, id="nye", start_month=12, start_day=30, end_month=1, end_day=2, year_exact=2026)
    assert _active_ids(overlays, _when(2027, 1, 1, 12)) == ["nye"]
    assert _active_ids(overlays, _when(2026, 1, 1, 12)) == []
    assert _active_ids(overlays, _when(2027, 12, 31, 12)) == []


def test_active_nth_weekday(overlays):
    _post(overlays, id="thanksgiving", start_month=11, start_day=1, nth_week_of_month=4, nth_weekday=4)
    _post(overlays, id="memorial", start_month=5, start_day=1, nth_week_of_month=5, nth_weekday=1,
          end_month=5, end_day=31)
    assert _active_ids(overlays, _when(2026, 11, 26, 12)) == ["thanksgiving"]
    assert _active_ids(overlays, _when(2026, 11, 19, 12)) == []
    assert _active_ids(overlays, _when(2027, 11, 25, 12)) == ["thanksgiving"]
    assert _active_ids(overlays, _when(2026, 5, 24, 12)) == []
    assert _active_ids(overlays, _when(2026, 5, 25, 12)) == ["memorial"]  # last Monday of May 2026
    assert _active_ids(overlays, _when(2026, 5, 31, 12)) == ["memorial"]


def test_active_without_repeat_runs_in_the_creation_year_only(overlays):
    _post(overlays, id="once", start_month=7, start_day=1, repeat_annually=False)
    assert _active_ids(overlays, _when(2026, 7, 1, 12)) == ["once"]
    assert _active_ids(overlays, _when(2027, 7, 1, 12)) == []


def test_active_uses_the_display_timezone_and_the_global_switch(overlays):
    _post(overlays, id="may13", start_month=5, start_day=13)
    late_may_12_utc = _when(2026, 5, 12, 22)
    assert _active_ids(overlays, late_may_12_utc) == []
    with orm.db_session:
        overlays.host.services[SETTINGS].set("display_timezone", "Pacific/Auckland")
    assert _active_ids(overlays, late_may_12_utc) == ["may13"]
    assert _active_ids(overlays, None) == []  # the host clock says June 1
    with orm.db_session:
        overlays.host.db.KeyValue(key="display.overlay.enabled", value="false")
    assert _active_ids(overlays, late_may_12_utc) == []
    with orm.db_session:
        overlays.host.db.KeyValue.get(key="display.overlay.enabled").value = "true"
    assert _active_ids(overlays, late_may_12_utc) == ["may13"]


def test_permissions(overlays):
    viewer = issue_key(overlays.host, "viewer")
    operator = issue_key(overlays.host, "operator")
    body = {"overlay_type": "matrix_rain", "start_month": 1, "start_day": 1, "id": "m"}
    assert overlays.get("/v1/display/overlays", key=viewer).status_code == 200
    assert overlays.post("/v1/display/overlays", key=viewer, json=body).status_code == 403
    assert overlays.post("/v1/display/overlays", key=operator, json=body).status_code == 200
    assert overlays.patch("/v1/display/overlays/m", key=viewer, json={"enabled": False}).status_code == 403
    assert overlays.delete("/v1/display/overlays/m", key=viewer).status_code == 403
    assert overlays.client.simulate_get("/v1/display/overlays").status_code == 401


def test_an_overlay_without_any_date_is_active_all_year(overlays):
    """The first overlay a newcomer writes (no start_month/start_day) was a 400: now it is the
    whole year, said in the answer; with year_exact alone, that whole year; a start without an
    end is still that one day; half a start is still refused."""
    result = overlays.post("/v1/display/overlays", json={"id": "hello", "overlay_type": "bouncing_message",
                                                         "config_json": {"messages": ["Hello"]}})
    assert result.status_code == 200, result.text
    assert [result.json[k] for k in ("start_month", "start_day", "end_month", "end_day", "repeat_annually")] == \
        [1, 1, 12, 31, True]
    _post(overlays, id="only2027", start_month=None, start_day=None, year_exact=2027)
    _post(overlays, id="oneday", start_month=3, start_day=9)
    assert _active_ids(overlays, _when(2026, 1, 1, 0)) == ["hello"]
    assert _active_ids(overlays, _when(2026, 3, 9, 12)) == ["hello", "oneday"]
    assert _active_ids(overlays, _when(2027, 12, 31, 23, 59)) == ["hello", "only2027"]
    assert _active_ids(overlays, _when(2028, 7, 4, 12)) == ["hello"]
    half = overlays.post("/v1/display/overlays", json={"overlay_type": "bouncing_message", "start_day": 4})
    assert half.status_code == 400 and "start_month" in half.json["details"]
