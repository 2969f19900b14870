"""A whole display backed up while a writer keeps writing (screens, photos added and deleted),
restored onto a fresh data dir over HTTP: the process exits 75 and comes back on the restored
data, row for row, byte for byte, with every blob a row of the snapshot names."""
from __future__ import annotations

import base64
import os
import sqlite3
import threading
import time

import pytest

from builtin_plugins.catalog.row_counts import COUNTS_TABLE
from svc_host.rest.listcache import VERSIONS_TABLE

from svc_display.testing import ServerProcess
from tests.content_media import image_bytes
from tests.maintenance.archives import members_of, wait_for_job
from tests.maintenance.conftest import database_rows, server_env, tree_digest

pytestmark = pytest.mark.slow

# Incompressible files that sort before ``manual/`` in the media folder: the archiver spends
# most of the job on them before it reaches the photos the writer deletes meanwhile.
PADDING_FILES, PADDING_BYTES = 4, 8 * 1024 * 1024
JOB_ATTEMPTS = 5


def _now_ms() -> int:
    return int(time.time() * 1000)


def _photo(server, key, color: str) -> tuple[str, str, bytes]:
    data = image_bytes("PNG", (32, 24), color)
    answer = server.request("POST", "/v1/curator/manual/photos", key=key, json={
        "category": "photos", "bytes_base64": base64.b64encode(data).decode(), "content_type": "image/png",
        "alt_text": color})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"], answer.json()["blob_key"], data


def _populate(server, key) -> dict[str, bytes]:
    """Rows of every kind; the photos' bytes by blob key."""
    def ok(response):
        assert response.status_code in (200, 201), response.text
        return response.json()

    for n in range(3):
        ok(server.request("POST", "/v1/screens", key=key, json={
            "id": f"screen-{n}", "screen_type": "message", "config_json": {"title": f"Slide {n}", "body": "text"}}))
    ok(server.request("POST", "/v1/ticker/tapes", key=key, json={
        "id": "clock", "ticker_type": "time", "config_json": {"timeFormatPreset": "24h_hm"}}))
    ok(server.request("POST", "/v1/display/overlays", key=key, json={
        "id": "spring", "overlay_type": "bouncing_message", "start_month": 3, "start_day": 20,
        "config_json": {"messages": ["Spring!"]}}))
    ok(server.request("PATCH", "/v1/integrations/stock_finnhub", key=key, json={"secrets": {"apiKey": "s3cret-key"}}))
    ok(server.request("POST", "/v1/curator/manual/jokes", key=key, json={
        "category_id": "jokes", "setup": "Why backups?", "punchline": "Because."}))
    blobs = {}
    for color in ("red", "green", "blue"):
        _id, blob_key, data = _photo(server, key, color)
        blobs[blob_key] = data
    return blobs


class Writer(threading.Thread):
    """Keeps writing over HTTP until stopped, in turn: a screen, a photo, the deletion of its
    oldest photo once it keeps more than ``KEPT`` (so a snapshot always holds photos that are
    deleted soon after). Each write is kept as (kind, sent at, answered at) in epoch ms, each
    photo's bytes by blob key; a failed write ends the thread and is kept in ``errors``."""

    KEPT = 3

    def __init__(self, server, key):
        super().__init__(daemon=True)
        self.server, self.key = server, key
        self.stop_event = threading.Event()
        self.writes: list[tuple[str, int, int]] = []
        self.errors: list[str] = []
        self.blobs: dict[str, bytes] = {}
        self.photos: list[str] = []

    def run(self) -> None:
        n = 0
        try:
            while not self.stop_event.is_set():
                kind = ("screen", "photo", "delete" if len(self.photos) > self.KEPT else "photo")[n % 3]
                sent = _now_ms()
                if kind == "screen":
                    answer = self.server.request("POST", "/v1/screens", key=self.key, json={
                        "id": f"w-{n}", "screen_type": "message", "config_json": {"title": "w", "body": "w"}})
                    assert answer.status_code == 201, answer.text
                elif kind == "photo":
                    color = f"#{n % 256:02x}{n * 7 % 256:02x}80"
                    photo_id, blob_key, data = _photo(self.server, self.key, color)
                    self.blobs[blob_key] = data
                    self.photos.append(photo_id)
                else:
                    oldest = self.photos.pop(0)
                    answer = self.server.request("DELETE", f"/v1/content/photos/{oldest}", key=self.key)
                    assert answer.status_code == 204, answer.text
                self.writes.append((kind, sent, _now_ms()))
                n += 1
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(f"write {n}: {exc!r}")

    def during(self, job: dict) -> list[str]:
        """Kinds of the writes sent and answered while ``job`` ran."""
        return [kind for kind, sent, answered in list(self.writes)
                if job["started_at_ms"] <= sent and answered <= job["finished_at_ms"]]


def _wait(predicate, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _referenced_blobs(members: dict[str, bytes], tmp_path) -> set[str]:
    """Blob keys named by a photo row of the archived database snapshot."""
    path = tmp_path / "snapshot.sqlite3"
    path.write_bytes(members["db/svc_display.sqlite3"])
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT media_blob_key FROM svc_photo")}
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["tgz", "zip"])
def test_backup_while_writing_restores_on_a_fresh_display(tmp_path, fmt):
    padding = tmp_path / "source" / "data" / "media" / "a-large"
    padding.mkdir(parents=True)
    for n in range(PADDING_FILES):
        (padding / f"{n}.bin").write_bytes(os.urandom(PADDING_BYTES))
    source = ServerProcess(server_env(tmp_path / "source")).start(timeout=60)
    writer = None
    try:
        key = source.key("admin")
        populated = _populate(source, key)
        assert source.get("/v1/screens", key=key).status_code == 200  # the list cache's run-time triggers
        writer = Writer(source, key)
        writer.start()
        _wait(lambda: len(writer.writes) >= 6 or writer.errors, "the writer's first writes")
        for _attempt in range(JOB_ATTEMPTS):
            before_rows = database_rows(source.data_dir / "svc_display.sqlite3")
            before_media = tree_digest(source.data_dir / "media")
            created = source.request("POST", f"/v1/display/backup/jobs?format={fmt}", key=key)
            assert created.status_code == 202, created.text
            job = wait_for_job(source, key, created.json()["job_id"])
            assert job["status"] == "ready", job
            if "delete" in writer.during(job):  # photos went while the job ran: the case to check
                break
        else:
            pytest.fail(f"no photo was deleted while any of {JOB_ATTEMPTS} jobs ran: {writer.writes[-10:]}")
        archive = source.get(f"/v1/display/backup/jobs/{job['job_id']}/download", key=key).content
        writer.stop_event.set()
        writer.join(30)
        assert not writer.is_alive() and writer.errors == []
        assert len(writer.during(job)) >= 1  # the job ran while the display was being written
        after_rows = database_rows(source.data_dir / "svc_display.sqlite3")
        after_media = tree_digest(source.data_dir / "media")
    finally:
        if writer is not None:
            writer.stop_event.set()
        source.stop()

    # every blob a row of the snapshot names is in the archive, byte for byte, with its metadata
    members = members_of(archive)
    blobs = {**populated, **writer.blobs}
    referenced = _referenced_blobs(members, tmp_path)
    assert referenced and referenced <= set(blobs)
    for blob_key in referenced:
        assert members.get(f"media/{blob_key}") == blobs[blob_key], blob_key
        assert f"media/{blob_key}.meta.json" in members, blob_key
    assert sum(name.startswith("media/a-large/") for name in members) == PADDING_FILES
    assert not any(".tmp-" in name for name in members)
    # objects made at run time, not by migrations, are the schema's own: the restore takes them
    snapshot = tmp_path / "snapshot.sqlite3"
    snapshot.write_bytes(members["db/svc_display.sqlite3"])
    conn = sqlite3.connect(snapshot)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'svc_screen_versions_i'"
                        ).fetchone() == (1,)
    conn.close()

    target = ServerProcess(server_env(tmp_path / "target")).start(timeout=60)
    target_key = target.key("admin")
    answer = target.request("POST", "/v1/display/backup/restore?confirm=yes", key=target_key, data=archive)
    assert answer.status_code == 202 and answer.json() == {"restarting": True}, answer.text
    assert target.process.wait(60) == 75
    target.start(timeout=60)
    try:
        assert "restore: running on the restored data" in target.log
        rows = database_rows(target.data_dir / "svc_display.sqlite3")
        # The catalog's row counters are derived (kept by triggers in each writer's transaction):
        # a counter can read 7 before and after the job and 8 in between. What the snapshot owes
        # is a counter that matches the rows it restored.
        counters = rows.pop(COUNTS_TABLE)
        assert counters
        for table, total, _suppressed in counters:
            assert total == len(rows[table]), f"{COUNTS_TABLE}: {table} counts {total}, holds {len(rows[table])}"
        rows.pop(VERSIONS_TABLE, None)  # the list cache's table versions: random, replaced on every write
        for table, before in before_rows.items():
            if table in (COUNTS_TABLE, VERSIONS_TABLE):
                continue
            after = after_rows[table]
            # rows there before the job and still there after it were in the snapshot
            assert before & after <= rows[table], f"{table}: rows that existed all along are missing"
            if before <= after:  # only added to meanwhile: nothing restored comes from elsewhere
                assert before <= rows[table] <= after, f"{table}: rows that never existed on the source"
        media = tree_digest(target.data_dir / "media")
        kept = {path for path in before_media if after_media.get(path) == before_media[path]}
        assert kept and all(media.get(path) == before_media[path] for path in kept)
        # the source's keys are rows of the restored database: they work here now
        screens = target.get("/v1/screens", key=key)
        assert screens.status_code == 200
        ids = {s["id"] for s in screens.json()["items"]}
        assert {"screen-0", "screen-1", "screen-2", "w-0"} <= ids
        photos = target.get("/v1/catalog/photos", key=key, params={"limit": 100}).json()["items"]
        assert {"blue", "green", "red"} <= {p["alt_text"] for p in photos}
        assert {p["media_blob_key"] for p in photos} == referenced
        for photo in photos:
            blob = target.get("/v1/media/blob-by-key", key=key, params={"key": photo["media_blob_key"]})
            assert blob.status_code == 200 and blob.content == blobs[photo["media_blob_key"]]
        # the integration secret was encrypted with the source's key: not configured here, nothing fails
        integration = target.get("/v1/integrations/stock_finnhub", key=key).json()
        assert integration["secrets_configured"] is False
        target.get("/v1/integrations", key=key)  # listing again adds no second line
        lines = [line for line in target.get("/v1/telemetry/integrations", key=key).json()["items"]
                 if "cannot be decrypted" in line["message"]]
        assert len(lines) == 1 and "apiKey" in lines[0]["message"] and "s3cret" not in lines[0]["message"]
        # the data from before the restore is kept until the next clean start
        assert (target.data_dir / "restore-previous" / "svc_display.sqlite3").exists()
        assert target.stop() is not None
        target.start(timeout=60)
        assert not (target.data_dir / "restore-previous").exists()
        assert target.get("/v1/screens/screen-0", key=key).status_code == 200
    finally:
        target.stop()
