"""Display power over the REST app (CONTRACT "Display power"), on SQLite and PostgreSQL.

The host's clock stands still at a known instant (a Wednesday) so that the state and the
next change of a schedule are exact; the display time zone is Europe/Berlin (UTC+1 in
November), so every window is read in local time.
"""
from __future__ import annotations

import datetime as dt
import subprocess
import sys
from zoneinfo import ZoneInfo

import pytest

from builtin_plugins.power import routes
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient
from svc_display.testing.clock import FixedClock

pytestmark = pytest.mark.svc_display_storage

ZONE = ZoneInfo("Europe/Berlin")
WEDNESDAY_NOON = dt.datetime(2026, 11, 25, 12, 0, tzinfo=ZONE)  # a Wednesday


def local_ms(day: int, hour: int, minute: int = 0) -> int:
    """Epoch ms of November ``day`` 2026 at ``hour:minute`` Berlin time."""
    return int(dt.datetime(2026, 11, day, hour, minute, tzinfo=ZONE).timestamp() * 1000)


@pytest.fixture
def power(make_host):
    host = make_host()
    host.clock = FixedClock(WEDNESDAY_NOON)
    admin = ApiClient(host, issue_key(host, "admin", "power-admin"))
    assert admin.put("/v1/display/settings", json={"display_timezone": "Europe/Berlin"}).status_code == 200
    return admin


def test_default_is_always_on(power):
    body = power.get("/v1/display/power").json
    assert body == {"state": "on", "reason": "default", "backend": "none", "backend_available": True,
                    "panel_state": "unknown", "next_change_at_ms": None, "schedule": [], "override": None}
    assert routes.PowerStatus().validate(body) == {}
    assert power.get("/v1/health", key="").json["display_power"] == "on"


def test_schedule_gives_state_and_next_change_in_the_display_zone(power):
    office = [{"days": ["mon", "tue", "wed", "thu", "fri"], "on": "07:00", "off": "19:00"}]
    put = power.put("/v1/display/power/schedule", json={"schedule": office})
    assert put.status_code == 200, put.text
    assert put.json == power.get("/v1/display/power").json
    assert put.json["state"] == "on" and put.json["reason"] == "schedule"
    assert put.json["next_change_at_ms"] == local_ms(25, 19)
    assert put.json["schedule"] == office
    power.host.clock.ms = local_ms(25, 19)  # off at 19:00 sharp, on again Thursday 07:00
    body = power.get("/v1/display/power").json
    assert (body["state"], body["next_change_at_ms"]) == ("off", local_ms(26, 7))
    assert power.get("/v1/health", key="").json["display_power"] == "off"
    power.host.clock.ms = local_ms(27, 20)  # Friday evening: next on is Monday 07:00
    assert power.get("/v1/display/power").json["next_change_at_ms"] == local_ms(30, 7)


def test_a_window_past_midnight_runs_into_the_next_day(power):
    late = [{"days": ["sat", "wed"], "on": "22:00", "off": "02:00"}]  # days in any order, stored mon..sun
    assert power.put("/v1/display/power/schedule", json={"schedule": late}).json["schedule"] == \
        [{"days": ["wed", "sat"], "on": "22:00", "off": "02:00"}]
    power.host.clock.ms = local_ms(26, 1, 30)  # Thursday 01:30: still Wednesday's window
    body = power.get("/v1/display/power").json
    assert (body["state"], body["next_change_at_ms"]) == ("on", local_ms(26, 2))
    power.host.clock.ms = local_ms(26, 2)
    assert power.get("/v1/display/power").json["next_change_at_ms"] == local_ms(28, 22)
    # Sunday's window runs into Monday: the week wraps
    assert power.put("/v1/display/power/schedule", json={"schedule": [
        {"days": ["sun"], "on": "23:00", "off": "01:00"}]}).status_code == 200
    power.host.clock.ms = local_ms(30, 0, 30)  # Monday 00:30
    assert power.get("/v1/display/power").json["state"] == "on"


@pytest.mark.parametrize(("schedule", "pointer"), [
    ([{"days": ["mon"], "on": "07:00", "off": "12:00"}, {"days": ["mon"], "on": "11:00", "off": "13:00"}],
     "/schedule/1"),
    ([{"days": ["sun"], "on": "22:00", "off": "03:00"}, {"days": ["mon"], "on": "02:00", "off": "05:00"}],
     "/schedule/1"),
    ([{"days": ["mon", "funday"], "on": "07:00", "off": "12:00"}], "/schedule/0/days/1"),
    ([{"days": [], "on": "07:00", "off": "12:00"}], "/schedule/0/days"),
    ([{"days": ["mon", "mon"], "on": "07:00", "off": "12:00"}], "/schedule/0/days/1"),
    ([{"days": ["tue", "fri", "tue"], "on": "07:00", "off": "12:00"}], "/schedule/0/days/2"),
    ([{"days": ["mon"], "on": "07:00", "off": "12:00"}, {"days": ["tue"], "on": "07:00", "off": "24:00"}],
     "/schedule/1/off"),
    ([{"days": ["mon"], "on": "7:00", "off": "12:00"}], "/schedule/0/on"),
    ([{"days": ["mon"], "on": "07:00", "off": "07:00"}], "/schedule/0/off"),
    ([{"days": ["mon"], "on": "07:00"}], "/schedule/0/off"),
    ([{"days": ["mon"], "on": "07:00", "off": "08:00", "color": "red"}], "/schedule/0/color"),
    (["mon 7-8"], "/schedule/0"),
    ({"days": ["mon"]}, "/schedule"),
])
def test_bad_schedules_are_400_naming_the_item_and_change_nothing(power, schedule, pointer):
    kept = [{"days": ["mon"], "on": "09:00", "off": "10:00"}]
    assert power.put("/v1/display/power/schedule", json={"schedule": kept}).status_code == 200
    answer = power.put("/v1/display/power/schedule", json={"schedule": schedule})
    assert answer.status_code == 400, answer.text
    assert answer.json["code"] == "invalid_power_schedule" and answer.json["details"]["pointer"] == pointer
    assert pointer in answer.json["message"]
    assert power.get("/v1/display/power").json["schedule"] == kept


def test_touching_windows_are_not_overlapping(power):
    split = [{"days": ["wed"], "on": "07:00", "off": "12:00"}, {"days": ["wed"], "on": "12:00", "off": "18:00"}]
    body = power.put("/v1/display/power/schedule", json={"schedule": split}).json
    assert body["state"] == "on" and body["next_change_at_ms"] == local_ms(25, 18)  # 12:00 is no change


def test_manual_override_until_next_change_explicit_or_forever(power):
    # no schedule: an override lasts until dropped
    body = power.post("/v1/display/power", json={"state": "off"}).json
    assert (body["state"], body["reason"], body["override"]) == ("off", "manual", {"state": "off", "until_ms": None})
    assert body["next_change_at_ms"] is None
    assert power.post("/v1/display/power", json={"state": "auto"}).json["reason"] == "default"
    # with a schedule: until its next change, then the schedule again
    power.put("/v1/display/power/schedule", json={"schedule": [{"days": ["wed"], "on": "07:00", "off": "19:00"}]})
    body = power.post("/v1/display/power", json={"state": "off"}).json
    assert body["override"] == {"state": "off", "until_ms": local_ms(25, 19)}
    # off until 19:00, when the schedule turns off too: the next change is next Wednesday's 07:00
    assert body["state"] == "off" and body["next_change_at_ms"] == local_ms(25, 7) + 7 * 86_400_000
    power.host.clock.ms = local_ms(25, 19)
    body = power.get("/v1/display/power").json
    assert (body["state"], body["reason"], body["override"]) == ("off", "schedule", None)
    # an explicit until_ms; the next change is the schedule's when the override ends in the same state
    power.host.clock.ms = local_ms(25, 12)
    body = power.post("/v1/display/power", json={"state": "on", "until_ms": local_ms(25, 13)}).json
    assert body["override"] == {"state": "on", "until_ms": local_ms(25, 13)}
    assert body["next_change_at_ms"] == local_ms(25, 19)
    body = power.post("/v1/display/power", json={"state": "off", "until_ms": local_ms(25, 13)}).json
    assert body["next_change_at_ms"] == local_ms(25, 13)
    # until_ms null, sent: no end, schedule or not
    body = power.post("/v1/display/power", json={"state": "off", "until_ms": None}).json
    assert body["override"] == {"state": "off", "until_ms": None} and body["next_change_at_ms"] is None


@pytest.mark.parametrize("body", [{"state": "standby"}, {}, {"state": "off", "until_ms": 1000},
                                  {"state": "auto", "until_ms": 4102444800000}, {"state": "on", "until_ms": "soon"}])
def test_bad_overrides_are_400_and_change_nothing(power, body):
    answer = power.post("/v1/display/power", json=body)
    assert answer.status_code == 400 and answer.json["code"] == "validation_failed", answer.text
    assert power.get("/v1/display/power").json["override"] is None


def test_permission_display_power(power):
    host = power.host
    viewer = ApiClient(host, issue_key(host, "viewer", "power-viewer"))
    operator = ApiClient(host, issue_key(host, "operator", "power-operator"))
    assert viewer.get("/v1/display/power").status_code == 200
    assert viewer.post("/v1/display/power", json={"state": "off"}).status_code == 403
    assert viewer.put("/v1/display/power/schedule", json={"schedule": []}).status_code == 403
    assert power.get("/v1/display/power", key="").status_code == 401
    assert operator.post("/v1/display/power", json={"state": "off"}).status_code == 200
    assert operator.put("/v1/display/power/schedule", json={"schedule": []}).status_code == 200


def test_schedule_and_override_survive_a_restart(make_host, power):
    office = [{"days": ["wed"], "on": "07:00", "off": "19:00"}]
    power.put("/v1/display/power/schedule", json={"schedule": office})
    power.post("/v1/display/power", json={"state": "off"})
    power.host.close()
    again = make_host()
    again.clock = FixedClock(WEDNESDAY_NOON)
    body = ApiClient(again, issue_key(again, "viewer", "after-restart")).get("/v1/display/power").json
    assert body["schedule"] == office and body["override"] == {"state": "off", "until_ms": local_ms(25, 19)}


@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)  # backups exist only with the default database
def test_schedule_survives_a_backup_and_restore(power, env, tmp_path, backend):
    office = [{"days": ["mon", "sun"], "on": "08:30", "off": "17:45"}]
    power.put("/v1/display/power/schedule", json={"schedule": office})
    power.host.close()
    archive = tmp_path / "backup.zip"

    def cli(environ, *args):
        done = subprocess.run([sys.executable, "-m", "svc_host", *args], env=environ, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    import os
    cli({**os.environ, **env}, "backup", "create", str(archive))
    fresh = {**os.environ, **env, "SVC_DISPLAY_DATA_DIR": str(tmp_path / "fresh")}
    cli(fresh, "backup", "restore", str(archive))
    from svc_host.config import load_settings
    from svc_host.host import build_host

    restored = build_host(load_settings(fresh))
    try:
        body = ApiClient(restored, issue_key(restored, "viewer", "restored")).get("/v1/display/power").json
        assert body["schedule"] == office
    finally:
        restored.close()


@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)
def test_without_the_settings_plugin_the_display_is_always_on_and_writes_are_503(make_host, backend):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "settings"})
    api = ApiClient(host, issue_key(host, "admin", "no-settings"))
    assert api.get("/v1/display/power").json["state"] == "on"
    assert api.get("/v1/health", key="").json["display_power"] == "on"
    for answer in (api.post("/v1/display/power", json={"state": "off"}),
                   api.put("/v1/display/power/schedule", json={"schedule": []})):
        assert answer.status_code == 503 and answer.json["code"] == "power_settings_unavailable"
