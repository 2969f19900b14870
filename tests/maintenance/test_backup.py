"""Backup jobs over HTTP against a real server process (CONTRACT "Maintenance")."""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import stat
import time

import pytest

from svc_display.testing import ServerProcess
from svc_display.testing.clock import advance_clock
from tests.maintenance.archives import backup, members_of, wait_for_job
from tests.maintenance.conftest import server_env

pytestmark = pytest.mark.slow


def _put_media(server, name: str, data: bytes) -> None:
    path = server.data_dir / "media" / "bench" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    (path.parent / (name + ".meta.json")).write_text(json.dumps({"content_type": "application/octet-stream",
                                                                 "size": len(data)}))


@pytest.mark.parametrize("fmt", ["zip", "tgz"])
def test_archive_holds_a_manifest_with_size_and_sha256_of_every_member(shared_server, fmt, tmp_path):
    server, key = shared_server, shared_server.admin
    _put_media(server, f"photo-{fmt}.jpg", os.urandom(5000))
    created = server.request("POST", f"/v1/display/backup/jobs?format={fmt}", key=key)
    assert created.status_code == 202 and set(created.json()) == {"job_id"}
    job = wait_for_job(server, key, created.json()["job_id"])
    assert set(job) == {"job_id", "status", "format", "include_database", "include_blobs", "created_at_ms",
                        "started_at_ms", "finished_at_ms", "size_bytes", "progress", "error"}
    assert job["status"] == "ready" and job["progress"] == 1 and job["format"] == fmt and job["error"] is None
    response = server.get(f"/v1/display/backup/jobs/{job['job_id']}/download", key=key)
    assert response.status_code == 200
    extension = ".zip" if fmt == "zip" else ".tar.gz"
    assert response.headers["Content-Type"] == ("application/zip" if fmt == "zip" else "application/gzip")
    assert re.fullmatch(rf'attachment; filename="svc-display-backup-\d{{8}}T\d{{6}}Z{re.escape(extension)}"',
                        response.headers["Content-Disposition"])
    assert len(response.content) == job["size_bytes"]

    members = members_of(response.content)
    manifest = json.loads(members.pop("manifest.json"))
    assert manifest["format"] == "svc-display-backup" and manifest["format_version"] == 1
    assert manifest["app"] == "svc-display" and manifest["includes"] == {"database": True, "blobs": True}
    assert manifest["schema_version"] == server.get("/v1/health").json()["schema_version"]
    assert {f["path"] for f in manifest["files"]} == set(members)
    for entry in manifest["files"]:
        assert entry["bytes"] == len(members[entry["path"]])
        assert entry["sha256"] == hashlib.sha256(members[entry["path"]]).hexdigest()
    assert f"media/bench/photo-{fmt}.jpg" in members and f"media/bench/photo-{fmt}.jpg.meta.json" in members
    # the database member is a self-contained SQLite file of this display
    db = tmp_path / "db.sqlite3"
    db.write_bytes(members["db/svc_display.sqlite3"])
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("SELECT count(*) FROM svc_applied_migration").fetchone()[0] == manifest["schema_version"]
    conn.close()
    # job files are private
    jobs_dir = server.data_dir / "backup-jobs"
    assert stat.S_IMODE(jobs_dir.stat().st_mode) == 0o700
    for path in jobs_dir.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


@pytest.mark.parametrize("flags,db,media", [({"include_blobs": False}, True, False),
                                            ({"include_database": False}, False, True)])
def test_database_only_and_blobs_only(shared_server, flags, db, media):
    server = shared_server
    _put_media(server, "only.bin", b"blob bytes")
    members = members_of(backup(server, server.admin, "tgz", **flags))
    manifest = json.loads(members["manifest.json"])
    assert manifest["includes"] == {"database": db, "blobs": media}
    assert ("db/svc_display.sqlite3" in members) is db
    assert any(name.startswith("media/") for name in members) is media


@pytest.mark.parametrize("query", ["", "format=rar", "format=zip&include_database=false&include_blobs=false",
                                   "format=zip&include_blobs=maybe"])
def test_job_query_is_validated(shared_server, query):
    response = shared_server.request("POST", f"/v1/display/backup/jobs?{query}", key=shared_server.admin)
    assert response.status_code == 400 and response.json()["code"] == "validation_failed", response.text


def test_one_job_at_a_time_others_pending_and_not_ready_downloads_409(shared_server):
    server, key = shared_server, shared_server.admin
    _put_media(server, "large.bin", os.urandom(40 * 1024 * 1024))  # makes each job take a while
    try:
        ids = [server.request("POST", "/v1/display/backup/jobs?format=tgz", key=key).json()["job_id"]
               for _ in range(3)]
        seen_pending = seen_progress = False
        not_ready_answers = []
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            # Read the latest job first: jobs run in creation order, so an earlier job still
            # running after a later one was seen running is a real overlap, not a stale read.
            jobs = [server.get(f"/v1/display/backup/jobs/{i}", key=key).json() for i in reversed(ids)][::-1]
            statuses = [j["status"] for j in jobs]
            assert statuses.count("running") <= 1, statuses
            seen_pending |= "pending" in statuses
            seen_progress |= any(j["status"] == "running" and 0 < j["progress"] < 1 for j in jobs)
            for job in jobs:
                if job["status"] in ("pending", "running") and len(not_ready_answers) < 2:
                    not_ready_answers.append(server.get(f"/v1/display/backup/jobs/{job['job_id']}/download",
                                                        key=key))
            if all(s == "ready" for s in statuses):
                break
            time.sleep(0.05)
        assert all(s == "ready" for s in statuses), statuses
        assert seen_pending
        # started in creation order, each after the previous one finished
        for earlier, later in zip(jobs, jobs[1:]):
            assert later["started_at_ms"] >= earlier["finished_at_ms"]
        assert not_ready_answers
        for answer in not_ready_answers:
            assert answer.status_code == 409 and answer.json()["code"] == "job_not_ready"
        assert seen_progress  # 40 MiB of tgz per job: progress is seen between 0 and 1
        assert all(j["progress"] == 1 for j in jobs)
    finally:
        (server.data_dir / "media" / "bench" / "large.bin").unlink()
        for i in ids:
            server.request("DELETE", f"/v1/display/backup/jobs/{i}", key=key)


def test_delete_removes_the_job_and_its_file(shared_server):
    server, key = shared_server, shared_server.admin
    job_id = server.request("POST", "/v1/display/backup/jobs?format=zip", key=key).json()["job_id"]
    wait_for_job(server, key, job_id)
    assert (server.data_dir / "backup-jobs" / f"{job_id}.zip").exists()
    assert server.request("DELETE", f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 204
    assert not list((server.data_dir / "backup-jobs").glob(job_id + "*"))
    for method, path in (("GET", job_id), ("DELETE", job_id), ("GET", f"{job_id}/download"), ("GET", "nope")):
        answer = server.request(method, f"/v1/display/backup/jobs/{path}", key=key)
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_status_and_expiry_after_24_hours(shared_server):
    server, key = shared_server, shared_server.admin
    job_id = server.request("POST", "/v1/display/backup/jobs?format=zip&include_blobs=false",
                            key=key).json()["job_id"]
    job = wait_for_job(server, key, job_id)
    status = server.get("/v1/display/backup/status", key=key).json()
    assert set(status) == {"database_path", "jobs_dir", "database_bytes", "media_bytes", "last_job"}
    assert status["database_path"] == str(server.data_dir / "svc_display.sqlite3")
    assert status["jobs_dir"] == str(server.data_dir / "backup-jobs")
    assert status["database_bytes"] > 0 and status["media_bytes"] >= 0
    assert status["last_job"] == job

    advance_clock(server.env, 23 * 3600 * 1000)
    assert server.get(f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 200
    advance_clock(server.env, 3600 * 1000)
    assert server.get(f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 404
    assert not list((server.data_dir / "backup-jobs").glob(job_id + "*"))


@pytest.mark.parametrize("role", ["operator", "power_viewer", "viewer", None])
def test_every_route_needs_display_maintenance(shared_server, role):
    server = shared_server
    key = server.key(role) if role else None
    jobs_before = sorted(p.name for p in (server.data_dir / "backup-jobs").iterdir())
    routes = [("GET", "/v1/display/backup/status"), ("POST", "/v1/display/backup/jobs?format=zip"),
              ("GET", "/v1/display/backup/jobs/" + "0" * 32), ("DELETE", "/v1/display/backup/jobs/" + "0" * 32),
              ("GET", "/v1/display/backup/jobs/" + "0" * 32 + "/download"),
              ("POST", "/v1/display/backup/restore?confirm=yes"), ("POST", "/v1/display/ops/upgrade"),
              ("GET", "/v1/display/ops/upgrade/" + "0" * 32)]
    for method, path in routes:
        answer = server.request(method, path, key=key, json={"download_url": "https://127.0.0.1/x"}
                                if path.endswith("upgrade") else None)
        expected = (403, "forbidden") if role else (401, "unauthorized")
        assert (answer.status_code, answer.json()["code"]) == expected, (method, path, answer.text)
    assert sorted(p.name for p in (server.data_dir / "backup-jobs").iterdir()) == jobs_before


def _wait_running(server, key, job_id: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = server.get(f"/v1/display/backup/jobs/{job_id}", key=key).json()
        if job["status"] == "running" and job["progress"] > 0:
            return job
        assert job["status"] in ("pending", "running"), job
        time.sleep(0.02)
    raise AssertionError(f"backup job {job_id} never ran")


def test_deleting_a_running_job_stops_it_and_leaves_no_file(shared_server):
    server, key = shared_server, shared_server.admin
    _put_media(server, "large.bin", os.urandom(40 * 1024 * 1024))  # a job that runs for a while
    jobs_dir = server.data_dir / "backup-jobs"
    try:
        job_id = server.request("POST", "/v1/display/backup/jobs?format=tgz", key=key).json()["job_id"]
        _wait_running(server, key, job_id)
        assert server.request("DELETE", f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 204
        assert server.get(f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 404
        deadline = time.monotonic() + 60  # the worker stops at its next chunk and removes its scratch files
        while list(jobs_dir.glob(job_id + "*")):
            assert time.monotonic() < deadline, list(jobs_dir.glob(job_id + "*"))
            time.sleep(0.05)
        # the worker goes on with the next job
        after = server.request("POST", "/v1/display/backup/jobs?format=zip&include_blobs=false", key=key)
        assert wait_for_job(server, key, after.json()["job_id"])["status"] == "ready"
        assert server.get(f"/v1/display/backup/jobs/{job_id}", key=key).status_code == 404
    finally:
        (server.data_dir / "media" / "bench" / "large.bin").unlink()


def test_a_job_running_at_shutdown_is_kept_as_failed(tmp_path):
    media = tmp_path / "data" / "media" / "bench"
    media.mkdir(parents=True)
    (media / "large.bin").write_bytes(os.urandom(40 * 1024 * 1024))
    server = ServerProcess(server_env(tmp_path)).start(timeout=60)
    try:
        key = server.key("admin")
        job_id = server.request("POST", "/v1/display/backup/jobs?format=tgz", key=key).json()["job_id"]
        running = _wait_running(server, key, job_id)
        assert server.stop() == 0
        jobs_dir = server.data_dir / "backup-jobs"
        assert sorted(p.name for p in jobs_dir.glob(job_id + "*")) == [f"{job_id}.json"]  # no scratch left
        saved = json.loads((jobs_dir / f"{job_id}.json").read_text())
        assert (saved["status"], saved["error"]) == ("failed", "interrupted by a restart")
        server.start(timeout=60)
        job = server.get(f"/v1/display/backup/jobs/{job_id}", key=key).json()
        assert (job["status"], job["error"]) == ("failed", "interrupted by a restart")
        assert job["started_at_ms"] == running["started_at_ms"] <= job["finished_at_ms"]
        assert server.get("/v1/display/backup/status", key=key).json()["last_job"] == job
    finally:
        server.stop()
