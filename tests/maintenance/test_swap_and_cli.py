"""The swap survives a kill at every step (old or new data, never a mix, and the log says which);
the offline commands; backup routes absent with PostgreSQL."""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from svc_display.testing import ServerProcess
from tests import REPO
from tests.maintenance.archives import backup, members_of
from tests.maintenance.conftest import server_env, tree_digest

pytestmark = pytest.mark.slow

KILL_AT = textwrap.dedent("""
    import os, signal, sys
    limit, calls, real = int(sys.argv[1]), [0], os.replace
    def replace(a, b):
        if calls[0] == limit:
            os.kill(os.getpid(), signal.SIGKILL)  # the process dies in the middle of the swap
        calls[0] += 1
        return real(a, b)
    os.replace = replace
    from svc_host.cli import main
    sys.exit(main(["backup", "restore", sys.argv[2]]))
""")


def _screens(data_dir) -> set[str]:
    conn = sqlite3.connect(f"file:{data_dir / 'svc_display.sqlite3'}?mode=ro", uri=True)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM svc_screen")}
    finally:
        conn.close()


def _run(env: dict, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120,
                          cwd=REPO, **kwargs)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """A stopped display whose live data is newer than its backup archive."""
    folder = tmp_path_factory.mktemp("swap")
    server = ServerProcess(server_env(folder)).start(timeout=60)
    try:
        key = server.key("admin")
        body = {"screen_type": "message", "config_json": {"title": "t", "body": "b"}}
        assert server.request("POST", "/v1/screens", key=key, json={"id": "first", **body}).status_code == 201
        (server.data_dir / "media" / "kept").mkdir(parents=True)
        (server.data_dir / "media" / "kept" / "in-backup.bin").write_bytes(b"in the backup")
        archive = folder / "backup.tar.gz"
        archive.write_bytes(backup(server, key, "tgz"))
        assert server.request("POST", "/v1/screens", key=key, json={"id": "second", **body}).status_code == 201
        (server.data_dir / "media" / "kept" / "after.bin").write_bytes(b"written after the backup")
    finally:
        assert server.stop() is not None
    return server, archive


def test_a_swap_killed_at_any_step_comes_up_on_old_or_new_data(prepared, tmp_path):
    server, archive = prepared
    old = ({"first", "second"}, True)
    new = ({"first"}, False)
    outcomes = []
    for step in range(20):
        data_dir = tmp_path / f"kill-{step}" / "data"
        shutil.copytree(server.data_dir, data_dir)
        env = {**server.env, "SVC_DISPLAY_DATA_DIR": str(data_dir)}
        killed = _run(env, "-c", KILL_AT, str(step), str(archive))
        unfinished = (data_dir / "restore-staging").exists() or (data_dir / "restore-commit.json").exists()
        # the next start (here `migrate`, which starts the host like `serve` does) settles it
        start = _run(env, "-m", "svc_host", "migrate")
        assert start.returncode == 0, start.stderr
        state = (_screens(data_dir), (data_dir / "media" / "kept" / "after.bin").exists())
        assert state in (old, new), (step, state)
        assert (data_dir / "media" / "kept" / "in-backup.bin").read_bytes() == b"in the backup"
        assert not (data_dir / "restore-staging").exists() and not (data_dir / "restore-commit.json").exists()
        if killed.returncode == -9 and unfinished:
            said = "running on the restored data" if state == new else "running on the previous data"
            assert said in start.stderr, (step, start.stderr)
            outcomes.append(state)
        elif killed.returncode != -9:
            assert killed.returncode == 0, killed.stderr
            assert state == new and "running on the restored data" in killed.stderr
            break
    assert old in outcomes and new in outcomes  # killed both before and after the commit point
    assert len(outcomes) >= 4  # the swap has several steps, each one killed once


def test_offline_backup_create_and_restore(prepared, tmp_path):
    server, _archive = prepared
    data_dir = tmp_path / "offline" / "data"
    shutil.copytree(server.data_dir, data_dir)
    env = {**server.env, "SVC_DISPLAY_DATA_DIR": str(data_dir)}
    for name in ("copy.zip", "copy.tgz"):
        made = _run(env, "-m", "svc_host", "backup", "create", str(tmp_path / name))
        assert made.returncode == 0, made.stderr
        assert json.loads(made.stdout)["format"] == name[-3:]
        members = members_of((tmp_path / name).read_bytes())
        assert {"manifest.json", "db/svc_display.sqlite3", "media/kept/after.bin"} <= set(members)
    before_media = tree_digest(data_dir / "media")
    fresh = tmp_path / "fresh" / "data"
    fresh_env = {**server.env, "SVC_DISPLAY_DATA_DIR": str(fresh)}
    restored = _run(fresh_env, "-m", "svc_host", "backup", "restore", str(tmp_path / "copy.zip"))
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["restored"] is True
    assert _screens(fresh) == {"first", "second"} and tree_digest(fresh / "media") == before_media

    (tmp_path / "junk.zip").write_bytes(b"PK\x03\x04 junk")
    refused = _run(fresh_env, "-m", "svc_host", "backup", "restore", str(tmp_path / "junk.zip"))
    assert refused.returncode == 1 and json.loads(refused.stderr.strip().splitlines()[-1])["code"] == \
        "invalid_backup_archive"
    assert _screens(fresh) == {"first", "second"}


def test_restore_cli_refuses_while_a_server_runs(prepared, tmp_path):
    server, archive = prepared
    data_dir = tmp_path / "busy" / "data"
    shutil.copytree(server.data_dir, data_dir)
    running = ServerProcess({**server_env(tmp_path / "busy"), "SVC_DISPLAY_DATA_DIR": str(data_dir)}).start(60)
    try:
        out = running.cli("backup", "restore", str(archive))
        assert out.returncode == 1 and "stop the server first" in out.stderr
        assert _screens(data_dir) == {"first", "second"}
    finally:
        running.stop()


@pytest.mark.parametrize("svc_display_backend", ["postgres"], indirect=True)
def test_backup_routes_absent_with_postgresql(start_server, backend):
    server = start_server()
    key = server.key("admin")
    for method, path in (("GET", "/v1/display/backup/status"), ("POST", "/v1/display/backup/jobs?format=zip"),
                         ("POST", "/v1/display/backup/restore?confirm=yes")):
        answer = server.request(method, path, key=key)
        assert answer.status_code == 404 and answer.json()["code"] == "not_found", answer.text
    # the upgrade routes stay (here not capable: no helper script)
    answer = server.request("POST", "/v1/display/ops/upgrade", key=key, json={"download_url": "https://x.test/u"})
    assert answer.status_code == 409 and answer.json()["code"] == "upgrade_unavailable"
    assert not (server.data_dir / "backup-jobs").exists()


def test_make_run_starts_the_display_again_after_a_restore(tmp_path):
    """`make run` is a supervisor too: after exit status 75 it serves again, on the restored data."""
    import os
    import signal
    import time

    venv = os.path.dirname(os.path.dirname(sys.executable))
    # port 0: each start binds one the OS chooses and names it in <data dir>/http-port
    env = {**os.environ, **server_env(tmp_path), "SVC_DISPLAY_HTTP_PORT": "0",
           "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1"}
    probe = ServerProcess(server_env(tmp_path))
    port_file = probe.data_dir / ServerProcess.PORT_FILE
    log = open(tmp_path / "make-run.log", "wb")
    make = subprocess.Popen(["make", "-s", "-o", "install", "-C", str(REPO), "run", f"VENV={venv}"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_healthy() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert make.poll() is None, (tmp_path / "make-run.log").read_text()
            try:
                probe.url = f"https://127.0.0.1:{int(port_file.read_text())}"
                if probe.get("/v1/health", timeout=1).status_code == 200:
                    return
            except Exception:  # noqa: BLE001 - not up yet (no port file yet, or not answering)
                pass
            time.sleep(0.2)
        raise AssertionError((tmp_path / "make-run.log").read_text())

    try:
        wait_healthy()
        key = probe.key("admin")
        body = {"screen_type": "message", "config_json": {"title": "t", "body": "b"}}
        assert probe.request("POST", "/v1/screens", key=key, json={"id": "kept", **body}).status_code == 201
        archive = backup(probe, key, "zip", include_blobs=False)
        assert probe.request("POST", "/v1/screens", key=key, json={"id": "dropped", **body}).status_code == 201
        answer = probe.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=archive)
        assert answer.status_code == 202, answer.text
        time.sleep(1)
        wait_healthy()
        ids = {s["id"] for s in probe.get("/v1/screens", key=key).json()["items"]}
        assert "kept" in ids and "dropped" not in ids
        assert "starting it again" in (tmp_path / "make-run.log").read_text()
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(60)
        log.close()


def test_blobs_only_restore_keeps_the_database(prepared, tmp_path):
    server, _archive = prepared
    data_dir = tmp_path / "blobs" / "data"
    shutil.copytree(server.data_dir, data_dir)
    env = {**server.env, "SVC_DISPLAY_DATA_DIR": str(data_dir)}
    made = _run(env, "-m", "svc_host", "backup", "create", "--no-database", str(tmp_path / "media.zip"))
    assert made.returncode == 0, made.stderr
    assert "db/svc_display.sqlite3" not in members_of((tmp_path / "media.zip").read_bytes())
    media = tree_digest(data_dir / "media")
    (data_dir / "media" / "kept" / "after.bin").unlink()
    (data_dir / "media" / "stray.bin").write_bytes(b"not in the backup")
    conn = sqlite3.connect(data_dir / "svc_display.sqlite3")
    conn.execute("UPDATE svc_screen SET name = 'changed after the backup'")
    conn.commit()
    conn.close()
    restored = _run(env, "-m", "svc_host", "backup", "restore", str(tmp_path / "media.zip"))
    assert restored.returncode == 0, restored.stderr
    assert tree_digest(data_dir / "media") == media  # media replaced as a whole
    conn = sqlite3.connect(data_dir / "svc_display.sqlite3")
    assert {r[0] for r in conn.execute("SELECT name FROM svc_screen")} == {"changed after the backup"}
    conn.close()


def test_blobs_only_restore_over_http_replaces_the_media_and_keeps_the_database(tmp_path):
    server = ServerProcess(server_env(tmp_path)).start(timeout=60)
    try:
        key = server.key("admin")
        body = {"screen_type": "message", "config_json": {"title": "t", "body": "b"}}
        first = server.request("POST", "/v1/screens", key=key, json={"id": "before", **body})
        assert first.status_code == 201
        kept = server.data_dir / "media" / "kept"
        kept.mkdir(parents=True)
        (kept / "in-backup.bin").write_bytes(b"in the backup")
        archive = backup(server, key, "zip", include_database=False)
        assert not any(name.startswith("db/") for name in members_of(archive))
        media = tree_digest(server.data_dir / "media")
        # after the backup: the media change, and so does the database
        (kept / "in-backup.bin").write_bytes(b"changed after the backup")
        (kept / "stray.bin").write_bytes(b"not in the backup")
        added = server.request("POST", "/v1/screens", key=key, json={"id": "after", **body})
        assert added.status_code == 201
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=archive)
        assert answer.status_code == 202 and answer.json() == {"restarting": True}, answer.text
        assert server.process.wait(60) == 75
        server.start(timeout=60)
        assert "restore: running on the restored data" in server.log
        assert tree_digest(server.data_dir / "media") == media  # the media as a whole, as backed up
        for screen in ("before", "after"):  # the live database was kept, with what came after
            assert server.get(f"/v1/screens/{screen}", key=key).status_code == 200, screen
        previous = server.data_dir / "restore-previous"
        assert (previous / "media" / "kept" / "stray.bin").exists()
        assert not (previous / "svc_display.sqlite3").exists()
    finally:
        server.stop()
