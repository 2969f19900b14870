"""The staged database of a backup archive: integrity, applied migrations and schema."""
from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path

from svc_host.backup_archive.format import BackupTooNew, InvalidArchive

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")  # the app's table names: quoted safely


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


