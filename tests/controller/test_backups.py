"""Backup targets and snapshots against a real controller (SQLite and PostgreSQL) and a real display
(its backup routes, CONTRACT "Maintenance", serve the pulls and restores)."""
from __future__ import annotations

import datetime as dt
import hashlib
import os
import threading
import time
import uuid
from contextlib import ExitStack
from zoneinfo import ZoneInfo

import psycopg2
import pytest
import requests

from svc_display.testing import ServerProcess, closed_port
from svc_display.testing.memory import MIB, peak_rss, reset_peak, rss
from svc_display.testing.databases import throwaway_pg_database
from tests.controller.archives import make_archive, svc_database
from tests.controllers import ControllerProcess, display_env, running, start_display
from tests.controller.upstream import Upstream
from tests.maintenance.archives import (
    HUGE_MANIFEST,
    backup,
    build_tgz,
    build_zip,
    future_database,
    hostile_cases,
    manifest_for,
    members_of,
    with_files,
)
from svc_display.testing import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]

ZONE = "Europe/Paris"
API_KEY = "svc_" + "K3yN0tT0B3Se3n" * 3
WEEK_MS = 7 * 24 * 3600 * 1000


@pytest.fixture(scope="module")
def setup(tmp_path_factory, module_database_url):
    root = tmp_path_factory.mktemp("backups")
    env = {"TZ": ZONE}
    if module_database_url:
        env["SVC_CONTROLLER_DATABASE_URL"] = module_database_url
    controller = ControllerProcess(root / "ctl" / "data", env)
    display = start_display(root / "display")
    with running(display, controller):
        controller.start()
        yield {"ctl": controller, "display": display, "key": display.key("admin"), "root": root,
               "database_url": module_database_url}


def put(ctl, **body):
    return ctl.request("PUT", "/bff/v1/backup-targets", json=body)


def target(ctl, target_id):
    r = ctl.get(f"/bff/v1/backup-targets/{target_id}")
    assert r.status_code == 200, r.text
    return r.json()


def snapshots(ctl, target_id):
    r = ctl.get(f"/bff/v1/backup-targets/{target_id}/snapshots")
    assert r.status_code == 200, r.text
    return r.json()["items"]


@pytest.fixture
def own_ctl(tmp_path, module_database_url):
    """A controller of its own on the module's backend (on PostgreSQL a database of its own):
    for tests that need an empty scope or stop and start the controller."""
    with ExitStack() as stack:
        env = {"TZ": ZONE}  # the controller's zone, as the machine tells it
        if module_database_url:
            env["SVC_CONTROLLER_DATABASE_URL"] = stack.enter_context(throwaway_pg_database("svc_c_"))
        ctl = ControllerProcess(tmp_path / "data", env)
        stack.enter_context(running(ctl))
        ctl.start()
        yield ctl


def test_new_targets_get_sunday_2am_staggered_by_5_minutes_and_keep_it_across_a_restart(own_ctl):
    ctl = own_ctl
    first = put(ctl, displayId="lobby", baseUrl="https://192.168.1.20:8787")
    second = put(ctl, displayId="cafeteria", baseUrl="https://192.168.1.21:8787")
    assert (first.status_code, second.status_code) == (201, 201)
    one, two = first.json(), second.json()
    assert (one["cronExpr"], two["cronExpr"]) == ("0 2 * * 0", "5 2 * * 0")
    assert one["timezone"] == two["timezone"] == ZONE
    for item, minute in ((one, 0), (two, 5)):
        at = dt.datetime.fromisoformat(item["nextRunAt"])
        local = at.astimezone(ZoneInfo(ZONE))
        assert (local.weekday(), local.hour, local.minute) == (6, 2, minute)
        assert at.utcoffset() == local.utcoffset()  # written in the target's zone
        assert dt.timedelta(0) < at - dt.datetime.now(dt.timezone.utc) <= dt.timedelta(days=7)
        assert item["retentionCount"] == 7 and item["enabled"] is True and item["lastRun"] is None
        assert item["apiKeyConfigured"] is False
    ctl.stop()
    ctl.start()
    assert [t["nextRunAt"] for t in ctl.get("/bff/v1/backup-targets").json()["items"]] == [
        one["nextRunAt"], two["nextRunAt"]]


def test_runs_missed_while_the_controller_was_down_are_pulled_once_after_it_restarts(setup, own_ctl):
    ctl, display, key = own_ctl, setup["display"], setup["key"]
    made = put(ctl, displayId="missed", baseUrl=display.url, apiKey=key, retentionCount=10).json()
    first_due = dt.datetime.fromisoformat(made["nextRunAt"]).timestamp() * 1000
    ctl.stop()
    # three weekly runs go by while the controller is down (an hour past the third)
    ctl.advance_clock(int(first_due - ctl.now_ms()) + 2 * WEEK_MS + 3600_000)
    restarted = ctl.now_ms()
    ctl.start()
    last = wait_for(lambda: target(ctl, made["id"])["lastRun"], what="the missed run")
    assert last["status"] == "succeeded" and last["source"] == "scheduled" and last["error"] is None, last
    assert dt.datetime.fromisoformat(last["startedAt"]).timestamp() * 1000 >= restarted - 1000  # whole seconds
    # the schedule goes on from now: the next run is the coming Sunday 02:00, none is left due
    next_run = dt.datetime.fromisoformat(target(ctl, made["id"])["nextRunAt"])
    assert 0 < next_run.timestamp() * 1000 - ctl.now_ms() <= WEEK_MS
    local = next_run.astimezone(ZoneInfo(ZONE))
    assert (local.weekday(), local.hour, local.minute) == (6, 2, 0)
    time.sleep(1)  # room for a wrongly started second pull (scheduler ticks every 200 ms)
    kept = snapshots(ctl, made["id"])
    assert [(s["id"], s["source"]) for s in kept] == [(last["snapshotId"], "scheduled")]
    assert ctl.log.count(f"backup pull of target {made['id']}") == 1
    # nor was another missed run found due (and skipped) while this pull ran
    assert f"backup of target {made['id']} still running" not in ctl.log


@pytest.mark.parametrize("body, field", [
    ({"baseUrl": "https://10.0.0.2"}, "displayId"),
    ({"displayId": "", "baseUrl": "https://10.0.0.2"}, "displayId"),
    ({"displayId": "x"}, "baseUrl"),
    ({"displayId": "x", "baseUrl": "gopher://10.0.0.2"}, "baseUrl"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "cronExpr": "0 2 * *"}, "cronExpr"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "cronExpr": "0 2 * * 0 2027"}, "cronExpr"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "cronExpr": "61 2 * * 0"}, "cronExpr"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "timezone": "Europe/Nowhere"}, "timezone"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "retentionCount": 0}, "retentionCount"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "retentionCount": 366}, "retentionCount"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "retentionCount": "7"}, "retentionCount"),
    ({"displayId": "x", "baseUrl": "https://10.0.0.2", "enabled": "yes"}, "enabled"),
])
def test_invalid_targets_are_refused_and_change_nothing(setup, body, field):
    ctl = setup["ctl"]
    before = ctl.get("/bff/v1/backup-targets").json()
    r = put(ctl, **body)
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "validation_failed" and field in r.json()["details"]
    assert ctl.get("/bff/v1/backup-targets").json() == before


def test_upsert_by_display_id_and_the_api_key_is_never_returned_stored_or_logged(setup):
    ctl = setup["ctl"]
    display_id = f"hall-{uuid.uuid4().hex[:6]}"
    r = put(ctl, displayId=display_id, baseUrl="https://127.0.0.3:9", apiKey=API_KEY, cronExpr="30 3 * * 1-5",
            timezone="America/New_York", retentionCount=3, enabled=False)
    assert r.status_code == 201
    created = r.json()
    assert set(created) == {"id", "displayId", "baseUrl", "cronExpr", "timezone", "retentionCount", "enabled",
                            "apiKeyConfigured", "nextRunAt", "lastRun", "fleetDisplayId"}
    assert created["apiKeyConfigured"] is True and created["nextRunAt"] is None
    r = put(ctl, displayId=display_id, baseUrl="https://127.0.0.4:9", enabled=True)
    assert r.status_code == 200
    updated = r.json()
    assert updated["id"] == created["id"] and updated["baseUrl"] == "https://127.0.0.4:9"
    assert (updated["cronExpr"], updated["timezone"], updated["retentionCount"]) == (
        "30 3 * * 1-5", "America/New_York", 3)
    assert updated["apiKeyConfigured"] is True  # an absent apiKey keeps the stored one
    local = dt.datetime.fromisoformat(updated["nextRunAt"]).astimezone(ZoneInfo("America/New_York"))
    assert (local.hour, local.minute) == (3, 30) and local.weekday() < 5
    everything = [ctl.get("/bff/v1/backup-targets").text, ctl.get(f"/bff/v1/backup-targets/{created['id']}").text,
                  ctl.get("/bff/v1/openapi.json").text]
    assert not any(API_KEY in text for text in everything)
    assert API_KEY not in ctl.log
    # at rest: not in the database, in any form the driver stores it
    if setup["database_url"]:
        with psycopg2.connect(setup["database_url"]) as conn, conn.cursor() as cursor:
            cursor.execute("SELECT string_agg(t::text, '|') FROM ctl_backup_target t")
            dump = cursor.fetchone()[0]
        assert API_KEY not in dump and "gAAAA" in dump  # a Fernet token is there instead
    else:
        data = ctl.data_dir
        raw = b"".join(p.read_bytes() for p in data.glob("svc_controller.sqlite3*"))
        assert API_KEY.encode() not in raw and b"gAAAA" in raw
    key_file = ctl.data_dir / "controller-secrets.key"
    if key_file.exists():
        assert key_file.stat().st_mode & 0o777 == 0o600
    # null clears the key
    assert put(ctl, displayId=display_id, baseUrl="https://127.0.0.4:9", apiKey=None).json()[
        "apiKeyConfigured"] is False


def test_null_optional_fields_take_their_defaults_on_a_new_target_and_keep_the_stored_ones_on_update(setup):
    ctl = setup["ctl"]
    display_id = f"nulls-{uuid.uuid4().hex[:6]}"
    base = "https://127.0.0.6:9"
    r = put(ctl, displayId=display_id, baseUrl=base, apiKey=None, cronExpr=None, timezone=None,
            retentionCount=None, enabled=None)
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["enabled"] is True and created["retentionCount"] == 7 and created["timezone"] == ZONE
    assert created["apiKeyConfigured"] is False and created["nextRunAt"] is not None
    assert put(ctl, displayId=display_id, baseUrl=base, enabled=False).json()["enabled"] is False
    r = put(ctl, displayId=display_id, baseUrl=base, enabled=None, retentionCount=None)
    assert r.status_code == 200 and r.json()["enabled"] is False and r.json()["retentionCount"] == 7
    assert ctl.request("DELETE", f"/bff/v1/backup-targets/{created['id']}").status_code == 204


def test_uploads_verify_retention_keeps_the_newest_and_downloads_stream_the_file(setup):
    ctl = setup["ctl"]
    made = put(ctl, displayId=f"up-{uuid.uuid4().hex[:6]}", baseUrl="https://127.0.0.5:9", retentionCount=2,
               enabled=False).json()
    tid = made["id"]
    archives = [make_archive({"db/svc_display.sqlite3": svc_database(f"db {i}")}, kind=kind, schema_version=3)
                for i, kind in enumerate(("tgz", "zip", "tgz"))]
    stored = []
    for archive in archives:
        r = ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=archive,
                        headers={"Content-Type": "application/octet-stream"})
        assert r.status_code == 201, r.text
        stored.append(r.json())
        time.sleep(0.01)
    assert stored[0]["bytes"] == len(archives[0]) and stored[0]["sha256"] == hashlib.sha256(archives[0]).hexdigest()
    assert stored[0]["source"] == "upload" and stored[0]["schemaVersion"] == 3 and stored[0]["targetId"] == tid
    kept = snapshots(ctl, tid)
    assert [s["id"] for s in kept] == [stored[1]["id"], stored[2]["id"]]  # the oldest is gone
    folder = ctl.data_dir / "backups" / tid
    assert len(list(folder.iterdir())) == 2
    assert ctl.get(f"/bff/v1/backup-snapshots/{stored[0]['id']}").status_code == 404
    with ctl.get(f"/bff/v1/backup-snapshots/{stored[1]['id']}/download", stream=True) as r:
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/zip"
        assert r.headers["Content-Disposition"].startswith("attachment; filename=")
        assert b"".join(r.iter_content(8192)) == archives[1]
    for file in folder.iterdir():
        assert file.stat().st_mode & 0o777 == 0o600
    # bad archives are refused and store nothing
    for bad in (make_archive(tamper="db/svc_display.sqlite3"), make_archive(extra={"evil.sh": b"#!"}),
                make_archive({"../escape": b"x"}), b"not an archive at all"):
        r = ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=bad)
        assert r.status_code == 400 and r.json()["code"] == "invalid_backup_archive", r.text
    assert len(snapshots(ctl, tid)) == 2 and len(list(folder.iterdir())) == 2
    # a stored file that went missing is a 404, not a 500
    moved = folder / "moved-away"
    stored_file = next(p for p in folder.iterdir() if p.name.startswith(stored[1]["id"]))
    stored_file.rename(moved)
    for method, path in (("GET", "download"), ("POST", "restore")):
        r = ctl.request(method, f"/bff/v1/backup-snapshots/{stored[1]['id']}/{path}")
        assert r.status_code == 404 and r.json()["code"] == "not_found", path
    moved.rename(stored_file)
    # lowering the retention prunes at once
    put(ctl, displayId=made["displayId"], baseUrl=made["baseUrl"], retentionCount=1)
    assert [s["id"] for s in snapshots(ctl, tid)] == [stored[2]["id"]]
    # delete one snapshot, then the target with the rest
    assert ctl.request("DELETE", f"/bff/v1/backup-snapshots/{stored[2]['id']}").status_code == 204
    assert snapshots(ctl, tid) == [] and list(folder.iterdir()) == []
    ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=archives[0])
    assert ctl.request("DELETE", f"/bff/v1/backup-targets/{tid}").status_code == 204
    assert not folder.exists()
    for path in (f"/bff/v1/backup-targets/{tid}", f"/bff/v1/backup-targets/{tid}/snapshots"):
        assert ctl.get(path).json()["code"] == "not_found"
    assert ctl.request("DELETE", f"/bff/v1/backup-targets/{tid}").status_code == 404
    assert ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=archives[0]).status_code == 404


def test_uploads_run_the_displays_restore_checks_in_bounded_memory(setup, tmp_path):
    """Every hostile archive the display's restore refuses, the controller's upload refuses too, with
    the same ``details.reason`` (one checker, svc_host/backup_archive/), and keeps nothing; a
    manifest of 62 MiB or nesting 200,000 deep costs the controller under 64 MiB of peak RSS
    and leaves under 16 MiB behind."""
    ctl, display, key = setup["ctl"], setup["display"], setup["key"]
    tid = put(ctl, displayId=f"hostile-{uuid.uuid4().hex[:6]}", baseUrl="https://127.0.0.5:9",
              enabled=False).json()["id"]
    good = members_of(backup(display, key, "zip"))
    good.pop("manifest.json")
    cases = hostile_cases(good, tmp_path)
    schema = display.get("/v1/health").json()["schema_version"]
    future = with_files(good, **{"db/svc_display.sqlite3": future_database(good["db/svc_display.sqlite3"], tmp_path)})
    cases["newer_migration"] = (build_zip(future, manifest=manifest_for(future, schema_version=schema)),
                                "backup_too_new")
    cases["newer_schema_version"] = (build_tgz(good, manifest=manifest_for(good, schema_version=schema + 1)),
                                     "backup_too_new")
    padded = with_files(good, **{"media/pad.bin": os.urandom(1536 * 1024)})
    cases["huge_manifest"] = (build_zip(padded, manifest=HUGE_MANIFEST), "manifest_invalid")
    folder = ctl.data_dir / "backups" / tid
    # the first check loads the installed build's migrations once (about 11 MiB): not the archives' cost
    warm = ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=b"not an archive")
    assert warm.json()["details"]["reason"] == "not_an_archive", warm.text
    start = reset_peak(ctl.process.pid)
    for name, (body, reason) in cases.items():
        r = ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=body,
                        headers={"Content-Type": "application/octet-stream"})
        assert r.status_code == 400 and r.json()["code"] == "invalid_backup_archive", (name, r.text)
        assert r.json()["details"]["reason"] == reason, (name, r.text)
        assert snapshots(ctl, tid) == [] and list(folder.iterdir()) == [], name
    grown, kept = peak_rss(ctl.process.pid) - start, rss(ctl.process.pid) - start
    assert grown < 64 * MIB and kept < 16 * MIB, (grown / MIB, kept / MIB)
    # the display's own backup is kept
    r = ctl.request("POST", f"/bff/v1/backup-targets/{tid}/upload", data=build_tgz(good))
    assert r.status_code == 201 and r.json()["schemaVersion"] == 1, r.text


def test_pull_now_stores_a_verified_snapshot_and_a_restore_brings_the_data_back(setup):
    ctl, display, key = setup["ctl"], setup["display"], setup["key"]
    # by host name: resolved, checked, pinned (Host and SNI keep the name)
    made = put(ctl, displayId=f"pull-{uuid.uuid4().hex[:6]}", baseUrl=f"https://localhost:{display.port}",
               apiKey=key).json()
    before = f"kept-{uuid.uuid4().hex[:6]}"
    assert display.request("POST", "/v1/screens", key=key, json={
        "id": before, "screen_type": "message", "config_json": {"title": "a", "body": "b"}}).status_code == 201
    r = ctl.request("POST", f"/bff/v1/backup-targets/{made['id']}/pull-now")
    assert r.status_code == 201, r.text
    snap = r.json()
    assert snap["source"] == "manual" and isinstance(snap["schemaVersion"], int)
    body = ctl.get(f"/bff/v1/backup-snapshots/{snap['id']}/download").content
    assert hashlib.sha256(body).hexdigest() == snap["sha256"] and len(body) == snap["bytes"]
    last = target(ctl, made["id"])["lastRun"]
    assert last["status"] == "succeeded" and last["snapshotId"] == snap["id"] and last["error"] is None
    after = f"gone-{uuid.uuid4().hex[:6]}"
    display.request("POST", "/v1/screens", key=key, json={
        "id": after, "screen_type": "message", "config_json": {"title": "c", "body": "d"}})
    r = ctl.request("POST", f"/bff/v1/backup-snapshots/{snap['id']}/restore")
    assert r.status_code == 202 and r.json() == {"restarting": True}, r.text
    assert display.process.wait(60) == 75
    display.start(timeout=60)
    assert display.get(f"/v1/screens/{before}", key=key).status_code == 200
    assert display.get(f"/v1/screens/{after}", key=key).status_code == 404


def test_a_scheduled_pull_of_a_down_display_records_the_error_and_the_next_runs_succeed_with_retention(setup):
    ctl, root = setup["ctl"], setup["root"]
    with closed_port() as port:  # refused, and no other program's, until the display starts on it
        late = ServerProcess(display_env(root / f"late-{port}" / "data", SVC_DISPLAY_HTTP_PORT=str(port)))
        made = put(ctl, displayId=f"late-{port}", baseUrl=late.url, apiKey="svc_not_yet").json()
        first_run = dt.datetime.fromisoformat(made["nextRunAt"]).timestamp() * 1000
        ctl.advance_clock(int(first_run - ctl.now_ms()) + 1000)
        failed = wait_for(lambda: target(ctl, made["id"])["lastRun"], what="the first scheduled run")
        assert failed["status"] == "failed" and failed["source"] == "scheduled" and failed["snapshotId"] is None
        assert "unreachable" in failed["error"]
        after = target(ctl, made["id"])
        assert dt.datetime.fromisoformat(after["nextRunAt"]).timestamp() * 1000 > ctl.now_ms()  # tried again next week
        assert snapshots(ctl, made["id"]) == []
    with running(late):
        late.start(timeout=60)
        key = late.key("admin")
        moved = put(ctl, displayId=made["displayId"], baseUrl=late.url, apiKey=key, retentionCount=1).json()

        def scheduled_run(previous: str | None) -> dict:
            next_run = dt.datetime.fromisoformat(target(ctl, made["id"])["nextRunAt"]).timestamp() * 1000
            ctl.advance_clock(int(next_run - ctl.now_ms()) + 1000)

            def done():
                last = target(ctl, made["id"])["lastRun"] or {}
                return last if last.get("snapshotId") not in (None, previous) else None

            last = wait_for(done, what="the next scheduled run")
            assert last["status"] == "succeeded" and last["source"] == "scheduled" and last["error"] is None
            return last

        assert moved["retentionCount"] == 1
        first = scheduled_run(None)
        assert [s["id"] for s in snapshots(ctl, made["id"])] == [first["snapshotId"]]
        folder = ctl.data_dir / "backups" / made["id"]
        files = [p.name for p in folder.iterdir()]
        assert len(files) == 1 and files[0].startswith(first["snapshotId"])
        # a second scheduled run: retention 1 keeps only it, row and file
        second = scheduled_run(first["snapshotId"])
        kept = snapshots(ctl, made["id"])
        assert [s["id"] for s in kept] == [second["snapshotId"]] != [first["snapshotId"]]
        assert ctl.get(f"/bff/v1/backup-snapshots/{first['snapshotId']}").status_code == 404
        files = [p.name for p in folder.iterdir()]  # the first snapshot's file is gone
        assert len(files) == 1 and files[0].startswith(second["snapshotId"])
        body = ctl.get(f"/bff/v1/backup-snapshots/{second['snapshotId']}/download").content
        assert hashlib.sha256(body).hexdigest() == kept[0]["sha256"] and len(body) == kept[0]["bytes"]
    assert key not in ctl.log


def test_pulls_of_one_target_never_overlap(setup):
    ctl = setup["ctl"]
    with Upstream() as display:
        made = put(ctl, displayId=f"busy-{uuid.uuid4().hex[:6]}", baseUrl=display.url, apiKey="svc_busy").json()
        answers = []
        first = threading.Thread(target=lambda: answers.append(ctl.request(
            "POST", f"/bff/v1/backup-targets/{made['id']}/pull-now", session=requests.Session())))
        first.start()
        assert display.job_waiting.wait(30)
        r = ctl.request("POST", f"/bff/v1/backup-targets/{made['id']}/pull-now")
        assert r.status_code == 409 and r.json()["code"] == "pull_in_progress"
        # the scheduled run that comes due meanwhile does not start a second pull either
        next_run = dt.datetime.fromisoformat(made["nextRunAt"]).timestamp() * 1000
        ctl.advance_clock(int(next_run - ctl.now_ms()) + 1000)
        wait_for(lambda: target(ctl, made["id"])["nextRunAt"] != made["nextRunAt"], what="the run to come due")
        time.sleep(1)  # room for a wrongly started second pull to reach the display
        assert display.jobs_created == 1
        display.release_jobs.set()
        first.join(60)
    assert answers[0].status_code == 502 and answers[0].json()["code"] == "backup_pull_failed"
    last = target(ctl, made["id"])["lastRun"]
    assert last["status"] == "failed" and "503" in last["error"] and last["source"] == "manual"
