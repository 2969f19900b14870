"""The type schemas that passed their check, remembered across processes.

A host build checks each configurable type's JSON Schema against the 2020-12 meta-schema and its
example against the schema (:func:`svc_host.registries._schema_problem`). The first check of a
process costs about 0.3 s of CPU for the builtin types (jsonschema loads and resolves the
meta-schema), paid again by every ``svc-display`` process: each start, each CLI command, each
canvas child. The pairs that passed are the same from one process to the next, so their digests
are kept in the user's cache directory (``platformdirs.user_cache_dir("svc-display")``, one
64-character hex digest per line) and a pair found there is not checked again.

- A digest covers the jsonschema release and the exact JSON text of the schema and its example:
  another release or any change to either is checked afresh.
- Only passes are kept: a schema or example with a problem is checked, and refused, every time.
- The file is a cache, never a source of truth: unreadable, unwritable or garbled, it is ignored
  and the checks run as before. Past :data:`MAX_BYTES` it is started again.
- Writers append whole lines with ``O_APPEND`` (one ``write`` each), so processes starting at
  once do not mix their lines.
"""
from __future__ import annotations

import hashlib
import os
import re
import threading
from importlib import metadata
from pathlib import Path

import platformdirs

FILE_NAME = "checked-type-schemas"
MAX_BYTES = 256 * 1024
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def cache_file() -> Path:
    """Where the digests are kept (``XDG_CACHE_HOME`` honoured on Linux)."""
    return Path(platformdirs.user_cache_dir("svc-display")) / FILE_NAME


class CheckedSchemas:
    """The digests of one cache file, read once, added to as checks pass."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._known: set[str] | None = None
        self._salt = f"jsonschema {metadata.version('jsonschema')}\n"

    def _digest(self, text: str) -> str:
        return hashlib.sha256((self._salt + text).encode("utf-8")).hexdigest()

    def _load(self) -> set[str]:
        if self._known is None:
            try:
                with open(self.path, "rb") as f:
                    data = f.read(MAX_BYTES + 1)
            except OSError:
                data = b""
            self._known = {line for line in data.decode("ascii", "replace").splitlines() if _DIGEST.match(line)}
        return self._known

    def passed(self, text: str) -> bool:
        """Whether ``text`` (a schema and its example as JSON) passed its check before."""
        with self._lock:
            return self._digest(text) in self._load()

    def remember(self, text: str) -> None:
        """``text`` passed its check: kept for this process and the next ones."""
        digest = self._digest(text)
        with self._lock:
            known = self._load()
            if digest in known:
                return
            known.add(digest)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
                if self.path.exists() and self.path.stat().st_size > MAX_BYTES:
                    flags |= os.O_TRUNC  # started again: the current types' digests come back as they pass
                fd = os.open(self.path, flags, 0o600)
                try:
                    os.write(fd, (digest + "\n").encode("ascii"))
                finally:
                    os.close(fd)
            except OSError:
                pass  # a read-only or full home: the checks simply run in each process


_instances: dict[Path, CheckedSchemas] = {}
_instances_lock = threading.Lock()


def checked_schemas() -> CheckedSchemas:
    """The cache of the current user's cache file (one instance per path and process)."""
    path = cache_file()
    with _instances_lock:
        if path not in _instances:
            _instances[path] = CheckedSchemas(path)
        return _instances[path]
