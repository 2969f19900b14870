"""Maintenance (spec 2.12, 3, 4.13; CONTRACT "Maintenance"): backup jobs, restore, in-band upgrade.

Backup and restore exist only with the default SQLite database; the upgrade routes exist
always. Everything needs ``display.maintenance`` (admin only). ``docs/maintenance.md``
describes the archive, the checks a restore makes and how upgrades are verified.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from builtin_plugins.maintenance import swap
from builtin_plugins.maintenance.routes import DISPLAY_MAINTENANCE, backup_routes, upgrade_routes
from builtin_plugins.maintenance.upgrade import upgrade_capable
from hookspecs import Feature, Permission, Setting, hookimpl
from hookspecs.permissions import ADMIN_ONLY
from hookspecs.services import BACKUP_JOBS

log = logging.getLogger("builtin_plugins.maintenance")

# The data-dir lock each host holds (shared) while it runs, by data dir.
_held: dict[str, list[int]] = {}


@hookimpl
def health_fields(host: Any) -> dict[str, Any]:
    return {"upgrade_capable": upgrade_capable(host.settings)}


@hookimpl
def prepare_storage(settings: Any) -> None:
    """Finish or discard an interrupted restore before the database opens, then hold the
    data dir shared. Only a process that gets the lock exclusively (no other host running on
    this data dir) touches the files; others leave a pending restore to the next server start."""
    if settings.uses_external_database:
        return
    data_dir = settings.data_dir
    try:
        fd = swap.lock_data_dir(data_dir, exclusive=True)
    except swap.DataDirBusy:
        fd = swap.lock_data_dir(data_dir, exclusive=False)
        if swap.pending(data_dir):
            log.info("restore: a committed restore waits until the running server stops")
    else:
        try:
            swap.finish_or_discard(data_dir, settings.sqlite_path, settings.media_dir)
        except BaseException:
            os.close(fd)
            raise
        fcntl.flock(fd, fcntl.LOCK_SH)
    _held.setdefault(str(data_dir), []).append(fd)


@hookimpl
def register_routes(host: Any) -> list[Any]:
    routes = upgrade_routes(host)
    if not host.settings.uses_external_database:
        routes += backup_routes(host)
    return routes


@hookimpl
def startup(host: Any) -> None:
    from builtin_plugins.maintenance.jobs import JOBS_DIR, jobs_of

    # With job files from an earlier run: fail the jobs it left running, expire old ones and
    # keep expiring. Otherwise the worker starts with the first backup request.
    if not host.settings.uses_external_database and host.routes and (host.settings.data_dir / JOBS_DIR).is_dir():
        jobs_of(host)


@hookimpl
def shutdown(host: Any) -> None:
    jobs = host.services.pop(BACKUP_JOBS, None)
    if jobs is not None:
        jobs.stop()
    held = _held.get(str(host.settings.data_dir))
    if held:
        os.close(held.pop())


@hookimpl
def register_commands(subparsers: Any) -> None:
    backup = subparsers.add_parser("backup", help="back up or restore the database and media (offline)")
    commands = backup.add_subparsers(dest="backup_command", required=True)
    create = commands.add_parser("create", help="write a backup archive (.zip, .tar.gz or .tgz) to FILE")
    create.add_argument("file")
    create.add_argument("--format", choices=["zip", "tgz"], help="default: from the file name")
    create.add_argument("--no-database", action="store_true", help="leave the database out")
    create.add_argument("--no-blobs", action="store_true", help="leave media out")
    create.set_defaults(handler=cmd_backup_create)
    restore = commands.add_parser("restore", help="check FILE and swap it in (stop the server first)")
    restore.add_argument("file")
    restore.set_defaults(handler=cmd_backup_restore, needs_host=False)


def _fail(message: str, exit_code: int = 1, **details: Any) -> int:
    print(json.dumps({"message": message, **details}), file=sys.stderr)
    return exit_code


def cmd_backup_create(host: Any, args: Any) -> int:
    from builtin_plugins.maintenance.archive import discard, freeze, write_archive
    from svc_host import __version__

    settings = host.settings
    if settings.uses_external_database:
        return _fail("backup exists only with the default database (SVC_DISPLAY_DATABASE_URL is set)", exit_code=2)
    path = Path(args.file)
    fmt = args.format or ("zip" if path.name.endswith(".zip") else
                          "tgz" if path.name.endswith((".tar.gz", ".tgz")) else None)
    if fmt is None:
        return _fail("name the file .zip, .tar.gz or .tgz, or pass --format", exit_code=2)
    if args.no_database and args.no_blobs:
        return _fail("--no-database and --no-blobs leave nothing to back up", exit_code=2)
    snapshot = path.with_name(path.name + ".snapshot")
    frozen = path.with_name(path.name + ".media")
    part = path.with_name(path.name + ".part")
    try:
        freeze(None if args.no_database else settings.sqlite_path, snapshot,
               None if args.no_blobs else settings.media_dir, frozen)
        size = write_archive(part, fmt, database=None if args.no_database else snapshot,
                             media_dir=None if args.no_blobs else frozen,
                             schema_version=host.schema_version(), version=__version__,
                             created_at_ms=host.clock.now_ms())
        os.replace(part, path)
    finally:
        for scratch in (snapshot, frozen, part):
            discard(scratch)
    print(json.dumps({"file": str(path), "format": fmt, "bytes": size}))
    return 0


def cmd_backup_restore(settings: Any, args: Any) -> int:
    from svc_host.backup_archive.format import BackupTooNew, InvalidArchive, StagingFailed
    from builtin_plugins.maintenance.restore import stage_and_commit
    from svc_host.plugins import load_plugins
    from svc_host.registries import build_registries

    if settings.uses_external_database:
        return _fail("restore exists only with the default database (SVC_DISPLAY_DATABASE_URL is set)", exit_code=2)
    archive = Path(args.file)
    if not archive.is_file():
        return _fail(f"{archive} is not a file", exit_code=2)
    try:
        fd = swap.lock_data_dir(settings.data_dir, exclusive=True)
    except swap.DataDirBusy:
        return _fail("a svc-display process is using the data dir: stop the server first "
                     "(or restore through POST /v1/display/backup/restore)")
    try:
        swap.finish_or_discard(settings.data_dir, settings.sqlite_path, settings.media_dir)
        known = {(plugin, m.id) for plugin, m in build_registries(load_plugins(settings.disable_plugins)).migrations}
        applied = _applied_migrations(settings.sqlite_path)
        try:
            manifest = stage_and_commit(archive, settings.data_dir, known | applied, max(len(known), len(applied)),
                                        settings.sqlite_path)
        except InvalidArchive as exc:
            return _fail(exc.message, code="invalid_backup_archive", details=exc.details)
        except BackupTooNew as exc:
            return _fail(exc.message, code="backup_too_new", details=exc.details)
        except StagingFailed as exc:
            return _fail(exc.message, code="insufficient_storage", details=exc.details)
        swap.finish_or_discard(settings.data_dir, settings.sqlite_path, settings.media_dir)
    finally:
        os.close(fd)
    print(json.dumps({"restored": True, "includes": manifest["includes"],
                      "schema_version": manifest["schema_version"], "created_at_ms": manifest["created_at_ms"]}))
    return 0


def _applied_migrations(path: Path) -> set[tuple[str, str]]:
    if not path.exists():
        return set()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return {(str(p), str(m)) for p, m in conn.execute("SELECT plugin, migration_id FROM svc_applied_migration")}
        finally:
            conn.close()
    except sqlite3.Error:
        return set()


FEATURE = Feature(
    permissions=[Permission(DISPLAY_MAINTENANCE, "backup, restore and upgrade", ADMIN_ONLY)],
    # Both only ever lower the contract's limits (30 min, 1 GiB): tests and small boards.
    settings=[
        Setting("SVC_DISPLAY_UPGRADE_SCRIPT", Path, None, "script run by the upgrade route"),
        Setting("SVC_DISPLAY_UPGRADE_ANY_ARCH", bool, False, "1: upgrades on any architecture, not only arm64"),
        Setting("SVC_DISPLAY_UPGRADE_CA_FILE", Path, None, "PEM bundle trusted for upgrade downloads (else system CAs)"),
        Setting("SVC_DISPLAY_UPGRADE_PUBLIC_KEY", Path, None, "Ed25519 public key (PEM): upgrades need a valid .sig"),
        # Both only ever lower the contract's limits (30 min, 1 GiB): tests and small boards.
        Setting("SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS", int, 1800, "time limit of the upgrade script", low=1, high=1800),
        Setting("SVC_DISPLAY_UPGRADE_MAX_BYTES", int, 1024 ** 3, "largest upgrade download", low=1, high=1024 ** 3),
    ],
)
