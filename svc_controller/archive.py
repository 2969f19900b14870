"""Checking a display backup archive before it is kept as a snapshot (CONTRACT "Maintenance").

The checks are the display's own (:mod:`svc_host.backup_archive`, the one checker both
run): every member in a scratch folder, streamed and bounded (expansion, manifest size,
names, links, the database's integrity and identity, a schema newer than this build's), so
the controller never keeps an archive the display would refuse at restore. "Newer" is judged
against the migrations of the svc-display build installed beside the controller, loaded
once per process from the plugins (the host kit's loader, not a plugin's internals).

One check runs at a time (:data:`_ONE_AT_A_TIME`): each may write up to 4 GiB to the scratch
folder and take seconds of CPU, and the WSGI workers it would hold serve everything else.
"""
from __future__ import annotations

import functools
import shutil
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from svc_host.backup_archive.format import BackupTooNew, InvalidArchive, StagingFailed, detect_format
from svc_host.backup_archive.reader import read_archive

__all__ = ["ArchiveError", "ArchiveInfo", "archive_kind", "verify_archive"]

_ONE_AT_A_TIME = threading.Lock()


class ArchiveError(ValueError):
    """The archive is refused; ``reason`` is the display's ``details.reason`` for it."""

    def __init__(self, message: str, reason: str = "invalid", **details: object):
        super().__init__(message)
        self.reason = reason
        self.details = {"reason": reason, **details}


class ScratchFailed(OSError):
    """The controller's own disk failed while the archive was checked (not the archive's fault)."""


@dataclass(frozen=True)
class ArchiveInfo:
    kind: str  # "tgz" or "zip"
    schema_version: int | None
    files: int


def archive_kind(path: Path) -> str | None:
    try:
        return detect_format(path)
    except InvalidArchive:
        return None


@functools.cache
def display_schema() -> tuple[frozenset[tuple[str, str]], int]:
    """(migrations, schema version) of the svc-display build installed here."""
    from svc_host.plugins import load_plugins
    from svc_host.registries import build_registries

    known = frozenset((plugin, migration.id) for plugin, migration in build_registries(load_plugins(())).migrations)
    return known, len(known)


def verify_archive(path: Path, scratch: Path | None = None) -> ArchiveInfo:
    """Run the display's checks on ``path`` in a scratch folder (removed after); raises
    :class:`ArchiveError` (the archive) or :class:`ScratchFailed` (the controller's disk)."""
    known, schema_version = display_schema()
    staging = (scratch or path.parent) / f".check-{uuid.uuid4().hex}"
    with _ONE_AT_A_TIME:
        try:
            manifest = read_archive(path, staging, set(known), schema_version)
        except InvalidArchive as exc:
            raise ArchiveError(exc.message, exc.reason, **{k: v for k, v in exc.details.items() if k != "reason"}) \
                from None
        except BackupTooNew as exc:
            raise ArchiveError(exc.message, "backup_too_new", **exc.details) from None
        except StagingFailed as exc:
            raise ScratchFailed(exc.message) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return ArchiveInfo(manifest["archive_format"], manifest["schema_version"], len(manifest["files"]))
