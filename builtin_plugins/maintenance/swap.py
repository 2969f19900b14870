"""Swapping a checked archive in, so that a start always sees old or new data, never a mix.

A restore goes through three on-disk states in the data dir:

1. ``restore-staging/`` filled and checked (``db/svc_display.sqlite3``, ``media/``), no marker:
   not committed. A start that finds it deletes it and stays on the previous data.
2. ``restore-commit.json`` written (atomically, fsynced): committed. From here on every
   start rolls the swap forward: the live database files and ``media/`` move into
   ``restore-previous/``, the staged ones move into place (each step a ``rename`` on one
   file system, each repeatable), then the marker and the staging folder go.
3. ``restore-previous/`` holds the data from before the restore until the next clean
   start (a start with no restore to finish), which deletes it.

The swap runs in ``prepare_storage``, before the database is opened, in a process that
holds the data dir's lock exclusively: never under a process that has the files open.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

log = logging.getLogger("builtin_plugins.maintenance")

STAGING = "restore-staging"
COMMIT = "restore-commit.json"
PREVIOUS = "restore-previous"
UPLOADS = "restore-upload"
LOCK = "data-dir.lock"
SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


class DataDirBusy(Exception):
    """Another process has the data dir open (a server is running)."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def lock_data_dir(data_dir: Path, exclusive: bool) -> int:
    """Open and flock ``<data dir>/data-dir.lock``; every host holds it shared while it runs.

    Exclusive is non-blocking and raises :class:`DataDirBusy` when another process holds it.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
    except BlockingIOError:
        os.close(fd)
        raise DataDirBusy(f"another svc-display process uses {data_dir}") from None
    return fd


def commit(data_dir: Path, manifest: dict[str, Any]) -> None:
    """The commit point: after this, the next start runs on the restored data."""
    previous = data_dir / PREVIOUS
    if previous.exists():  # data kept from an earlier restore: this newer restore supersedes it
        shutil.rmtree(previous)
    _fsync_dir(data_dir / STAGING)
    marker = {"includes": manifest["includes"], "created_at_ms": manifest.get("created_at_ms"),
              "schema_version": manifest.get("schema_version")}
    tmp = data_dir / (COMMIT + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(marker, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, data_dir / COMMIT)
    _fsync_dir(data_dir)


def pending(data_dir: Path) -> bool:
    return (data_dir / COMMIT).exists()


def finish_or_discard(data_dir: Path, sqlite_path: Path, media_dir: Path) -> str | None:
    """Bring the data dir to old or new data; returns "restored", "previous" or None (nothing to do).

    Call only while holding the data-dir lock exclusively.
    """
    staging = data_dir / STAGING
    marker = data_dir / COMMIT
    uploads = data_dir / UPLOADS
    if uploads.exists():
        shutil.rmtree(uploads, ignore_errors=True)
    if not marker.exists():
        if staging.exists():
            shutil.rmtree(staging)
            log.warning("restore: an unfinished restore never reached its commit point: running on the previous "
                        "data (the staged archive was removed)")
            return "previous"
        previous = data_dir / PREVIOUS
        if previous.exists():
            shutil.rmtree(previous)
            log.info("restore: clean start, removed %s/ (the data from before the last restore)", PREVIOUS)
        return None

    previous = data_dir / PREVIOUS
    previous.mkdir(exist_ok=True, mode=0o700)
    staged_db = staging / "db" / "svc_display.sqlite3"
    if staged_db.exists():
        for suffix in SQLITE_SIDE_FILES:
            live = Path(str(sqlite_path) + suffix)
            kept = previous / (sqlite_path.name + suffix)
            if live.exists():
                if kept.exists():  # only a side file can be here twice: the live one is stale
                    live.unlink()
                else:
                    os.replace(live, kept)
        os.replace(staged_db, sqlite_path)
    staged_media = staging / "media"
    if staged_media.exists():
        kept = previous / "media"
        if media_dir.exists() and not kept.exists():
            os.replace(media_dir, kept)
        elif media_dir.exists():  # the old media is already kept: what is live is a partial leftover
            shutil.rmtree(media_dir)
        os.replace(staged_media, media_dir)
    _fsync_dir(data_dir)
    info = json.loads(marker.read_text() or "{}")
    marker.unlink()
    _fsync_dir(data_dir)
    shutil.rmtree(staging, ignore_errors=True)
    log.warning("restore: running on the restored data (backup of %s, schema version %s; the previous data is "
                "kept in %s/ until the next clean start)", info.get("created_at_ms"), info.get("schema_version"),
                PREVIOUS)
    return "restored"
