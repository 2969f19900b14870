"""Backup archives in the display's format (CONTRACT "Maintenance"), made by the tests."""
from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tarfile
import zipfile


def svc_database(note: str = "", migrations: tuple[tuple[str, str], ...] = (("curator", "seed_categories"),)) -> bytes:
    """A small SQLite database the display's checks take for its own: its migration table
    with ``migrations`` applied, and ``note`` in a table of its own (so that two differ)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE svc_applied_migration (id INTEGER PRIMARY KEY, plugin TEXT NOT NULL, "
                 "migration_id TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)")
    conn.executemany("INSERT INTO svc_applied_migration (plugin, migration_id, applied_at_ms) VALUES (?, ?, 1)",
                     migrations)
    conn.execute("CREATE TABLE svc_note (body TEXT)")
    conn.execute("INSERT INTO svc_note VALUES (?)", (note,))
    conn.commit()
    data = conn.serialize()
    conn.close()
    return data


def make_archive(files: dict[str, bytes] | None = None, kind: str = "tgz", tamper: str | None = None,
                 extra: dict[str, bytes] | None = None, schema_version: int = 1) -> bytes:
    """An archive whose manifest lists ``files``; ``tamper`` names a member whose content then
    differs from its manifest entry; ``extra`` members are left out of the manifest."""
    files = files or {"db/svc_display.sqlite3": svc_database(),
                      "media/screens/a.png": b"\x89PNG" + b"\x02" * 1000}
    manifest = {
        "format": "svc-display-backup", "format_version": 1, "app": "svc-display", "version": "0.1.0",
        "schema_version": schema_version, "created_at_ms": 1_700_000_000_000,
        "includes": {"database": "db/svc_display.sqlite3" in files,
                     "blobs": any(name.startswith("media/") for name in files)},
        "files": [{"path": p, "bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in files.items()],
    }
    members = {"manifest.json": json.dumps(manifest).encode(), **files, **(extra or {})}
    if tamper:
        members[tamper] = members[tamper][:-1] + b"!"
    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
