"""The kit's PostgreSQL databases for tests (svc_display/testing/databases.py): a template copy a
test used is handed to the next test only when it is one again, emptied; any other is dropped."""
from __future__ import annotations

import psycopg2
import pytest

from svc_display.testing.databases import PG_ADMIN_URL, require_postgres, throwaway_pg_database

pytestmark = pytest.mark.process  # it talks to the PostgreSQL server


@pytest.fixture(autouse=True)
def _postgres():
    require_postgres()


def query(url: str, sql: str, *args) -> list[tuple]:
    connection = psycopg2.connect(url)
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            return cursor.fetchall() if cursor.description else []
    finally:
        connection.close()


def exists(name: str) -> bool:
    return bool(query(PG_ADMIN_URL, "SELECT 1 FROM pg_database WHERE datname = %s", name))


def test_a_copy_used_again_has_no_rows_and_its_sequences_start_over_even_when_left_connected():
    with throwaway_pg_database(template=True) as url:
        tables = [row[0] for row in query(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        assert "svc_applied_migration" in tables
        for at in (1, 2):  # rows, and the id sequence moved on
            query(url, "INSERT INTO svc_applied_migration (plugin, migration_id, applied_at_ms) "
                       "VALUES ('t', %s, 1)", f"m{at}")
        left_open = psycopg2.connect(url)  # a connection a test forgot: ended, not waited for
        left_open.cursor().execute("SELECT count(*) FROM svc_applied_migration")
    with throwaway_pg_database(template=True) as again:
        assert again == url  # the same database, emptied
        for table in tables:
            assert query(again, f'SELECT count(*) FROM "{table}"') == [(0,)], table
        (row,) = query(again, "INSERT INTO svc_applied_migration (plugin, migration_id, applied_at_ms) "
                              "VALUES ('t', 'm1', 1) RETURNING id")
        assert row == (1,)  # the sequence started over
    with pytest.raises(psycopg2.Error):
        left_open.cursor().execute("SELECT 1")  # ended on the server's side
    left_open.close()


def test_a_copy_whose_schema_a_test_changed_is_dropped_not_used_again():
    with throwaway_pg_database(template=True) as url:
        query(url, "CREATE TABLE added_by_a_test (id integer)")
    name = url.rsplit("/", 1)[1]
    assert not exists(name)
    with throwaway_pg_database(template=True) as other:
        assert other != url
        assert not query(other, "SELECT 1 FROM pg_tables WHERE tablename = 'added_by_a_test'")
    with throwaway_pg_database(template=True) as url:
        query(url, "ALTER DATABASE \"%s\" SET work_mem = '8MB'" % url.rsplit("/", 1)[1])
    assert not exists(url.rsplit("/", 1)[1])  # a setting of its own: dropped too


def test_an_empty_database_is_never_used_again():
    with throwaway_pg_database() as url:
        pass
    assert not exists(url.rsplit("/", 1)[1])
