"""Hostile archives: each is refused with 400 invalid_backup_archive (or 409 backup_too_new) and the
live database, media and data dir are exactly as before."""
from __future__ import annotations

import json
import os
import sqlite3
import tarfile
import zipfile

import pytest

from tests.maintenance.archives import (
    HOSTILE,
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
from svc_display.testing import ServerProcess
from svc_display.testing.memory import MIB, peak_rss, reset_peak, rss
from tests.maintenance.conftest import database_rows, server_env, tree_digest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def good(shared_server):
    """The files of a real backup of the shared server (a photo blob included)."""
    media = shared_server.data_dir / "media" / "photos"
    media.mkdir(parents=True, exist_ok=True)
    (media / "a.jpg").write_bytes(b"\xff\xd8 not really a jpeg" * 100)
    (media / "a.jpg.meta.json").write_text('{"content_type": "image/jpeg", "size": 2000}')
    files = members_of(backup(shared_server, shared_server.admin, "zip"))
    files.pop("manifest.json")
    return files


def _state(server) -> tuple:
    data_dir = server.data_dir
    return (database_rows(data_dir / "svc_display.sqlite3"), tree_digest(data_dir / "media"),
            sorted(p.name for p in data_dir.iterdir() if p.name not in ("backup-jobs",)))


@pytest.fixture(scope="module")
def cases(good, tmp_path_factory):
    return hostile_cases(good, tmp_path_factory.mktemp("hostile"))


def test_hostile_archives_are_refused_and_change_nothing(shared_server, cases):
    server, key = shared_server, shared_server.admin
    before = _state(server)
    for name in HOSTILE:
        body, reason = cases[name]
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=body,
                                headers={"Content-Type": "application/octet-stream"})
        assert answer.status_code == 400, (name, answer.text)
        assert answer.json()["code"] == "invalid_backup_archive", (name, answer.text)
        assert answer.json()["details"]["reason"] == reason, (name, answer.text)
        assert _state(server) == before, name
    assert not (server.data_dir.parent / "evil.txt").exists() and not (server.data_dir / "evil.txt").exists()
    assert server.process.poll() is None  # still serving


def test_newer_schema_is_409_backup_too_new(shared_server, good, tmp_path):
    server, key = shared_server, shared_server.admin
    before = _state(server)
    schema = server.get("/v1/health").json()["schema_version"]
    future_row = with_files(good, **{"db/svc_display.sqlite3": future_database(good["db/svc_display.sqlite3"], tmp_path)})
    for body in (build_zip(future_row, manifest=manifest_for(future_row, schema_version=schema)),
                 build_tgz(good, manifest=manifest_for(good, schema_version=schema + 1))):
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=body)
        assert answer.status_code == 409 and answer.json()["code"] == "backup_too_new", answer.text
        assert _state(server) == before


def test_a_database_with_objects_the_schema_does_not_have_is_refused(shared_server, good, tmp_path):
    """A real backup plus a view, plus a trigger of the schema's name doing something else, plus an
    index on a table of its own: each 400 unexpected_schema_object, nothing changed."""
    server, key = shared_server, shared_server.admin
    db = good["db/svc_display.sqlite3"]
    assert server.get("/v1/screens", key=key).status_code == 200  # the list cache's triggers, made at run time
    before = _state(server)
    triggers = sqlite3.connect(server.data_dir / "svc_display.sqlite3").execute(
        "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").fetchall()
    assert triggers
    name, table = triggers[0]
    changes = {
        "view": "CREATE VIEW extra_view AS SELECT 1 AS one",
        "trigger": f'DROP TRIGGER IF EXISTS "{name}"; CREATE TRIGGER "{name}" AFTER INSERT ON "{table}" '
                   f'BEGIN DELETE FROM "{table}"; END',
        "index": "CREATE TABLE extra_table (a TEXT); CREATE INDEX extra_index ON extra_table (a)",
    }
    for kind, script in changes.items():
        path = tmp_path / f"{kind}.sqlite3"
        path.write_bytes(db)
        conn = sqlite3.connect(path)
        conn.executescript(script)
        conn.close()
        files = with_files(good, **{"db/svc_display.sqlite3": path.read_bytes()})
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=build_zip(files))
        assert answer.status_code == 400, (kind, answer.text)
        assert answer.json()["details"]["reason"] == "unexpected_schema_object", (kind, answer.text)
        assert _state(server) == before, kind


def test_a_huge_manifest_costs_bounded_memory(shared_server, good):
    """A 62 MiB manifest in a small archive (under the old 64 MiB cap) is refused by its size for
    the files the archive has, before it is read whole or parsed: the server's peak resident
    memory grows by less than 64 MiB and less than 16 MiB stays behind (docs/reliability.md)."""
    server = shared_server
    before = _state(server)
    padded = with_files(good, **{"media/pad.bin": os.urandom(1536 * 1024)})  # 200 times 1.5 MB: above 62 MiB
    bodies = {"zip": build_zip(padded, manifest=HUGE_MANIFEST), "tgz": build_tgz(padded, manifest=HUGE_MANIFEST)}
    start = reset_peak(server.process.pid)
    for name, body in bodies.items():
        for _ in range(2):
            answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=server.admin, data=body)
            assert answer.status_code == 400, (name, answer.text)
            assert answer.json()["details"]["reason"] == "manifest_invalid", (name, answer.text)
    grown, kept = peak_rss(server.process.pid) - start, rss(server.process.pid) - start
    assert grown < 64 * MIB and kept < 16 * MIB, (grown / MIB, kept / MIB)
    assert _state(server) == before


def test_confirmation_is_required(shared_server, good):
    server = shared_server
    before = _state(server)
    for query in ("", "?confirm=no", "?confirm=YES"):
        answer = server.request("POST", "/v1/display/backup/restore" + query, key=server.admin,
                                data=build_zip(good))
        assert answer.status_code == 400 and answer.json()["code"] == "confirmation_required", answer.text
    assert _state(server) == before


def test_a_body_over_2_gib_is_413_before_it_is_read(shared_server):
    import http.client
    import ssl

    server = shared_server
    before = _state(server)
    context = ssl.create_default_context(cafile=server.verify)
    connection = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=30)
    connection.putrequest("POST", "/v1/display/backup/restore?confirm=yes")
    connection.putheader("Authorization", f"Bearer {server.admin}")
    connection.putheader("Content-Length", str(2 * 1024 ** 3 + 1))
    connection.endheaders()
    connection.send(b"PK\x03\x04")  # the rest never comes: the answer must not wait for it
    answer = connection.getresponse()
    assert answer.status == 413 and json.loads(answer.read())["code"] == "payload_too_large"
    connection.close()
    assert _state(server) == before


def test_a_chunked_body_is_read_too(shared_server, cases):
    """A proxy may stream the archive without Content-Length: the body is still read to its end."""
    server = shared_server
    body, reason = cases["zip_checksum"]
    before = _state(server)

    def chunks():
        for start in range(0, len(body), 4096):
            yield body[start:start + 4096]

    answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=server.admin, data=chunks())
    assert answer.status_code == 400 and answer.json()["details"]["reason"] == reason, answer.text
    assert _state(server) == before


def test_a_sparse_tar_member_is_refused(shared_server, good):
    """GNU sparse members expand holes that the decompressed stream never carries."""
    import io

    server = shared_server
    before = _state(server)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as tf:
        info = tarfile.TarInfo("media/sparse.bin")
        info.type = tarfile.GNUTYPE_SPARSE
        info.size = 0
        tf.addfile(info)
    answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=server.admin,
                            data=buffer.getvalue())
    assert answer.status_code == 400 and answer.json()["details"]["reason"] == "unexpected_member", answer.text
    assert _state(server) == before


FILE_LIMIT = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory):
    """A server that cannot write a file past 8 MiB (RLIMIT_FSIZE, set at its start by a
    sitecustomize module): writes fail with EFBIG as they would with ENOSPC on a full disk."""
    folder = tmp_path_factory.mktemp("small-disk")
    hook = folder / "fsize-limit"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        f"import resource\nresource.setrlimit(resource.RLIMIT_FSIZE, ({FILE_LIMIT}, {FILE_LIMIT}))\n")
    server = ServerProcess(server_env(folder), extra_pythonpath=[str(hook)]).start(timeout=60)
    server.admin = server.key("admin")
    yield server
    server.stop()


def test_a_disk_that_fails_while_staging_is_507_and_changes_nothing(small_disk, good):
    server, key = small_disk, small_disk.admin
    before = _state(server)
    # 10 MiB once expanded (past the file limit), far under the 200x expansion ratio
    big = bytes(9 * 1024 * 1024) + os.urandom(1024 * 1024)
    bodies = {"zip member": build_zip(with_files(good, **{"media/big.bin": big})),
              "tgz member": build_tgz(with_files(good, **{"media/big.bin": big}))}
    for what, body in bodies.items():
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=body)
        assert answer.status_code == 507, (what, answer.text)
        error = answer.json()
        assert (error["code"], error["details"]) == ("insufficient_storage", {"errno": "EFBIG"}), what
        assert "disk" in error["message"] and str(server.data_dir) not in error["message"]
        assert _state(server) == before, what
    # the upload cannot be saved: a file stands where its folder belongs
    blocker = server.data_dir / "restore-upload"
    blocker.write_bytes(b"not a folder")
    try:
        before = _state(server)
        body = build_zip(good)
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=key, data=body)
        assert answer.status_code == 507 and answer.json()["details"] == {"errno": "EEXIST"}, answer.text
        assert _state(server) == before
    finally:
        blocker.unlink()
    assert server.process.poll() is None


def test_the_4_gib_expansion_cap_holds_on_its_own(shared_server, good):
    """Archives large enough that 200 times their size is above 4 GiB, whose members declare
    more than 4 GiB: refused by the 4 GiB cap alone, before anything that size is written."""
    import io

    server = shared_server
    before = _state(server)
    padding = os.urandom(26 * 1024 * 1024)  # 200 x 26 MiB > 4 GiB: the ratio allows what follows
    declared = 1536 * 1024 * 1024  # three members of 1.5 GiB: 4.5 GiB declared
    small = b"tiny"
    files = with_files(good, **{"media/pad.bin": padding}, **{f"media/big-{n}.bin": small for n in range(3)})
    zipped = bytearray(build_zip(files, compression=zipfile.ZIP_STORED))
    # the central directory's uncompressed sizes of the three members say 1.5 GiB each
    for n in range(3):
        name = f"media/big-{n}.bin".encode()
        at = zipped.rfind(b"PK\x01\x02", 0, zipped.rfind(name))
        assert at > 0 and zipped[at + 46:at + 46 + len(name)] == name
        zipped[at + 24:at + 28] = declared.to_bytes(4, "little")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tf:
        info = tarfile.TarInfo("media/pad.bin")
        info.size = len(padding)
        tf.addfile(info, io.BytesIO(padding))
        info = tarfile.TarInfo("media/big.bin")
        info.size = 3 * declared  # the header says 4.5 GiB; the stream never gets that far
        tf.addfile(info)
    expanded = sum(len(data) for data in good.values()) + len(padding) + 3 * declared
    for name, body in (("zip", bytes(zipped)), ("tgz", buffer.getvalue())):
        assert 4 * 1024 ** 3 < expanded < 200 * len(body), name  # over 4 GiB, under the 200x ratio
        answer = server.request("POST", "/v1/display/backup/restore?confirm=yes", key=server.admin, data=body,
                                timeout=120)
        assert answer.status_code == 400, (name, answer.text)
        error = answer.json()
        assert error["details"]["reason"] == "expansion_limit", (name, error)
        assert str(4 * 1024 ** 3) in error["message"], (name, error)
        assert _state(server) == before, name
