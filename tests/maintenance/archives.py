"""Building archives by hand for restore tests: good ones, and every kind of hostile one."""
from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import stat
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any


def wait_for_job(server: Any, key: str, job_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = server.get(f"/v1/display/backup/jobs/{job_id}", key=key).json()
        if job["status"] in ("ready", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"backup job {job_id} did not finish: {job}")


def backup(server: Any, key: str, fmt: str = "zip", **flags: bool) -> bytes:
    query = "&".join([f"format={fmt}"] + [f"{k}={'true' if v else 'false'}" for k, v in flags.items()])
    created = server.request("POST", f"/v1/display/backup/jobs?{query}", key=key)
    assert created.status_code == 202, created.text
    job = wait_for_job(server, key, created.json()["job_id"])
    assert job["status"] == "ready", job
    return server.get(f"/v1/display/backup/jobs/{job['job_id']}/download", key=key).content


def members_of(archive: bytes) -> dict[str, bytes]:
    """Every member of a zip or tgz archive, by name."""
    if archive[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            return {name: zf.read(name) for name in zf.namelist()}
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tf:
        return {m.name: tf.extractfile(m).read() for m in tf.getmembers()}


def manifest_for(files: dict[str, bytes], **overrides: Any) -> dict:
    manifest = {
        "format": "svc-display-backup", "format_version": 1, "app": "svc-display", "version": "0.1.0",
        "schema_version": 1, "created_at_ms": 1, "includes": {"database": "db/svc_display.sqlite3" in files,
                                                              "blobs": True},
        "files": [{"path": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                  for name, data in files.items()],
    }
    manifest.update(overrides)
    return manifest


def build_zip(files: dict[str, bytes], manifest: dict | bytes | None = None, extra: list[tuple[zipfile.ZipInfo, bytes]] = (),
              compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """``files`` listed in the manifest (unless ``manifest`` is given: a dict, or raw bytes), plus ``extra``
    raw members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for info, data in extra:
            zf.writestr(info, data)
        zf.writestr("manifest.json", _manifest_bytes(files, manifest))
    return buffer.getvalue()


def _manifest_bytes(files: dict[str, bytes], manifest: dict | bytes | None) -> bytes:
    """``manifest`` as written: raw bytes as they are, a dict as JSON, None: the right one for ``files``."""
    if isinstance(manifest, bytes):
        return manifest
    return json.dumps(manifest if manifest is not None else manifest_for(files)).encode()


def zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def build_tgz(files: dict[str, bytes], manifest: dict | bytes | None = None, extra: list[tarfile.TarInfo] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for info in extra:
            tf.addfile(info, io.BytesIO(b"\0" * info.size) if info.isreg() else None)
        raw = _manifest_bytes(files, manifest)
        info = tarfile.TarInfo("manifest.json")
        info.size = len(raw)
        tf.addfile(info, io.BytesIO(raw))
    return buffer.getvalue()


def tar_info(name: str, kind: bytes, linkname: str = "", size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.size = size
    return info


def sqlite_bytes(tmp: Path, build: Any) -> bytes:
    """A SQLite file made by ``build(connection)``, as bytes (rollback journal, no -wal)."""
    path = tmp / f"db-{time.monotonic_ns()}.sqlite3"
    conn = sqlite3.connect(path)
    build(conn)
    conn.commit()
    conn.close()
    return path.read_bytes()


def corrupt_database(tmp: Path) -> bytes:
    """A SQLite file that opens but fails ``PRAGMA integrity_check`` (an index page scrambled)."""
    def build(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE svc_applied_migration (plugin TEXT, migration_id TEXT, applied_at_ms INTEGER)")
        conn.execute("CREATE TABLE t (a TEXT)")
        conn.execute("CREATE INDEX t_a ON t (a)")
        conn.executemany("INSERT INTO t VALUES (?)", [(f"value-{i:05d}",) for i in range(3000)])

    data = bytearray(sqlite_bytes(tmp, build))
    path = tmp / "probe.sqlite3"
    path.write_bytes(data)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 't_a'").fetchone()[0]
    conn.close()
    # the index root page is interior: scramble its cell content area (the end of the page)
    start = root * page_size - 400
    data[start:start + 300] = bytes((b * 7 + 13) % 256 for b in data[start:start + 300])
    return bytes(data)


def future_database(db: bytes, tmp: Path) -> bytes:
    """The same database with one migration this build has never heard of."""
    path = tmp / f"future-{time.monotonic_ns()}.sqlite3"
    path.write_bytes(db)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO svc_applied_migration (plugin, migration_id, applied_at_ms) "
                 "VALUES ('maintenance', 'from_the_future', 1)")
    conn.commit()
    conn.close()
    return path.read_bytes()


SYMLINK = stat.S_IFLNK | 0o777
CHAR_DEVICE = stat.S_IFCHR | 0o600


# A manifest nesting 200,000 lists deep: Python's json recurses once per level.
NESTED_MANIFEST = b"[" * 200_000 + b"]" * 200_000
# 62 MiB of ``0,``: under the old 64 MiB cap, about 32 million values (a list of 256 MB once
# parsed), compressed to some 60 KB.
HUGE_MANIFEST = b"[" + b"0," * (31 * 1024 * 1024) + b"0]"


def with_files(files: dict, **changes: bytes) -> dict:
    return {**files, **changes}


def hostile_cases(good: dict, tmp: Path) -> dict[str, tuple[bytes, str]]:
    """Hostile archives made from the files of a good backup, each with the ``details.reason`` it is refused with
    (the display's restore and the controller's upload run the same checks)."""
    zeros = b"\0" * (40 * 1024 * 1024)
    truncated_zip = build_zip(good)
    truncated_tgz = build_tgz(good)
    listed = with_files(good, **{"media/extra.bin": b"x"})
    tampered = manifest_for(good)
    tampered["files"][-1]["sha256"] = "0" * 64
    other_app = sqlite_bytes(tmp, lambda c: c.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    return {
        "zip_slip_dotdot": (build_zip(good, extra=[(zipfile.ZipInfo("../evil.txt"), b"x")]), "unsafe_path"),
        "zip_slip_media_dotdot": (build_zip(good, extra=[(zipfile.ZipInfo("media/../../evil"), b"x")]),
                                  "unsafe_path"),
        "zip_absolute": (build_zip(good, extra=[(zipfile.ZipInfo("/tmp/evil.txt"), b"x")]), "unsafe_path"),
        "tgz_slip_dotdot": (build_tgz(good, extra=[tar_info("../evil.txt", tarfile.REGTYPE, size=1)]),
                            "unsafe_path"),
        "tgz_absolute": (build_tgz(good, extra=[tar_info("/tmp/evil.txt", tarfile.REGTYPE, size=1)]), "unsafe_path"),
        "zip_symlink": (build_zip(good, extra=[(zip_info("media/link", SYMLINK), b"/etc/passwd")]), "link_member"),
        "tgz_symlink": (build_tgz(good, extra=[tar_info("media/link", tarfile.SYMTYPE, "/etc/passwd")]),
                        "link_member"),
        "tgz_hardlink": (build_tgz(good, extra=[tar_info("media/hard", tarfile.LNKTYPE, "/etc/passwd")]),
                         "link_member"),
        "tgz_device": (build_tgz(good, extra=[tar_info("media/dev", tarfile.CHRTYPE)]), "device_member"),
        "zip_device": (build_zip(good, extra=[(zip_info("media/dev", CHAR_DEVICE), b"")]), "device_member"),
        "zip_unlisted": (build_zip(listed, manifest=manifest_for(good)), "unlisted_member"),
        "tgz_unlisted": (build_tgz(listed, manifest=manifest_for(good)), "unlisted_member"),
        "zip_missing": (build_zip(good, manifest=manifest_for(listed)), "missing_member"),
        "zip_checksum": (build_zip(good, manifest=tampered), "checksum_mismatch"),
        "tgz_checksum": (build_tgz(good, manifest=tampered), "checksum_mismatch"),
        "zip_bomb": (build_zip(with_files(good, **{"media/bomb.bin": zeros})), "expansion_limit"),
        "tgz_bomb": (build_tgz(with_files(good, **{"media/bomb.bin": zeros})), "expansion_limit"),
        "zip_truncated": (truncated_zip[: len(truncated_zip) // 2], "corrupt_archive"),
        "tgz_truncated": (truncated_tgz[: len(truncated_tgz) // 2], "corrupt_archive"),
        "not_an_archive": (b"this is not an archive at all", "not_an_archive"),
        "empty_body": (b"", "not_an_archive"),
        "no_manifest": (_zip_without_manifest(good), "manifest_missing"),
        "database_fails_integrity_check": (build_zip(with_files(good, **{"db/svc_display.sqlite3": corrupt_database(tmp)})),
                                           "database_integrity"),
        "database_not_sqlite": (build_zip(with_files(good, **{"db/svc_display.sqlite3": b"SQLite format 2\0" * 64})),
                                "database_integrity"),
        "database_of_another_application": (build_zip(with_files(good, **{"db/svc_display.sqlite3": other_app})),
                                             "not_svc_display_database"),
        "unknown_manifest_version": (build_zip(good, manifest=manifest_for(good, format_version=2)),
                                     "unknown_manifest_version"),
        "foreign_manifest": (build_zip(good, manifest=manifest_for(good, format="other-backup")),
                             "manifest_invalid"),
        "unexpected_name": (build_zip(with_files(good, **{"etc/passwd": b"root"})), "unsafe_path"),
        "zip_file_then_folder": (build_zip(with_files(good, **{"media/a": b"x", "media/a/b": b"y"})),
                                 "path_conflict"),
        "tgz_folder_then_file": (build_tgz(with_files(good, **{"media/a/b": b"y", "media/a": b"x"})),
                                 "path_conflict"),
        "zip_nested_manifest": (build_zip(good, manifest=NESTED_MANIFEST), "manifest_invalid"),
        "tgz_nested_manifest": (build_tgz(good, manifest=NESTED_MANIFEST), "manifest_invalid"),
    }


def _zip_without_manifest(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


HOSTILE = ["zip_slip_dotdot", "zip_slip_media_dotdot", "zip_absolute", "tgz_slip_dotdot", "tgz_absolute",
         "zip_symlink", "tgz_symlink", "tgz_hardlink", "tgz_device", "zip_device", "zip_unlisted", "tgz_unlisted",
         "zip_missing", "zip_checksum", "tgz_checksum", "zip_bomb", "tgz_bomb", "zip_truncated", "tgz_truncated",
         "not_an_archive", "empty_body", "no_manifest", "database_fails_integrity_check", "database_not_sqlite",
         "database_of_another_application", "unknown_manifest_version", "foreign_manifest", "unexpected_name",
         "zip_file_then_folder", "tgz_folder_then_file", "zip_nested_manifest", "tgz_nested_manifest"]
