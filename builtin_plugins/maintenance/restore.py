"""Restore: the upload streamed to disk, every check in a staging folder, then the commit.

The same steps serve ``POST /v1/display/backup/restore`` (the swap happens at the next
start, after this process exits with status 75) and ``svc-display backup restore FILE``
(the swap happens at once, which needs the server stopped).
"""
from __future__ import annotations

import shutil
import threading
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any, BinaryIO

from builtin_plugins.maintenance import swap
from svc_host.backup_archive.database import live_schema
from svc_host.backup_archive.format import InvalidArchive, disk_writes
from svc_host.backup_archive.reader import copy_to_file, read_archive

MAX_UPLOAD = 2 * 1024 ** 3
EXIT_RESTART = 75


class UploadTooLarge(Exception):
    pass


def save_upload(stream: BinaryIO, data_dir: Path, cap: int = MAX_UPLOAD) -> Path:
    """Stream the body into ``<data dir>/restore-upload/`` (mode 0600), at most ``cap`` bytes.
    A failed write of the disk is :class:`StagingFailed`."""
    path = data_dir / swap.UPLOADS / f"upload-{uuid.uuid4().hex}.part"

    def within(count: int) -> None:
        if count > cap:
            raise UploadTooLarge(f"the archive exceeds {cap} bytes")

    try:
        count = copy_to_file(stream, path, within)
    except BaseException:
        with suppress(OSError):  # nothing to remove when the folder could not be made
            path.unlink(missing_ok=True)
        raise
    if count == 0:
        path.unlink(missing_ok=True)
        raise InvalidArchive("not_an_archive", "the body is empty: send the archive as the raw body")
    return path


def stage_and_commit(archive: Path, data_dir: Path, known_migrations: set[tuple[str, str]],
                     schema_version: int, live_database: Path | None = None) -> dict[str, Any]:
    """Check ``archive`` into the staging folder and commit it; on any failure nothing is left.
    The archive's database schema is compared with that of ``live_database`` when it exists."""
    staging = data_dir / swap.STAGING
    with disk_writes():
        if staging.is_dir() and not staging.is_symlink():
            shutil.rmtree(staging)
        elif staging.exists() or staging.is_symlink():
            staging.unlink()
    try:
        reference = live_schema(live_database) if live_database is not None else None
        manifest = read_archive(archive, staging, known_migrations, schema_version, reference)
        with disk_writes():
            swap.commit(data_dir, manifest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        (data_dir / (swap.COMMIT + ".tmp")).unlink(missing_ok=True)
        raise
    return manifest


class RestoreGate:
    """One restore at a time; once one is committed the process only waits to exit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.committed = False
