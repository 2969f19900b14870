"""Storage: one Pony database (SQLite file or PostgreSQL), migrations, blobs, instance id."""
from __future__ import annotations

import json
import logging
import os
import re
import secrets
import sqlite3
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import urlparse

from pony import orm

from hookspecs import Migration
from hookspecs.services import DB_READER

log = logging.getLogger(__name__)

INSTANCE_ID_FILE = "svc_instance.id"
POSTGRES_BASELINE_SCHEMA_VERSION = 1


def walk(value: object) -> Iterator[object]:
    """``value`` and every key and item nested in it (dicts, lists, tuples), without recursion:
    client data may nest deeper than Python's stack."""
    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict):
            for key, nested in item.items():
                stack.append(key)
                stack.append(nested)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _unstorable_string(value: object) -> bool:
    if not isinstance(value, str):
        return False
    if "\x00" in value:
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def unstorable_text(value: object) -> bool:
    """True when ``value`` (or any key or item nested in it) holds text that neither SQLite's
    nor PostgreSQL's driver can store: a NUL character or an unpaired surrogate."""
    return any(_unstorable_string(item) for item in walk(value))


def private_dir(path: Path) -> Path:
    """``path`` created (with parents) as 0700, or tightened to 0700 when it holds our data
    but others could read it: user data lives under it (docs/reliability.md, file modes)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077 and path.stat().st_uid == os.getuid():
        os.chmod(path, 0o700)
    return path


def new_database() -> orm.Database:
    """An unbound database with the host's own bookkeeping entity declared."""
    db = orm.Database()

    class AppliedMigration(db.Entity):
        _table_ = "svc_applied_migration"
        plugin = orm.Required(str, 200)
        migration_id = orm.Required(str, 200)
        applied_at_ms = orm.Required(int, size=64)
        orm.composite_key(plugin, migration_id)

    return db


def bind_database(db: orm.Database, database_url: str | None, sqlite_path: Path) -> str:
    """Bind ``db`` to PostgreSQL when a URL is given, else to the SQLite file. Returns the provider."""
    if database_url:
        db.bind(provider="postgres", dsn=_postgres_dsn(database_url))
        return "postgres"

    private_dir(sqlite_path.parent)
    # SQLite gives -wal and -shm the database file's mode: create it 0600, tighten older ones.
    if not sqlite_path.exists():
        os.close(os.open(sqlite_path, os.O_WRONLY | os.O_CREAT, 0o600))
    for path in (sqlite_path, *(sqlite_path.with_name(sqlite_path.name + s) for s in ("-wal", "-shm"))):
        if path.exists() and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)

    @db.on_connect(provider="sqlite")
    def _sqlite_pragmas(_db, connection):  # noqa: ANN001
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA busy_timeout = 10000")
        cursor.execute("PRAGMA synchronous = NORMAL")

    db.bind(provider="sqlite", filename=str(sqlite_path), create_db=True)
    return "sqlite"


def select_rows(db: orm.Database, sql: str, params: dict | None = None) -> list[tuple]:
    """The rows of a read-only ``sql`` (``$name`` parameters from ``params``) as tuples; needs
    a db_session.

    Cheaper than ``Database.select``, which builds a row class per call, and never through
    ``Database.get_connection``/``execute``, which on SQLite open ``BEGIN IMMEDIATE`` under a
    process-wide lock (every list request queued behind the others: docs/performance.md).
    On SQLite, Pony decodes every text value through a Python ``text_factory`` that replaces
    invalid UTF-8 (a call per value); this app stores only valid UTF-8, so the rows are
    decoded by ``str`` in C, and by Pony's decoder, as before, only when a value written by
    some other tool does not decode.
    """
    params = params or {}
    if db.provider_name != "sqlite":
        return db._exec_raw_sql(sql, params, {}, 0).fetchall()
    connection = db._get_cache().prepare_connection_for_query_execution()  # no transaction begun
    pony_factory = connection.text_factory
    connection.text_factory = str
    try:
        return db._exec_raw_sql(sql, params, {}, 0).fetchall()
    except sqlite3.OperationalError as exc:
        if "decode" not in str(exc):
            raise
    finally:
        connection.text_factory = pony_factory
    return db._exec_raw_sql(sql, params, {}, 0).fetchall()


def _postgres_dsn(database_url: str) -> str:
    parsed = urlparse(database_url)
    return database_url.replace(parsed.scheme + "://", "postgresql://", 1)


class Reader:
    """A DB-API connection of its own per thread, in autocommit, beside Pony's: for a lookup
    that must see every commit made before it, by any process, at the cost of one indexed
    ``SELECT`` and no ORM session (the API-key check of every request, builtin_plugins/clients).

    ``fetchone(sql, params)`` takes ``?`` placeholders on both databases. A connection that
    failed (PostgreSQL restarted) is dropped and the statement tried once on a new one.
    """

    def __init__(self, database_url: str | None, sqlite_path: Path):
        self.database_url = database_url
        self.sqlite_path = sqlite_path
        self.local = threading.local()
        self.opened: list = []
        self.lock = threading.Lock()

    def _connect(self):  # noqa: ANN202
        if self.database_url:
            import psycopg2

            connection = psycopg2.connect(_postgres_dsn(self.database_url))
            connection.autocommit = True
        else:
            connection = sqlite3.connect(self.sqlite_path, isolation_level=None, check_same_thread=False,
                                         timeout=10)
        with self.lock:
            self.opened.append(connection)
        return connection

    def fetchone(self, sql: str, params: tuple) -> tuple | None:
        if self.database_url:
            sql = sql.replace("?", "%s")
        for attempt in (1, 2):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = self.local.connection = self._connect()
            try:
                cursor = connection.cursor()
                try:
                    cursor.execute(sql, params)
                    return cursor.fetchone()
                finally:
                    cursor.close()
            except (sqlite3.OperationalError, *_postgres_connection_errors()):
                self.local.connection = None
                self._drop(connection)
                if attempt == 2:
                    raise
        return None

    def transaction(self, statements: list[tuple[str, tuple]]) -> None:
        """Run ``(sql, params)`` statements in one transaction (``BEGIN IMMEDIATE`` on SQLite)
        on the thread's connection; rolled back when one fails."""
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = self._connect()
        cursor = connection.cursor()
        try:
            cursor.execute("BEGIN" if self.database_url else "BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    cursor.execute(sql.replace("?", "%s") if self.database_url and params else sql, params)
                cursor.execute("COMMIT")
            except BaseException:
                cursor.execute("ROLLBACK")
                raise
        finally:
            cursor.close()

    def _drop(self, connection) -> None:  # noqa: ANN001
        with self.lock:
            if connection in self.opened:
                self.opened.remove(connection)
        try:
            connection.close()
        except Exception:  # noqa: BLE001  already broken
            pass

    def close(self) -> None:
        with self.lock:
            opened, self.opened = self.opened, []
        for connection in opened:
            try:
                connection.close()
            except Exception:  # noqa: BLE001  best effort at shutdown
                pass


def host_reader(host: Any) -> Reader:
    """The host's :class:`Reader` (made on first use; ``close_host_reader`` at shutdown): the
    API-key lookup and the list cache's table versions share its connections."""
    reader = host.services.get(DB_READER)
    if reader is None:
        reader = host.services.setdefault(DB_READER, Reader(host.settings.database_url, host.settings.sqlite_path))
    return reader


def close_host_reader(host: Any) -> None:
    reader = host.services.pop(DB_READER, None)
    if reader is not None:
        reader.close()


def _postgres_connection_errors() -> tuple[type[BaseException], ...]:
    try:
        import psycopg2
    except ImportError:
        return ()
    return (psycopg2.OperationalError, psycopg2.InterfaceError)


def apply_migrations(db: orm.Database, migrations: Iterable[tuple[str, Migration]], now_ms: int) -> int:
    """Run every not-yet-applied migration in order; return how many are applied in total."""
    for plugin, migration in migrations:
        with orm.db_session:
            if db.AppliedMigration.get(plugin=plugin, migration_id=migration.id):
                continue
            log.info("applying migration %s:%s", plugin, migration.id)
            migration.apply(db)
            db.AppliedMigration(plugin=plugin, migration_id=migration.id, applied_at_ms=now_ms)
    with orm.db_session:
        return orm.count(m for m in db.AppliedMigration)


def schema_version(db: orm.Database) -> int:
    """``/v1/health`` schema_version: applied migrations on SQLite, the baseline on PostgreSQL."""
    if db.provider_name == "postgres":
        return POSTGRES_BASELINE_SCHEMA_VERSION
    with orm.db_session:
        return orm.count(m for m in db.AppliedMigration)


def read_or_create_instance_id(data_dir: Path) -> str:
    """The adoption HMAC secret: created once (mode 0600), then read on every start."""
    path = data_dir / INSTANCE_ID_FILE
    private_dir(data_dir)
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    return path.read_text().strip()


def read_instance_id(data_dir: Path) -> str | None:
    """The instance id, or None when the file is missing, unreadable or empty."""
    try:
        value = (data_dir / INSTANCE_ID_FILE).read_text().strip()
    except OSError:
        return None
    return value or None


class BlobKeyError(ValueError):
    """A blob key that is malformed or would leave the media folder."""


_KEY_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
META_SUFFIX = ".meta.json"


@dataclass(frozen=True)
class Blob:
    key: str
    path: Path
    content_type: str
    size: int


class BlobStore:
    """Files under ``media/`` addressed by key, written atomically, with content-type metadata.

    A key is one to eight ``/``-separated segments of ``[A-Za-z0-9._-]`` (no leading dot),
    so no key can name a path outside the folder. Metadata sits beside the file as
    ``<key>.meta.json``; a blob is found only when both exist.
    """

    def __init__(self, root: Path):
        self.root = root

    def path_for(self, key: str) -> Path:
        if not isinstance(key, str) or not key or len(key) > 512:
            raise BlobKeyError("blob key must be a non-empty string of at most 512 characters")
        segments = key.split("/")
        if len(segments) > 8 or not all(_KEY_SEGMENT.match(s) for s in segments):
            raise BlobKeyError("blob key segments may use only letters, digits, '.', '_' and '-'")
        if key.endswith(META_SUFFIX):
            raise BlobKeyError("blob key may not end in " + META_SUFFIX)
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise BlobKeyError("blob key leaves the media folder")
        return path

    @staticmethod
    def new_key(prefix: str, extension: str = "") -> str:
        return f"{prefix}/{uuid.uuid4().hex}{extension}"

    def put(self, key: str, data: bytes, content_type: str) -> Blob:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
        meta = {"content_type": content_type, "size": len(data), "created_at_ms": int(time.time() * 1000)}
        _atomic_write(path.with_name(path.name + META_SUFFIX), json.dumps(meta).encode())
        return Blob(key, path, content_type, len(data))

    def get(self, key: str) -> Blob | None:
        try:
            path = self.path_for(key)
        except BlobKeyError:
            return None
        meta_path = path.with_name(path.name + META_SUFFIX)
        if not path.is_file() or not meta_path.is_file():
            return None
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            return None
        content_type = meta.get("content_type") if isinstance(meta, dict) else None
        return Blob(key, path, content_type or "application/octet-stream", path.stat().st_size)

    def delete(self, key: str) -> bool:
        try:
            path = self.path_for(key)
        except BlobKeyError:
            return False
        found = False
        for candidate in (path, path.with_name(path.name + META_SUFFIX)):
            try:
                candidate.unlink()
                found = True
            except FileNotFoundError:
                pass
        return found


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
