"""Cached list responses, served while the tables they were read from are unchanged.

A list route opts in with :func:`cached_list` on its ``on_get``, naming the tables its body
is read from and what else it varies by. The body is cached per (route, full query string,
``vary(req)``) together with the *versions* of those tables, and served again while the
versions read at the start of a later request are the same.

Versions are kept by database triggers, so every writer is seen: this process, another
display process on the same PostgreSQL database, a collector, the CLI, a direct SQL write.
One row per table in :data:`VERSIONS_TABLE` holds a random 63-bit value that every insert,
update, delete (and on PostgreSQL truncate) of the table replaces, in the writer's own
transaction:

- a write not committed (or rolled back) changes no version another connection can read;
- the versions are read first, on the thread's autocommit connection
  (:class:`svc_host.storage.Reader`, the connection of the API-key lookup; one indexed
  ``SELECT``), and the rows after them, so a body is never older than the versions it is
  stored under. A write committed in between makes the body newer than its versions; no
  later request reads those versions again (they were replaced), so it is never served as
  a state it is not;
- values are random, not counters: a restored database brings back old values together
  with the rows they stood for, never a value that now stands for other rows.

A route reading several tables reads one version too: its *group*'s (a row of the same table
named after a hash of the sorted table names, its members listed in :data:`GROUPS_TABLE`),
which the same triggers replace whenever any member changes. One indexed lookup per request
whatever the number of tables: under load every statement costs more than its own work (the
thread gives up the GIL for it and queues to take it back), and ten scalar subselects, one per
table, made ``GET /v1/ticker/items`` (ten tables) answer at 0.59 of the bare route, against 0.77
(level with ``GET /v1/screens``) with its group's one lookup (docs/performance.md).

Triggers are created (or checked) the first time a process serves a route naming the table,
and a group the first time a process serves a route naming it, holding the tables' write locks
on PostgreSQL (a writer in progress commits first; a later one sees the new trigger or group);
a table whose version cannot be read is served uncached. Only 200 bodies are cached; responders
that opt in set only ``resp.media``.

Memory: an LRU of bodies capped at ``SVC_DISPLAY_LIST_CACHE_BYTES`` (default 16 MiB; 0
turns the cache off). A body larger than a quarter of the cap is not kept.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

import falcon

from svc_host.storage import Reader, host_reader
from hookspecs.services import LIST_CACHE

log = logging.getLogger(__name__)

VERSIONS_TABLE = "svc_table_version"
GROUPS_TABLE = "svc_table_version_group"  # (group_name, table_name): the members of each group
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
SERVICE = LIST_CACHE  # hookspecs.services


class ListCache:
    """Bodies keyed by request, each with the table versions it was built under (LRU, bytes cap)."""

    def __init__(self, reader: Reader, max_bytes: int = DEFAULT_MAX_BYTES):
        self.reader = reader
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[tuple, tuple[tuple, bytes]] = OrderedDict()
        self.lock = threading.Lock()
        self.checked: set[str] = set()
        self.check_lock = threading.Lock()

    # -- versions -----------------------------------------------------------------------
    def versions(self, tables: Sequence[str]) -> tuple | None:
        """The current version of ``tables`` (committed state, any process), or None when it is
        not kept (then the route is served uncached): one table's own, or its group's."""
        names = tuple(sorted(set(tables)))
        row = version_row(names)
        if row not in self.checked and not self._ensure(names, row):
            return None
        found = self.reader.fetchone(f"SELECT version FROM {VERSIONS_TABLE} WHERE table_name = ?", (row,))
        if found is None or found[0] is None:
            return None
        return (found[0],)

    def _ensure(self, names: tuple[str, ...], row: str) -> bool:
        with self.check_lock:
            try:
                for table in names:
                    if table not in self.checked:
                        ensure_table_version(self.reader, table)
                        self.checked.add(table)
                if row not in self.checked:
                    ensure_group_version(self.reader, row, names)
                    self.checked.add(row)
            except Exception:  # noqa: BLE001  served uncached; tried again on the next request
                log.exception("list cache: cannot keep the version of %s", names)
                return False
        return True

    # -- bodies -------------------------------------------------------------------------
    def clear(self) -> None:
        """Forget every body (tests that change how a route computes its answer use it)."""
        with self.lock:
            self.entries.clear()
            self.bytes = 0

    def get(self, key: tuple, versions: tuple) -> bytes | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None or entry[0] != versions:
                return None
            self.entries.move_to_end(key)
            return entry[1]

    def put(self, key: tuple, versions: tuple, body: bytes) -> None:
        size = len(body) + _entry_overhead(key)
        if size > self.max_bytes // 4:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.bytes -= len(old[1]) + _entry_overhead(key)
            self.entries[key] = (versions, body)
            self.bytes += size
            while self.bytes > self.max_bytes:
                dropped_key, (_versions, dropped) = self.entries.popitem(last=False)
                self.bytes -= len(dropped) + _entry_overhead(dropped_key)


def _entry_overhead(key: tuple) -> int:
    """Bytes counted per entry beside its body: the key's text and a fixed allowance."""
    return 256 + sum(len(str(part)) for part in key)


def list_cache(host: Any) -> ListCache | None:
    """The host's list cache (made on first use), or None when turned off."""
    cache = host.services.get(SERVICE)
    if cache is None:
        max_bytes = getattr(host.settings, "list_cache_bytes", DEFAULT_MAX_BYTES)
        if max_bytes <= 0:
            return None
        cache = host.services.setdefault(SERVICE, ListCache(host_reader(host), max_bytes))
    return cache


def cached_list(tables: Callable[[Any], Sequence[str]],
                vary: Callable[[Any, falcon.Request], Any] | None = None) -> Callable:
    """Decorate a list resource's ``on_get(self, req, resp)`` (the resource has ``self.host``)
    whose body depends only on the rows of the tables named by ``tables(self)``, the path and
    query string, ``vary(self, req)`` (e.g. whether the principal sees suppressed rows) and
    what is fixed for the process (registries, settings). ``tables(self)`` returning None serves
    the request uncached (what the body reads is not known)."""
    from svc_host.http.app import dumps_json

    def decorate(responder: Callable) -> Callable:
        @functools.wraps(responder)
        def on_get(self: Any, req: falcon.Request, resp: falcon.Response, *args: Any, **kwargs: Any) -> None:
            cache = list_cache(self.host)
            names = tables(self) if cache is not None else None  # None: not cacheable now
            versions = cache.versions(tuple(names)) if names is not None else None
            if versions is None:
                return responder(self, req, resp, *args, **kwargs)
            key = (req.path, req.query_string, vary(self, req) if vary is not None else None)
            body = cache.get(key, versions)
            if body is None:
                responder(self, req, resp, *args, **kwargs)
                body = dumps_json(resp.media)
                if resp.status in (200, falcon.HTTP_200):
                    cache.put(key, versions, body)
            resp.media = None
            resp.data = body
            resp.content_type = falcon.MEDIA_JSON

        return on_get

    return decorate


# -- triggers ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)  # on every cached request: the same few table sets
def version_row(names: tuple[str, ...]) -> str:
    """The row of :data:`VERSIONS_TABLE` standing for ``names`` (sorted, distinct): the table's
    own for one table, else its group's, named by a hash of the names (the same in every process)."""
    if len(names) == 1:
        return names[0]
    return "group:" + hashlib.sha256("\n".join(names).encode()).hexdigest()[:24]


def _bumped(table_name: str) -> str:
    """Which version rows a write to ``table_name`` (an SQL expression) replaces: the table's
    own and those of the groups it belongs to."""
    return (f"table_name = {table_name} OR table_name IN "
            f"(SELECT group_name FROM {GROUPS_TABLE} WHERE table_name = {table_name})")


_CREATE_TABLES = (
    f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} (table_name TEXT PRIMARY KEY, version {{int}} NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {GROUPS_TABLE} (group_name TEXT NOT NULL, table_name TEXT NOT NULL, "
    f"PRIMARY KEY (group_name, table_name))",
)


def ensure_table_version(reader: Reader, table: str) -> None:
    """The version row and triggers of ``table`` (created when missing), in one transaction."""
    postgres = bool(reader.database_url)
    create = [sql.format(int="BIGINT" if postgres else "INTEGER") for sql in _CREATE_TABLES]
    if postgres:
        statements = [
            *create,
            f'LOCK TABLE "{table}" IN SHARE ROW EXCLUSIVE MODE',
            f"CREATE OR REPLACE FUNCTION {VERSIONS_TABLE}_bump() RETURNS trigger LANGUAGE plpgsql AS $body$ "
            f"BEGIN UPDATE {VERSIONS_TABLE} SET version = {_PG_RANDOM} WHERE {_bumped('TG_TABLE_NAME')}; "
            f"RETURN NULL; END $body$",
            f'DROP TRIGGER IF EXISTS "{table}_version" ON "{table}"',
            f'CREATE TRIGGER "{table}_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "{table}" '
            f"FOR EACH STATEMENT EXECUTE FUNCTION {VERSIONS_TABLE}_bump()",
            f"INSERT INTO {VERSIONS_TABLE} (table_name, version) VALUES (?, {_PG_RANDOM}) "
            f"ON CONFLICT (table_name) DO UPDATE SET version = {_PG_RANDOM}",
        ]
    else:
        statements = [
            *create,
            # the triggers before groups (they bumped the table's own row only)
            *(f'DROP TRIGGER IF EXISTS "{table}_version_{event[0].lower()}"' for event in _EVENTS),
            *sqlite_version_triggers(table),
            f"INSERT INTO {VERSIONS_TABLE} (table_name, version) VALUES (?, random()) "
            f"ON CONFLICT (table_name) DO UPDATE SET version = random()",
        ]
    reader.transaction([(sql, (table,) if "?" in sql else ()) for sql in statements])


def sqlite_version_tables() -> list[str]:
    """The statements creating the version and group tables on SQLite (the restore's schema
    check takes them for the app's own, ``svc_host/backup_archive/database.py``)."""
    return [sql.format(int="INTEGER") for sql in _CREATE_TABLES]


def sqlite_version_triggers(table: str) -> list[str]:
    """The statements creating the triggers that keep ``table``'s versions on SQLite."""
    literal = f"'{table}'"  # a table name of the app's own entities: no quote in it
    bump = f"BEGIN UPDATE {VERSIONS_TABLE} SET version = random() WHERE {_bumped(literal)}; END"
    return [f'CREATE TRIGGER IF NOT EXISTS "{table}_versions_{event[0].lower()}" AFTER {event} ON "{table}" '
            f"{bump}" for event in _EVENTS]


def ensure_group_version(reader: Reader, row: str, names: Sequence[str]) -> None:
    """The members and the version row of the group ``row`` of ``names`` (whose triggers exist),
    in one transaction; on PostgreSQL holding the members' write locks, so that no write
    commits unseen between the version and the membership."""
    postgres = bool(reader.database_url)
    random = _PG_RANDOM if postgres else "random()"
    statements: list[tuple[str, tuple]] = [
        (f'LOCK TABLE "{table}" IN SHARE ROW EXCLUSIVE MODE', ()) for table in names] if postgres else []
    statements += [(f"INSERT INTO {GROUPS_TABLE} (group_name, table_name) VALUES (?, ?) "
                    f"ON CONFLICT (group_name, table_name) DO NOTHING", (row, table)) for table in names]
    statements.append((f"INSERT INTO {VERSIONS_TABLE} (table_name, version) VALUES (?, {random}) "
                       f"ON CONFLICT (table_name) DO UPDATE SET version = {random}", (row,)))
    reader.transaction(statements)


_EVENTS = ("INSERT", "UPDATE", "DELETE")
# Uniform over the positive 63-bit integers of a double's precision: never a value seen before
# in practice (a restored database keeps the values that stood for its rows).
_PG_RANDOM = "(floor(random() * 9.2e18))::bigint"
