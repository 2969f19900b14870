"""A backup archive read member by member into a staging folder (:func:`read_archive`)."""
from __future__ import annotations

import gzip
import hashlib
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO, Callable

from svc_host.backup_archive.database import Schema, check_database, check_not_newer, check_schema
from svc_host.backup_archive.format import (CHUNK, DB_MEMBER, MANIFEST, MAX_EXPANDED, MAX_MANIFEST, MAX_RATIO,
                                           InvalidArchive, StagingFailed, check_name, create_private, detect_format,
                                           disk_writes, manifest_cap, parse_manifest)


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
