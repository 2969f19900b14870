"""Checking a display backup archive against its manifest (CONTRACT "Maintenance").

The archive (zip or tar.gz, told by its first bytes) holds ``manifest.json`` =
``{format: "svc-display-backup", format_version: 1, schema_version, files: [{path, bytes,
sha256}], ...}`` and exactly the listed files. :func:`verify_archive` reads every member
once, streaming, and raises :class:`ArchiveError` on the first mismatch.
"""
from __future__ import annotations

import hashlib
import json
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Iterator

MANIFEST = "manifest.json"
MANIFEST_MAX = 16 * 1024 * 1024
CHUNK = 1024 * 1024


class ArchiveError(ValueError):
    pass


@dataclass(frozen=True)
class ArchiveInfo:
    kind: str  # "tgz" or "zip"
    schema_version: int | None
    files: int


def archive_kind(path: Path) -> str | None:
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head[:2] == b"\x1f\x8b":
        return "tgz"
    if head == b"PK\x03\x04":
        return "zip"
    return None


def _safe(name: str) -> str:
    path = PurePosixPath(name)
    if not name or name.startswith("/") or "\\" in name or any(part in ("..", "") for part in path.parts) \
            or str(path) != name.rstrip("/"):
        raise ArchiveError(f"unsafe member path {name!r}")
    return name


def _members(path: Path, kind: str) -> Iterator[tuple[str, int, IO[bytes]]]:
    """(name, size, stream) of every regular file; links, devices and such are refused."""
    if kind == "zip":
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                mode = (info.external_attr >> 16) & 0o170000
                if mode not in (0, 0o100000):
                    raise ArchiveError(f"{info.filename!r} is not a regular file")
                with archive.open(info) as stream:
                    yield _safe(info.filename), info.file_size, stream
    else:
        with tarfile.open(path, mode="r:gz") as archive:
            for info in archive:
                if info.isdir():
                    continue
                if not info.isreg():
                    raise ArchiveError(f"{info.name!r} is not a regular file")
                stream = archive.extractfile(info)
                assert stream is not None
                yield _safe(info.name), info.size, stream
            # tar stops at its end marker: read the gzip stream to its end too, so a
            # truncated or trailing-garbage file is refused rather than kept as a snapshot
            while archive.fileobj.read(CHUNK):
                pass


def verify_archive(path: Path) -> ArchiveInfo:
    kind = archive_kind(path)
    if kind is None:
        raise ArchiveError("not a zip or tar.gz archive")
    manifest = None
    seen: dict[str, tuple[int, str]] = {}
    try:
        for name, size, stream in _members(path, kind):
            if name in seen or (name == MANIFEST and manifest is not None):
                raise ArchiveError(f"{name!r} appears twice")
            if name == MANIFEST:
                if size > MANIFEST_MAX:
                    raise ArchiveError("manifest.json is too large")
                try:
                    manifest = json.loads(stream.read(MANIFEST_MAX + 1))
                except ValueError:
                    raise ArchiveError("manifest.json is not JSON") from None
                continue
            digest, total = hashlib.sha256(), 0
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
                total += len(chunk)
            seen[name] = (total, digest.hexdigest())
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ArchiveError(f"unreadable archive: {type(exc).__name__}") from None
    if not isinstance(manifest, dict):
        raise ArchiveError("no manifest.json")
    if manifest.get("format") != "svc-display-backup" or manifest.get("format_version") != 1:
        raise ArchiveError("manifest.json is not a svc-display-backup manifest of format_version 1")
    listed = manifest.get("files")
    if not isinstance(listed, list):
        raise ArchiveError("manifest.json has no files list")
    expected: dict[str, tuple[int, str]] = {}
    for entry in listed:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) \
                or not isinstance(entry.get("bytes"), int) or not isinstance(entry.get("sha256"), str):
            raise ArchiveError("manifest.json has a malformed files entry")
        expected[entry["path"]] = (entry["bytes"], entry["sha256"].lower())
    for name, facts in seen.items():
        if name not in expected:
            raise ArchiveError(f"{name!r} is not listed in the manifest")
        if facts != expected[name]:
            raise ArchiveError(f"{name!r} does not match its size or sha256 in the manifest")
    missing = sorted(set(expected) - set(seen))
    if missing:
        raise ArchiveError(f"{missing[0]!r} is listed in the manifest but missing")
    schema = manifest.get("schema_version")
    return ArchiveInfo(kind, schema if isinstance(schema, int) and not isinstance(schema, bool) else None, len(seen))
