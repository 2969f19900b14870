"""Writing a backup archive (CONTRACT "Maintenance"): a consistent database snapshot and the
media folder, streamed file by file into a zip or a gzipped tar, with a manifest listing the
size and sha256 of every member. Nothing is ever held whole in memory.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import struct
import tarfile
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from svc_host.backup_archive.format import APP, CHUNK, DB_MEMBER, FORMAT, FORMAT_VERSION, MANIFEST, MEDIA_PREFIX, \
    create_private  # noqa: F401  (the format is the shared checker's; re-exported for the plugin's modules)

FORMATS = {"zip": (".zip", "application/zip"), "tgz": (".tar.gz", "application/gzip")}
# gzip's own default (and `tar czf`'s): level 9 costs about twice the time for a few percent.
COMPRESS_LEVEL = 6
# Files compressed already (JPEG, MP4, ...) gain about nothing from deflate, which is most of
# the time of a backup: they are stored as they are, in a zip (ZIP_STORED) and in a tgz
# (deflate level 0, stored blocks).
COMPRESSED_LEVEL = 0
_COMPRESSED = {".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".heic", ".mp4", ".m4v", ".mov", ".webm",
               ".mkv", ".mp3", ".m4a", ".ogg", ".zip", ".gz", ".bz2", ".xz", ".zst"}


class Cancelled(Exception):
    """The job was deleted while it ran."""


def snapshot_database(source: Path, target: Path) -> None:
    """Copy the live SQLite database with SQLite's online backup API.

    One backup step copies every page inside one read transaction, so the copy is the
    database as of that instant while writers go on (WAL readers never block writers).
    The copy is turned into a single self-contained file (rollback journal, no -wal).
    """
    create_private(target).close()
    src = sqlite3.connect(str(source), timeout=30)
    try:
        dst = sqlite3.connect(str(target))
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")
        finally:
            dst.close()
    finally:
        src.close()


def media_files(media_dir: Path) -> Iterator[tuple[str, Path]]:
    """(member name, path) of every regular file under ``media/``, sorted; blob metadata included,
    half-written temporary files (``.tmp-*``) and anything that is not a regular file skipped."""
    if not media_dir.is_dir():
        return
    for root, dirs, files in os.walk(media_dir):
        dirs.sort()
        for name in sorted(files):
            if name.startswith(".tmp-"):
                continue
            path = Path(root) / name
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
            except FileNotFoundError:
                continue
            yield MEDIA_PREFIX + path.relative_to(media_dir).as_posix(), path


def freeze_media(media_dir: Path, frozen: Path) -> int:
    """Hard-link every media file not yet under ``frozen`` into it (same relative paths);
    returns how many were added. Linking is cheap (no data copied) and the link is the
    file's version of that instant: blobs are replaced by rename, never rewritten in place,
    and a later delete removes only the live name. Where linking fails (another file
    system, a file system without hard links) the file is copied instead.

    A job calls it before and after the database snapshot: a blob deleted after the first
    pass stays in the frozen set, one added before the snapshot's row (blobs are written
    before their row commits) is picked up by the second pass, so every blob a row of the
    snapshot names is there.
    """
    added = 0
    for member, path in media_files(media_dir):
        dest = frozen / member[len(MEDIA_PREFIX):]
        if dest.exists():
            continue
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            try:
                os.link(path, dest)
            except FileNotFoundError:
                raise
            except OSError:  # EXDEV, EPERM, EMLINK, ENOTSUP: copy
                tmp = dest.with_name(f".tmp-{dest.name}")
                shutil.copy2(path, tmp)
                os.replace(tmp, dest)
        except FileNotFoundError:  # deleted since the walk: not part of this set
            continue
        added += 1
    return added


def freeze(sqlite_path: Path | None, snapshot: Path, media_dir: Path | None, frozen: Path) -> None:
    """The consistent set a backup archives: the database snapshot (when ``sqlite_path``),
    with the media set frozen around it (when ``media_dir``; see :func:`freeze_media`)."""
    if media_dir is not None:
        freeze_media(media_dir, frozen)
    if sqlite_path is not None:
        snapshot_database(sqlite_path, snapshot)
    if media_dir is not None:
        freeze_media(media_dir, frozen)


def discard(path: Path) -> None:
    """Remove a scratch file or folder (a frozen media set) if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def tree_bytes(folder: Path) -> int:
    total = 0
    for _member, path in media_files(folder):
        try:
            total += path.stat().st_size
        except FileNotFoundError:
            pass
    return total


@dataclass
class Member:
    name: str
    path: Path


class _GzipMembers:
    """A gzip stream that can change its compression level: one gzip member per run of one
    level, back to back. RFC 1952 allows that, and gzip, tar and Python's gzip module read the
    members as one stream. Hand-written because Python's zlib cannot change the level of a
    running stream (no ``deflateParams``) and ``gzip.GzipFile`` has one level for its life.
    """

    def __init__(self, out: BinaryIO):
        self.out = out
        self.level: int | None = None
        self.compressor: "zlib._Compress | None" = None
        self.crc = self.size = self.total = 0

    def set_level(self, level: int) -> None:
        if level == self.level:
            return
        self._end_member()
        self.level = level
        self.compressor = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        self.crc = self.size = 0
        # magic, deflate, no flags, mtime 0, no extra flags, OS unknown
        self.out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")

    def write(self, data: bytes) -> int:
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        self.total += len(data)
        self.out.write(self.compressor.compress(data))
        return len(data)

    def tell(self) -> int:
        """Uncompressed bytes written: all ``tarfile`` needs to write sequentially."""
        return self.total

    def _end_member(self) -> None:
        if self.compressor is not None:
            self.out.write(self.compressor.flush())
            self.out.write(struct.pack("<II", self.crc & 0xFFFFFFFF, self.size & 0xFFFFFFFF))
            self.compressor = None

    def close(self) -> None:
        self._end_member()


def _compressed_already(name: str) -> bool:
    return Path(name).suffix.lower() in _COMPRESSED


class _Writer:
    """One archive being written; ``add`` streams a file in and returns its (bytes, sha256)."""

    def __init__(self, out: BinaryIO, fmt: str):
        self.fmt = fmt
        if fmt == "zip":
            self.zip = zipfile.ZipFile(out, "w", allowZip64=True)
        else:
            self.gz = _GzipMembers(out)
            self.gz.set_level(COMPRESS_LEVEL)
            # Not the stream mode "w|": its 10 KiB record buffer re-copies every large write.
            self.tar = tarfile.open(fileobj=self.gz, mode="w", format=tarfile.PAX_FORMAT)
            self.tar.copybufsize = CHUNK

    def add(self, name: str, handle: BinaryIO, size: int, mtime: float, on_chunk: Callable[[int], None]) -> tuple[int, str]:
        digest = hashlib.sha256()
        count = 0
        if self.fmt == "zip":
            info = zipfile.ZipInfo(name, date_time=time.localtime(max(mtime, 315532800))[:6])
            info.external_attr = (stat.S_IFREG | 0o600) << 16
            info.compress_type = zipfile.ZIP_STORED if _compressed_already(name) else zipfile.ZIP_DEFLATED
            info.file_size = size  # lets zipfile choose zip64 headers up front for large files
            with self.zip.open(info, "w", force_zip64=size > zipfile.ZIP64_LIMIT // 2) as dst:
                while chunk := handle.read(CHUNK):
                    digest.update(chunk)
                    dst.write(chunk)
                    count += len(chunk)
                    on_chunk(len(chunk))
            return count, digest.hexdigest()
        self.gz.set_level(COMPRESSED_LEVEL if _compressed_already(name) else COMPRESS_LEVEL)
        info = tarfile.TarInfo(name)
        info.size = size
        info.mode = 0o600
        info.mtime = int(mtime)
        reader = _HashingReader(handle, digest, on_chunk)
        self.tar.addfile(info, reader)
        return reader.count, digest.hexdigest()

    def add_bytes(self, name: str, data: bytes) -> None:
        import io

        self.add(name, io.BytesIO(data), len(data), time.time(), lambda _n: None)

    def close(self) -> None:
        if self.fmt == "zip":
            self.zip.close()
        else:
            self.tar.close()
            self.gz.close()


class _HashingReader:
    def __init__(self, handle: BinaryIO, digest: "hashlib._Hash", on_chunk: Callable[[int], None]):
        self.handle = handle
        self.digest = digest
        self.on_chunk = on_chunk
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self.handle.read(size if size and size > 0 else CHUNK)
        self.digest.update(chunk)
        self.count += len(chunk)
        self.on_chunk(len(chunk))
        return chunk


def write_archive(out_path: Path, fmt: str, *, database: Path | None, media_dir: Path | None,
                  schema_version: int, version: str, created_at_ms: int,
                  progress: Callable[[float], None] = lambda _p: None,
                  cancelled: Callable[[], bool] = lambda: False) -> int:
    """Write the archive to ``out_path`` (mode 0600); returns its size in bytes.

    ``database`` is a snapshot file already taken (never the live file); ``media_dir`` a media
    set frozen with :func:`freeze_media`; a file deleted meanwhile from a live folder is
    left out. The manifest is the last member: it
    holds the sha256 of every other member, computed while they are written.
    """
    members: list[Member] = []
    if database is not None:
        members.append(Member(DB_MEMBER, database))
    if media_dir is not None:
        members.extend(Member(name, path) for name, path in media_files(media_dir))
    total = 0
    for member in members:
        try:
            total += member.path.stat().st_size
        except FileNotFoundError:
            pass
    done = 0

    def on_chunk(count: int) -> None:
        nonlocal done
        done += count
        if cancelled():
            raise Cancelled()
        progress(min(done / total, 0.99) if total else 0.99)

    files = []
    with create_private(out_path) as out:
        writer = _Writer(out, fmt)
        for member in members:
            try:
                handle = open(member.path, "rb")
            except FileNotFoundError:  # a blob deleted since the scan
                continue
            with handle:
                st = os.fstat(handle.fileno())
                size, digest = writer.add(member.name, handle, st.st_size, st.st_mtime, on_chunk)
            files.append({"path": member.name, "bytes": size, "sha256": digest})
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "app": APP,
            "version": version,
            "schema_version": schema_version,
            "created_at_ms": created_at_ms,
            "includes": {"database": database is not None, "blobs": media_dir is not None},
            "files": files,
        }
        writer.add_bytes(MANIFEST, json.dumps(manifest, indent=1).encode())
        writer.close()
        out.flush()
        os.fsync(out.fileno())
    return out_path.stat().st_size
