"""Reading a backup archive into a staging folder, checking every byte on the way.

The one checker of backup archives: the display's restore (``builtin_plugins/maintenance``)
and the controller's upload and pull (``svc_controller/backups.py``) both run it, so the
controller never keeps an archive the display would refuse.

Nothing outside the staging folder is touched here: the archive is refused (and the
staging folder removed by the caller) at the first failed check. Checks, each with the
``details.reason`` of its 400 ``invalid_backup_archive``:

- ``not_an_archive``: neither zip (``PK\\x03\\x04``) nor gzip (``\\x1f\\x8b``) by its first bytes;
- ``corrupt_archive``: truncated or unreadable;
- ``unsafe_path``: an absolute path, ``..``, a backslash, an empty segment, or a name
  outside ``manifest.json``, ``db/svc_display.sqlite3`` and ``media/<blob key>``;
- ``link_member`` / ``device_member`` / ``unexpected_member``: symlinks and hard links,
  devices and FIFOs, directories or other non-regular members;
- ``path_conflict``: a member named like the folder of another (``media/a`` and ``media/a/b``);
- ``duplicate_member``, ``unlisted_member``, ``missing_member``, ``size_mismatch``,
  ``checksum_mismatch``: every member is listed in the manifest with its size and sha256;
- ``manifest_missing``, ``manifest_invalid``, ``unknown_manifest_version``; ``manifest_invalid``
  too for a manifest that nests too deeply, is larger than 64 KiB + 2 KiB a file (16 MiB at
  most) or holds more than 256 + 16 JSON values a file: bounds that keep its parsing within a
  few times its size in memory;
- ``expansion_limit``: more than 4 GiB, or more than 200 times the archive, once expanded
  (for a zip the sum of its members; for a tgz the whole decompressed tar stream);
- ``database_integrity``: the database is not SQLite or fails ``PRAGMA integrity_check``;
- ``not_svc_display_database``: it has no svc-display migration table;
- ``unexpected_schema_object``: a table, index, trigger or view that the live database (this
  build's entities, migrations and start-up) does not have, except the list cache's version
  tables and triggers, made at run time; a trigger, view or virtual table whose SQL differs.

A database whose applied migrations this build does not know, or a manifest whose
``schema_version`` is above this build's, is :class:`BackupTooNew` (409 ``backup_too_new``).
A failed write of the display's own disk (full, too large a file, read-only) while the
archive is staged is :class:`StagingFailed` (507 ``insufficient_storage``), never a verdict
on the archive.
"""
from __future__ import annotations

import errno
import functools
import gzip
import hashlib
import json
import os
import re
import sqlite3
import stat
import tarfile
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

FORMAT = "svc-display-backup"
FORMAT_VERSION = 1
APP = "svc-display"
MANIFEST = "manifest.json"
DB_MEMBER = "db/svc_display.sqlite3"
MEDIA_PREFIX = "media/"
CHUNK = 1024 * 1024

MAX_EXPANDED = 4 * 1024 ** 3
MAX_RATIO = 200
MAX_MANIFEST = 16 * 1024 * 1024
MANIFEST_BASE = 64 * 1024
MANIFEST_PER_FILE = 2 * 1024
MANIFEST_BASE_VALUES = 256
MANIFEST_VALUES_PER_FILE = 16
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")  # the app's table names: quoted safely


def create_private(path: Path) -> BinaryIO:
    """A new file with mode 0600 (job files, uploads and snapshots are user data)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "wb")


class InvalidArchive(Exception):
    def __init__(self, reason: str, message: str, **details: Any):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = {"reason": reason, **details}


class BackupTooNew(Exception):
    def __init__(self, message: str, **details: Any):
        super().__init__(message)
        self.message = message
        self.details = details


class StagingFailed(Exception):
    """Writing the restore to the display's disk failed: the disk, not the archive, is at fault."""

    def __init__(self, exc: OSError):
        name = errno.errorcode.get(exc.errno or 0, "EIO")
        super().__init__(name)
        self.message = (f"the display could not write the restore to its disk ({exc.strerror or name}): "
                        "check the free space and permissions of its data dir, then send the archive again")
        self.details = {"errno": name}


@contextmanager
def disk_writes() -> Iterator[None]:
    """Turn an ``OSError`` of the display's own disk into :class:`StagingFailed`."""
    try:
        yield
    except OSError as exc:
        raise StagingFailed(exc) from None


def detect_format(path: Path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[:2] == b"\x1f\x8b":
        return "tgz"
    raise InvalidArchive("not_an_archive", "the body is neither a zip nor a gzipped tar archive")


def check_name(name: str) -> None:
    """Refuse any member name that could land outside the staging folder or is not ours."""
    if (not name or name.startswith("/") or "\\" in name or "\x00" in name or len(name) > 1024
            or re.match(r"^[A-Za-z]:", name)):
        raise InvalidArchive("unsafe_path", f"member {name[:200]!r} has an absolute or malformed path")
    segments = name.split("/")
    if any(s in ("", ".", "..") for s in segments):
        raise InvalidArchive("unsafe_path", f"member {name[:200]!r} has an empty, '.' or '..' path segment")
    if name in (MANIFEST, DB_MEMBER):
        return
    if name.startswith(MEDIA_PREFIX) and len(segments) >= 2 and all(_SEGMENT.match(s) for s in segments[1:]):
        return
    raise InvalidArchive("unsafe_path", f"member {name[:200]!r} is not manifest.json, {DB_MEMBER} or media/<key>")


def manifest_cap(members: int) -> int:
    """The largest ``manifest.json`` an archive of ``members`` other members may have: a written
    manifest takes about 150 bytes a file (its path, size and sha256), a path at most 1 KiB."""
    return min(MAX_MANIFEST, MANIFEST_BASE + MANIFEST_PER_FILE * members)


def parse_manifest(raw: bytes, members: int | None = None) -> dict:
    """The checked manifest; ``members`` (the count of the archive's other members, when known)
    bounds its size and its count of JSON values before it is parsed, so that no manifest costs
    more memory than a real one of that many files (json builds every value as an object)."""
    if members is not None:
        cap = manifest_cap(members)
        if len(raw) > cap:
            raise InvalidArchive("manifest_invalid", f"manifest.json has {len(raw)} bytes, more than the {cap} "
                                                     f"allowed for {members} files", manifest_bytes=len(raw))
        # every JSON value but the first follows a ',', ':' or '[' (counted in strings too: an upper bound)
        values = raw.count(b",") + raw.count(b":") + raw.count(b"[") + 1
        if values > MANIFEST_BASE_VALUES + MANIFEST_VALUES_PER_FILE * members:
            raise InvalidArchive("manifest_invalid", f"manifest.json has too many values for {members} files")
    try:
        manifest = json.loads(raw)
    except RecursionError:
        raise InvalidArchive("manifest_invalid", "manifest.json nests too deeply") from None
    except (UnicodeDecodeError, ValueError):
        raise InvalidArchive("manifest_invalid", "manifest.json is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InvalidArchive("manifest_invalid", f"manifest.json is not a {FORMAT} manifest")
    if manifest.get("format_version") != FORMAT_VERSION or isinstance(manifest.get("format_version"), bool):
        raise InvalidArchive("unknown_manifest_version",
                             f"manifest format_version {str(manifest.get('format_version'))[:20]!r} is unknown "
                             f"(this build reads {FORMAT_VERSION})")
    includes = manifest.get("includes")
    files = manifest.get("files")
    schema_version = manifest.get("schema_version")
    if (manifest.get("app") != APP or not isinstance(includes, dict)
            or not all(isinstance(includes.get(k), bool) for k in ("database", "blobs"))
            or not isinstance(files, list) or not isinstance(schema_version, int) or isinstance(schema_version, bool)):
        raise InvalidArchive("manifest_invalid", "manifest.json lacks app, schema_version, includes or files")
    seen: dict[str, dict] = {}
    for entry in files:
        if (not isinstance(entry, dict) or not isinstance(entry.get("path"), str)
                or not isinstance(entry.get("bytes"), int) or isinstance(entry.get("bytes"), bool)
                or entry["bytes"] < 0 or not isinstance(entry.get("sha256"), str)
                or not _SHA256.match(entry["sha256"])):
            raise InvalidArchive("manifest_invalid", "every manifest file needs path, bytes and a sha256 hex digest")
        check_name(entry["path"])
        if entry["path"] == MANIFEST or entry["path"] in seen:
            raise InvalidArchive("manifest_invalid", f"manifest lists {entry['path'][:200]!r} twice or itself")
        if entry["path"] == DB_MEMBER and not includes["database"]:
            raise InvalidArchive("manifest_invalid", "manifest lists a database but includes.database is false")
        if entry["path"].startswith(MEDIA_PREFIX) and not includes["blobs"]:
            raise InvalidArchive("manifest_invalid", "manifest lists media but includes.blobs is false")
        seen[entry["path"]] = entry
    if includes["database"] and DB_MEMBER not in seen:
        raise InvalidArchive("missing_member", f"includes.database is true but {DB_MEMBER} is not listed")
    if not (includes["database"] or includes["blobs"]):
        raise InvalidArchive("manifest_invalid", "the archive includes neither database nor blobs")
    manifest["_by_path"] = seen
    return manifest


def _limit(archive_bytes: int) -> int:
    return min(MAX_EXPANDED, MAX_RATIO * archive_bytes)


class _Names:
    """Member names seen so far: refuses one named like the folder of another (it could not be
    written beside it), before anything is written for it."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.folders: set[str] = set()

    def add(self, name: str) -> None:
        parents = ["/".join(name.split("/")[:i]) for i in range(1, name.count("/") + 1)]
        if name in self.folders or any(p in self.files for p in parents):
            raise InvalidArchive("path_conflict", f"member {name[:200]!r} is named like the folder of "
                                                  "another member")
        self.files.add(name)
        self.folders.update(parents)


def copy_to_file(source: BinaryIO, target: Path, before_write: Callable[[int], None],
                 digest: "hashlib._Hash | None" = None) -> int:
    """Stream ``source`` into the new private file ``target`` (its folder made 0700 if need be);
    ``before_write(bytes so far)`` may refuse a chunk by raising. Returns the byte count.

    Reading ``source`` raises what its reader raises; a failed write of the display's disk
    (full, too large a file, read-only) raises :class:`StagingFailed`.
    """
    with disk_writes():
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        out = create_private(target)
    count = 0
    written = False
    try:
        while chunk := source.read(CHUNK):
            count += len(chunk)
            before_write(count)
            if digest is not None:
                digest.update(chunk)
            with disk_writes():
                out.write(chunk)
        written = True
    finally:
        try:
            out.close()  # flushes: a full disk can show here
        except OSError as exc:
            if written:
                raise StagingFailed(exc) from None
    return count


def _copy_member(source: BinaryIO, target: Path, declared: int | None) -> tuple[int, str]:
    """Stream one member into the staging folder; never more than ``declared`` bytes."""
    def within(count: int) -> None:
        if declared is not None and count > declared:
            raise InvalidArchive("size_mismatch", f"{target.name} is larger than its manifest entry")

    digest = hashlib.sha256()
    return copy_to_file(source, target, within, digest), digest.hexdigest()


def _compare(manifest: dict, found: dict[str, tuple[int, str]]) -> None:
    listed = manifest["_by_path"]
    for name in found:
        if name not in listed:
            raise InvalidArchive("unlisted_member", f"member {name[:200]!r} is not listed in the manifest")
    for name, entry in listed.items():
        if name not in found:
            raise InvalidArchive("missing_member", f"{name[:200]!r} is listed in the manifest but missing")
        size, digest = found[name]
        if size != entry["bytes"]:
            raise InvalidArchive("size_mismatch", f"{name[:200]!r} has {size} bytes, the manifest says {entry['bytes']}")
        if digest != entry["sha256"]:
            raise InvalidArchive("checksum_mismatch", f"{name[:200]!r} does not match its sha256 in the manifest")


def _unzip(path: Path, staging: Path, archive_bytes: int) -> dict:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise InvalidArchive("corrupt_archive", f"the zip archive cannot be read: {exc}") from None
    with archive:
        infos = archive.infolist()
        names: set[str] = set()
        layout = _Names()
        for info in infos:
            check_name(info.filename.rstrip("/") if info.is_dir() else info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise InvalidArchive("link_member", f"member {info.filename[:200]!r} is a symbolic link")
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                raise InvalidArchive("device_member", f"member {info.filename[:200]!r} is a device or FIFO")
            if info.is_dir() or (stat.S_IFMT(mode) and not stat.S_ISREG(mode)):
                raise InvalidArchive("unexpected_member", f"member {info.filename[:200]!r} is not a regular file")
            if info.filename in names:
                raise InvalidArchive("duplicate_member", f"member {info.filename[:200]!r} appears twice")
            names.add(info.filename)
            layout.add(info.filename)
        expanded = sum(info.file_size for info in infos)
        if expanded > _limit(archive_bytes):
            raise InvalidArchive("expansion_limit", f"the archive expands to {expanded} bytes, more than "
                                                    f"{_limit(archive_bytes)} allowed", expanded_bytes=expanded)
        if MANIFEST not in names:
            raise InvalidArchive("manifest_missing", "the archive has no manifest.json")
        try:
            info = archive.getinfo(MANIFEST)
            cap = manifest_cap(len(infos) - 1)
            if info.file_size > cap:
                raise InvalidArchive("manifest_invalid", f"manifest.json has {info.file_size} bytes, more than "
                                                         f"the {cap} allowed for {len(infos) - 1} files",
                                     manifest_bytes=info.file_size)
            with archive.open(info) as handle:
                manifest = parse_manifest(handle.read(cap + 1), len(infos) - 1)
            for info in infos:
                if info.filename != MANIFEST and info.filename not in manifest["_by_path"]:
                    raise InvalidArchive("unlisted_member", f"member {info.filename[:200]!r} is not listed "
                                                            "in the manifest")
            found = {}
            for info in infos:
                if info.filename == MANIFEST:
                    continue
                with archive.open(info) as handle:
                    found[info.filename] = _copy_member(handle, staging / info.filename,
                                                        manifest["_by_path"][info.filename]["bytes"])
        except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, RuntimeError) as exc:
            raise InvalidArchive("corrupt_archive", f"the zip archive cannot be read: {exc}") from None
    _compare(manifest, found)
    return manifest


class _BoundedReader:
    """The decompressed tar stream, refused past the expansion limit (a gzip bomb stops here)."""

    def __init__(self, source: BinaryIO, limit: int):
        self.source = source
        self.limit = limit
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self.source.read(size if size and size > 0 else CHUNK)
        self.count += len(chunk)
        if self.count > self.limit:
            raise InvalidArchive("expansion_limit", f"the archive expands to more than {self.limit} bytes",
                                 expanded_bytes=self.count)
        return chunk


def _untar(path: Path, staging: Path, archive_bytes: int) -> dict:
    found: dict[str, tuple[int, str]] = {}
    layout = _Names()
    raw_manifest = None
    try:
        with open(path, "rb") as raw, gzip.GzipFile(fileobj=raw) as gz:
            reader = _BoundedReader(gz, _limit(archive_bytes))
            with tarfile.open(fileobj=reader, mode="r|") as tar:
                for member in tar:
                    check_name(member.name)
                    if member.issym() or member.islnk():
                        raise InvalidArchive("link_member", f"member {member.name[:200]!r} is a link")
                    if member.ischr() or member.isblk() or member.isfifo():
                        raise InvalidArchive("device_member", f"member {member.name[:200]!r} is a device or FIFO")
                    if not member.isreg() or member.issparse():  # sparse holes would expand past the byte count
                        raise InvalidArchive("unexpected_member", f"member {member.name[:200]!r} is not a plain "
                                                                  "regular file")
                    if member.size > reader.limit:
                        raise InvalidArchive("expansion_limit", f"member {member.name[:200]!r} is larger than the "
                                                                f"{reader.limit} bytes allowed")
                    if member.name in found or (member.name == MANIFEST and raw_manifest is not None):
                        raise InvalidArchive("duplicate_member", f"member {member.name[:200]!r} appears twice")
                    layout.add(member.name)
                    handle = tar.extractfile(member)
                    if member.name == MANIFEST:  # parsed once the count of files is known
                        if member.size > MAX_MANIFEST:
                            raise InvalidArchive("manifest_invalid", "manifest.json is too large",
                                                 manifest_bytes=member.size)
                        raw_manifest = handle.read()
                    else:
                        found[member.name] = _copy_member(handle, staging / member.name, None)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        raise InvalidArchive("corrupt_archive", f"the tar.gz archive cannot be read: {exc}") from None
    if raw_manifest is None:
        raise InvalidArchive("manifest_missing", "the archive has no manifest.json")
    manifest = parse_manifest(raw_manifest, len(found))
    _compare(manifest, found)
    return manifest


def check_database(path: Path) -> set[tuple[str, str]]:
    """Integrity and identity of the staged database (opened read-only, immutable); returns
    its applied migrations as (plugin, migration id) pairs."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        raise InvalidArchive("database_integrity", f"the database cannot be opened: {exc}") from None
    try:
        try:
            conn.execute("PRAGMA trusted_schema = OFF")
            result = [row[0] for row in conn.execute("PRAGMA integrity_check(20)")]
        except sqlite3.Error as exc:
            raise InvalidArchive("database_integrity", f"the database is not a readable SQLite file: {exc}") from None
        if result != ["ok"]:
            raise InvalidArchive("database_integrity", "the database fails PRAGMA integrity_check",
                                 problems=[str(r)[:200] for r in result[:5]])
        try:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(svc_applied_migration)")}
            if not {"plugin", "migration_id", "applied_at_ms"} <= columns:
                raise InvalidArchive("not_svc_display_database", "the database is not a svc-display database")
            applied = {(str(p), str(m)) for p, m in conn.execute(
                "SELECT plugin, migration_id FROM svc_applied_migration")}
        except sqlite3.Error as exc:
            raise InvalidArchive("not_svc_display_database", f"the database is not a svc-display database: {exc}") \
                from None
    finally:
        conn.close()
    return applied


Schema = dict[tuple[str, str], tuple[str, str]]  # (type, name) -> (table, sql) of sqlite_master


def schema_objects(uri: str) -> Schema:
    """The tables, indexes, triggers and views of the SQLite database at ``uri`` (opened
    read-only), SQLite's own (``sqlite_*``) left out."""
    conn = sqlite3.connect(uri, uri=True)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        return {(kind, name): (table, sql or "") for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")}
    finally:
        conn.close()


def live_schema(path: Path) -> Schema | None:
    """The schema of the display's live database (what this build's entities, migrations and
    start-up create), or None when there is none yet."""
    if not path.is_file():
        return None
    return schema_objects(f"file:{path}?mode=ro")


@functools.lru_cache(maxsize=8)
def _version_objects(tables: frozenset[str]) -> Schema:
    """The list cache's version tables and triggers (``svc_host/rest/listcache.py``) for
    ``tables``: created at run time, on the first cached list of a table, not by migrations."""
    from svc_host.rest.listcache import sqlite_version_tables, sqlite_version_triggers

    conn = sqlite3.connect(":memory:")
    try:
        for table in sorted(tables):
            conn.execute(f'CREATE TABLE "{table}" (id INTEGER)')
        for statement in sqlite_version_tables():
            conn.execute(statement)
        for table in sorted(tables):
            for statement in sqlite_version_triggers(table):
                conn.execute(statement)
        made = {(kind, name): (table, sql or "") for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")}
    finally:
        conn.close()
    return {key: value for key, value in made.items() if key[0] == "trigger" or key[1] not in tables}


def check_schema(path: Path, reference: Schema) -> None:
    """Refuse a staged database with a table, index, trigger or view that the display's schema
    (``reference``, with the list cache's run-time objects) does not have, or has on another
    table; triggers, views and virtual tables must match its SQL too (they run code). A table
    or index is judged by name: an older database's tables differ in their columns."""
    tables = frozenset(name for (kind, name) in reference if kind == "table" and _IDENTIFIER.match(name))
    allowed = {**_version_objects(tables), **reference}
    for (kind, name), (table, sql) in sorted(schema_objects(f"file:{path}?mode=ro&immutable=1").items()):
        expected = allowed.get((kind, name))
        runs_code = kind in ("trigger", "view") or sql.upper().startswith("CREATE VIRTUAL")
        if expected is None or expected[0] != table or (runs_code and expected[1] != sql):
            raise InvalidArchive("unexpected_schema_object",
                                 f"the database has a {kind} {name[:200]!r} that this display's schema "
                                 f"{'does not have' if expected is None else 'defines otherwise'}",
                                 object={"type": kind, "name": name[:200]})


def check_not_newer(manifest: dict, applied: set[tuple[str, str]], known_migrations: set[tuple[str, str]],
                    schema_version: int) -> None:
    if manifest["schema_version"] > schema_version:
        raise BackupTooNew(f"the backup has schema version {manifest['schema_version']}, this build "
                           f"{schema_version}: restore it on a newer build",
                           backup_schema_version=manifest["schema_version"], schema_version=schema_version)
    unknown = sorted(applied - known_migrations)
    if unknown:
        raise BackupTooNew("the backup's database has migrations this build does not know: restore it on a newer "
                           "build", unknown_migrations=[f"{p}:{m}"[:200] for p, m in unknown[:20]])


def read_archive(path: Path, staging: Path, known_migrations: set[tuple[str, str]], schema_version: int,
                 reference: Schema | None = None) -> dict:
    """Check the archive at ``path`` member by member into ``staging``; return its manifest.
    With ``reference`` (the live database's :func:`live_schema`), the database's schema is
    compared with it (:func:`check_schema`).

    Raises :class:`InvalidArchive` or :class:`BackupTooNew`; the caller removes ``staging``.
    """
    archive_bytes = path.stat().st_size
    fmt = detect_format(path)
    with disk_writes():
        staging.mkdir(parents=True, exist_ok=False, mode=0o700)
    manifest = _unzip(path, staging, archive_bytes) if fmt == "zip" else _untar(path, staging, archive_bytes)
    if manifest["includes"]["database"]:
        applied = check_database(staging / DB_MEMBER)
        check_not_newer(manifest, applied, known_migrations, schema_version)
        if reference is not None:
            check_schema(staging / DB_MEMBER, reference)
    if manifest["includes"]["blobs"]:
        with disk_writes():
            (staging / "media").mkdir(exist_ok=True, mode=0o700)  # an empty media folder is restored as empty
    manifest.pop("_by_path", None)
    manifest["archive_format"] = fmt
    return manifest
