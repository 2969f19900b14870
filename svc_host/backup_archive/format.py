"""The backup archive's format: its member names and bounds, the verdicts on an archive, and its
manifest."""
from __future__ import annotations

import errno
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterator

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
