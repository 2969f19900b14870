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

Triggers are created (or checked) the first time a process serves a route naming the table,
holding the table's write lock on PostgreSQL; a table whose version cannot be read is served
uncached. Only 200 bodies are cached; responders that opt in set only ``resp.media``.

Memory: an LRU of bodies capped at ``SVC_DISPLAY_LIST_CACHE_BYTES`` (default 16 MiB; 0
turns the cache off). A body larger than a quarter of the cap is not kept.
"""
from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

import falcon

from svc_host.storage import Reader, host_reader

log = logging.getLogger(__name__)

VERSIONS_TABLE = "svc_table_version"
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
SERVICE = "list_cache"


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
        """The current versions of ``tables`` (committed state, any process), or None when one
        is not kept (then the route is served uncached)."""
        missing = [table for table in tables if table not in self.checked]
        if missing and not self._ensure(missing):
            return None
        found = self.reader.fetchone(
            "SELECT " + ", ".join(f"(SELECT version FROM {VERSIONS_TABLE} WHERE table_name = ?)" for _ in tables),
            tuple(tables))
        if found is None or any(value is None for value in found):
            return None
        return tuple(found)

    def _ensure(self, tables: Sequence[str]) -> bool:
        with self.check_lock:
            try:
                for table in tables:
                    if table not in self.checked:
                        ensure_table_version(self.reader, table)
                        self.checked.add(table)
            except Exception:  # noqa: BLE001  served uncached; tried again on the next request
                log.exception("list cache: cannot keep the version of %s", tables)
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
def ensure_table_version(reader: Reader, table: str) -> None:
    """The version row and triggers of ``table`` (created when missing), in one transaction."""
    postgres = bool(reader.database_url)
    if postgres:
        statements = [
            f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} (table_name TEXT PRIMARY KEY, version BIGINT NOT NULL)",
            f'LOCK TABLE "{table}" IN SHARE ROW EXCLUSIVE MODE',
            f"CREATE OR REPLACE FUNCTION {VERSIONS_TABLE}_bump() RETURNS trigger LANGUAGE plpgsql AS $body$ "
            f"BEGIN UPDATE {VERSIONS_TABLE} SET version = {_PG_RANDOM} WHERE table_name = TG_TABLE_NAME; "
            f"RETURN NULL; END $body$",
            f'DROP TRIGGER IF EXISTS "{table}_version" ON "{table}"',
            f'CREATE TRIGGER "{table}_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "{table}" '
            f"FOR EACH STATEMENT EXECUTE FUNCTION {VERSIONS_TABLE}_bump()",
            f"INSERT INTO {VERSIONS_TABLE} (table_name, version) VALUES (?, {_PG_RANDOM}) "
            f"ON CONFLICT (table_name) DO UPDATE SET version = {_PG_RANDOM}",
        ]
    else:
        bump = f"BEGIN UPDATE {VERSIONS_TABLE} SET version = random() WHERE table_name = '{table}'; END"
        statements = [
            f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} (table_name TEXT PRIMARY KEY, version INTEGER NOT NULL)",
            *(f'CREATE TRIGGER IF NOT EXISTS "{table}_version_{event[0].lower()}" AFTER {event} ON "{table}" {bump}'
              for event in ("INSERT", "UPDATE", "DELETE")),
            f"INSERT INTO {VERSIONS_TABLE} (table_name, version) VALUES (?, random()) "
            f"ON CONFLICT (table_name) DO UPDATE SET version = random()",
        ]
    reader.transaction([(sql, (table,) if "?" in sql else ()) for sql in statements])


# Uniform over the positive 63-bit integers of a double's precision: never a value seen before
# in practice (a restored database keeps the values that stood for its rows).
_PG_RANDOM = "(floor(random() * 9.2e18))::bigint"
