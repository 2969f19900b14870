"""Throwaway databases for tests: a PostgreSQL database made on the local server and dropped
afterwards, and a plugin's migrations run against an old schema on SQLite and PostgreSQL."""
from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlparse, urlunparse

PG_ADMIN_URL = os.environ.get("SVC_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
"""The local PostgreSQL server the throwaway databases are made on (``SVC_TEST_PG_URL``)."""


@contextlib.contextmanager
def throwaway_pg_database(prefix: str = "svc_t_", admin_url: str = PG_ADMIN_URL) -> Iterator[str]:
    """The URL of a PostgreSQL database made on the server of ``admin_url``, dropped afterwards."""
    import psycopg2

    name = prefix + uuid.uuid4().hex[:16]
    admin = psycopg2.connect(admin_url)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunparse(urlparse(admin_url)._replace(path="/" + name))
    finally:
        with admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                           (name,))
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


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
             table: str) -> dict[str, list[dict[str, Any]]]:
    """``plugin``'s migrations run on an old database on each backend: ``old_schema`` (SQL, as the
    previous version left it) is written first, then a host is built with ``plugin``; the answer
    is ``table``'s rows (dicts, by first column) per backend, ``sqlite`` and ``postgres``."""
    from pony import orm

    rows: dict[str, list[dict[str, Any]]] = {}
    for backend in ("sqlite", "postgres"):
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
