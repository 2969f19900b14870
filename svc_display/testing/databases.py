"""Throwaway databases for tests: a PostgreSQL database made on the local server and dropped
afterwards, and a plugin's migrations run against an old schema on SQLite or PostgreSQL.

PostgreSQL is optional: when no server answers on ``SVC_TEST_PG_URL`` a test that needs one is
skipped with one reason (:data:`PG_SKIP_REASON`, counted once in the run's summary), or fails
when ``SVC_REQUIRE_PG=1`` (CI sets it). SQLite needs nothing.
"""
from __future__ import annotations

import contextlib
import functools
import os
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import urlparse, urlunparse

PG_ADMIN_URL = os.environ.get("SVC_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
"""The local PostgreSQL server the throwaway databases are made on (``SVC_TEST_PG_URL``)."""


PG_SKIP_REASON = "PostgreSQL not reachable"
"""How a skip for want of PostgreSQL starts (the kit's run summary counts these)."""


@functools.lru_cache(maxsize=None)
def postgres_unreachable(admin_url: str = PG_ADMIN_URL) -> str | None:
    """None when the server of ``admin_url`` accepts a connection, else why not (asked once per
    process and URL; a refused or silent server answers within a few seconds)."""
    import psycopg2

    try:
        psycopg2.connect(admin_url, connect_timeout=5).close()
    except psycopg2.OperationalError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # 'connection to server at "127.0.0.1", port 5432 failed: Connection refused' -> the cause
        return lines[0].split(" failed: ", 1)[-1] if lines else type(exc).__name__
    return None


def require_postgres(admin_url: str = PG_ADMIN_URL) -> None:
    """Return when PostgreSQL answers on ``admin_url``; else skip the test asking for it with
    one clear reason, or fail it when ``SVC_REQUIRE_PG=1``."""
    import pytest

    reason = postgres_unreachable(admin_url)
    if reason is None:
        return
    where = urlparse(admin_url)
    message = f"{PG_SKIP_REASON} at {where.hostname}:{where.port or 5432} ({reason})"
    if os.environ.get("SVC_REQUIRE_PG") == "1":
        pytest.fail(f"{message}; SVC_REQUIRE_PG=1 requires it (start it, or set SVC_TEST_PG_URL)",
                    pytrace=False)
    pytest.skip(f"{message}: start it or set SVC_TEST_PG_URL; SVC_REQUIRE_PG=1 makes this a failure")


_TEMPLATES: dict[str, str] = {}  # admin URL -> this process's schema template database


@contextlib.contextmanager
def _builtin_host(env: dict[str, str] | None = None, with_routes: bool = True) -> Iterator[Any]:
    """A host of the builtin plugins only (every other installed plugin disabled) on a throwaway
    data dir, closed and removed after the block: what a schema template is made from."""
    import shutil
    import tempfile

    from svc_host.config import load_settings
    from svc_host.host import build_host
    from svc_host.plugins import builtin_names, installed_entry_points

    builtin = builtin_names()
    others = [ep.name for ep in installed_entry_points() if ep.name not in builtin]
    data_dir = tempfile.mkdtemp(prefix="svc-tpl-")
    try:
        host = build_host(load_settings({"SVC_DISPLAY_DATA_DIR": str(Path(data_dir) / "data"),
                                         "SVC_DISPLAY_HEADLESS": "1",
                                         "SVC_DISPLAY_DISABLE_PLUGINS": ",".join(others), **(env or {})}),
                          with_routes=with_routes)
        try:
            yield host
        finally:
            host.close()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _url_of(admin_url: str, name: str) -> str:
    return urlunparse(urlparse(admin_url)._replace(path="/" + name))


def _drop(admin: Any, name: str) -> None:
    with admin.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')


def schema_template(admin_url: str = PG_ADMIN_URL) -> str:
    """The name of a database holding the builtin plugins' tables, empty (made once per process
    on first use, dropped at exit): a test database copied from it (``CREATE DATABASE ...
    TEMPLATE``) skips the table creation a host build does on an empty PostgreSQL database,
    about a second of DDL. Rows, migration records and counters are removed, so a host built on
    the copy runs its migrations and first-start seeding as on an empty database; a plugin that
    is not builtin (a test's, an author's) creates its tables as it would anywhere."""
    name = _TEMPLATES.get(admin_url)
    if name is not None:
        return name
    import atexit

    import psycopg2

    name = "svc_tpl_" + uuid.uuid4().hex[:16]
    admin = psycopg2.connect(admin_url)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    atexit.register(lambda: _drop_quietly(admin_url, name))
    with _builtin_host({"SVC_DISPLAY_DATABASE_URL": _url_of(admin_url, name)}):
        pass  # its migrations made every table; the rows go below
    connection = psycopg2.connect(_url_of(admin_url, name))
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            tables = [row[0] for row in cursor.fetchall()]
            if tables:
                names = ", ".join(f'"{table}"' for table in tables)
                cursor.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
            connection.commit()
            cursor.execute(_SCHEMA)  # what an emptied copy must match to be used again
            fingerprint = cursor.fetchone()[0]
        connection.commit()
    finally:
        connection.close()
    with admin.cursor() as cursor:  # nothing may stay connected to a template
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    admin.close()
    _TEMPLATES[admin_url] = name
    _FINGERPRINTS[admin_url] = fingerprint
    return name


_SQLITE_TEMPLATE: list[bytes] = []  # this process's SQLite schema template, once made


def sqlite_template() -> bytes:
    """A SQLite database file (its bytes) holding the builtin plugins' tables as Pony creates them
    on an empty database, and nothing else (made once per process): a host built on a copy skips
    creating every table (``benchmarks/host_build.py``: 7 % of a build's CPU). The tables are the ones
    ``generate_mapping(create_tables=True)`` makes (Pony's own script for the builtin entities);
    what migrations make (indexes, full-text tables, triggers) and every row is left to the host's
    migrations and first-start seeding, which run as on an empty file. A test's own plugin creates
    its tables as it would anywhere. The PostgreSQL counterpart is :func:`schema_template`."""
    if _SQLITE_TEMPLATE:
        return _SQLITE_TEMPLATE[0]
    import sqlite3
    import tempfile

    with _builtin_host(with_routes=False) as host:
        script = host.db.schema.generate_create_script()
    with tempfile.TemporaryDirectory(prefix="svc-tpl-") as folder:
        path = Path(folder) / "template.sqlite3"
        connection = sqlite3.connect(path)
        try:
            connection.executescript(script)
            connection.commit()
        finally:
            connection.close()
        _SQLITE_TEMPLATE.append(path.read_bytes())
    return _SQLITE_TEMPLATE[0]


def seed_sqlite_file(path: Path) -> bool:
    """Write :func:`sqlite_template` to ``path`` (owner-only in an owner-only folder, as the host
    makes them) unless a file is there already; whether it was written."""
    from svc_host.storage import private_dir

    if path.exists():
        return False
    template = sqlite_template()
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        out.write(template)
    return True


def drop_templates() -> None:
    """Drop this process's schema templates and their emptied copies (the kit does it when the
    pytest session ends)."""
    drop_empty_copies()
    while _TEMPLATES:
        admin_url, name = _TEMPLATES.popitem()
        _drop_quietly(admin_url, name)


def _drop_quietly(admin_url: str, name: str) -> None:
    import psycopg2

    try:
        admin = psycopg2.connect(admin_url, connect_timeout=5)
        admin.autocommit = True
        _drop(admin, name)
        admin.close()
    except psycopg2.Error:
        pass


@contextlib.contextmanager
def throwaway_pg_database(prefix: str = "svc_t_", admin_url: str = PG_ADMIN_URL,
                          template: bool = False) -> Iterator[str]:
    """The URL of a PostgreSQL database made on the server of ``admin_url``, dropped afterwards
    (the test is skipped when no server answers: :func:`require_postgres`). Empty, or with
    ``template`` a copy of :func:`schema_template` (the builtin plugins' tables, no rows).

    A template copy is used again by the process's next test when it is one still: after the
    test, nothing else connected, its schema is the template's to the column, index, constraint,
    function and trigger (:data:`_SCHEMA`), so its rows are deleted and its sequences restarted
    (:func:`_emptied`); any other is dropped. Copying a template (``CREATE DATABASE ...
    TEMPLATE``: the whole catalog through the WAL) costs about 0.4 s, emptying one 0.04 s."""
    import psycopg2

    require_postgres(admin_url)
    admin = psycopg2.connect(admin_url)
    admin.autocommit = True
    pool = _EMPTY.setdefault(admin_url, []) if template else []
    if pool:
        name = pool.pop()
    else:
        name = prefix + uuid.uuid4().hex[:16]
        source = f' TEMPLATE "{schema_template(admin_url)}"' if template else ""
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"{source}')
    kept = False
    try:
        yield _url_of(admin_url, name)
    finally:
        try:
            kept = template and _emptied(admin, admin_url, name)
        finally:
            if kept:
                pool.append(name)
            else:
                _drop(admin, name)
            admin.close()


_EMPTY: dict[str, list[str]] = {}  # admin URL -> this process's emptied template copies, ready
_FINGERPRINTS: dict[str, str] = {}  # admin URL -> the schema fingerprint of its template

_OURS = "NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND {0} NOT LIKE 'pg\\_%temp\\_%'"
_SCHEMA = f"""SELECT md5(coalesce(string_agg(x, '|' ORDER BY x), '')) FROM (
  SELECT 'n:' || nspname AS x FROM pg_namespace WHERE nspname {_OURS.format('nspname')}
  UNION ALL SELECT 'k:' || n.nspname || '.' || c.relname || ':' || c.relkind::text
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname {_OURS.format('n.nspname')}
  UNION ALL SELECT 'c:' || table_schema || '.' || table_name || '.' || column_name || ':' || data_type || ':'
    || coalesce(column_default, '') || ':' || is_nullable
    FROM information_schema.columns WHERE table_schema {_OURS.format('table_schema')}
  UNION ALL SELECT 'i:' || indexdef FROM pg_indexes WHERE schemaname {_OURS.format('schemaname')}
  UNION ALL SELECT 'o:' || conname || ':' || pg_get_constraintdef(c.oid)
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname {_OURS.format('n.nspname')}
  UNION ALL SELECT 'f:' || p.oid::regprocedure::text
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname {_OURS.format('n.nspname')}
  UNION ALL SELECT 't:' || tgname || ':' || tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT 'y:' || n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname {_OURS.format('n.nspname')} AND t.typtype IN ('e', 'd', 'r', 'm')
  UNION ALL SELECT 'e:' || extname FROM pg_extension
  UNION ALL SELECT 's:' || count(*)::text FROM pg_db_role_setting
    WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) schema"""
"""One fingerprint of everything in a database a test could change besides its rows: its schemas,
relations (tables, indexes, sequences, views), columns, indexes, constraints, functions, triggers,
types, extensions and the database's own settings."""


def _emptied(admin: Any, admin_url: str, name: str) -> bool:
    """Whether the template copy ``name`` is one again, emptied: nothing else connected to it (what
    a test left connected is ended), its schema the template's (:data:`_SCHEMA`), then every row
    deleted and every sequence restarted, in one transaction. False (the caller drops it) when
    anything differs or fails."""
    import psycopg2

    try:
        with admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        expected = _FINGERPRINTS[admin_url]  # (made with the template this copy came from)
        connection = psycopg2.connect(_url_of(admin_url, name), connect_timeout=5)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '5s'")  # a lock still held: dropped rather than waited on
                cursor.execute(_SCHEMA)
                if cursor.fetchone()[0] != expected:
                    return False
                cursor.execute("SELECT format('DELETE FROM %I.%I', schemaname, tablename) FROM pg_tables "
                               f"WHERE schemaname {_OURS.format('schemaname')}")
                deletes = [row[0] for row in cursor.fetchall()]
                # rows in any order: the foreign keys' triggers are off for this transaction only
                # (a superuser's setting; any other user drops the copy instead)
                cursor.execute("SET LOCAL session_replication_role = replica")
                if deletes:
                    cursor.execute(";".join(deletes))
                cursor.execute("SELECT setval(seqrelid, seqstart, false) FROM pg_sequence")
            connection.commit()
        finally:
            connection.close()
    except psycopg2.Error:
        return False
    return True


def drop_empty_copies() -> None:
    """Drop this process's emptied template copies (the kit does it when the pytest session ends)."""
    while _EMPTY:
        admin_url, names = _EMPTY.popitem()
        for name in names:
            _drop_quietly(admin_url, name)


def _run_sql(database_url: str | None, data_dir: Path, statements: str) -> None:
    """``statements`` (``;``-separated SQL) on the host's database before the host first opens it."""
    if database_url:
        import psycopg2

        connection = psycopg2.connect(database_url)
    else:
        import sqlite3

        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        connection = sqlite3.connect(data_dir / "svc_display.sqlite3")
    try:
        cursor = connection.cursor()
        for statement in filter(str.strip, statements.split(";")):
            cursor.execute(statement)
        connection.commit()
    finally:
        connection.close()


def migrated(build: Callable[..., Any], env: dict[str, str], plugin: Any, old_schema: str,
             table: str, backends: Iterable[str] = ("sqlite",)) -> dict[str, list[dict[str, Any]]]:
    """``plugin``'s migrations run on an old database on each of ``backends`` (``sqlite``,
    ``postgres``): ``old_schema`` (SQL, as the previous version left it) is written into a fresh
    database first, then a host is built with ``plugin``; the answer is ``table``'s rows (dicts,
    by first column) per backend."""
    from pony import orm

    rows: dict[str, list[dict[str, Any]]] = {}
    for backend in backends:
        with contextlib.ExitStack() as stack:
            data_dir = Path(env["SVC_DISPLAY_DATA_DIR"]) / f"migrated-{backend}"
            # "" is no URL: the SQLite file, whatever backend the test itself runs on
            values = {**env, "SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_DATABASE_URL": ""}
            if backend == "postgres":
                values["SVC_DISPLAY_DATABASE_URL"] = stack.enter_context(throwaway_pg_database("svc_m_"))
            _run_sql(values["SVC_DISPLAY_DATABASE_URL"] or None, data_dir, old_schema)
            host = build(plugins=[plugin], env=values)
            try:
                with orm.db_session:
                    cursor = host.db.execute(f'SELECT * FROM "{table}" ORDER BY 1')
                    names = [column[0] for column in cursor.description]
                    rows[backend] = [dict(zip(names, row)) for row in cursor.fetchall()]
            finally:
                host.close()
    return rows
