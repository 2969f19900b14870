"""Cached list responses (svc_host/rest/listcache.py) on SQLite and PostgreSQL: byte-identical
to uncached ones after every kind of write, fresh on the next request after a write by REST,
by another process or by direct SQL, unchanged by a write not committed, within the memory cap,
and keyed by what the body depends on (who sees suppressed rows)."""
from __future__ import annotations

import sqlite3

import psycopg2
import pytest
from pony import orm

from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from svc_host.storage import _postgres_dsn
from svc_host.rest.listcache import SERVICE, VERSIONS_TABLE, ListCache, list_cache
from tests.content_rows import add_article

pytestmark = pytest.mark.svc_display_storage

LISTS = ("/v1/screens", "/v1/screens?include_config_schema=true", "/v1/ticker/tapes", "/v1/display/overlays",
         "/v1/catalog/rss-articles?limit=5", "/v1/catalog/rss-articles?limit=5&offset=2&title=story")


def direct_sql(host, sql: str, commit: bool = True):
    """A connection of another tool (not Pony's, not the host's): runs ``sql`` and commits or
    returns the open connection (the caller rolls it back)."""
    if host.settings.database_url:
        connection = psycopg2.connect(_postgres_dsn(host.settings.database_url))
        connection.cursor().execute(sql)
    else:
        connection = sqlite3.connect(host.settings.sqlite_path, isolation_level=None, timeout=10)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(sql)
    if commit:
        connection.commit() if host.settings.database_url else connection.execute("COMMIT")
        connection.close()
        return None
    return connection


def bodies(client: Api, paths=LISTS, key: str | None = None) -> dict[str, bytes]:
    found = {}
    for path in paths:
        response = client.get(path, key=key) if key else client.get(path)
        assert response.status_code == 200, (path, response.text)
        found[path] = response.text.encode()
    return found


def test_cached_bodies_equal_uncached_ones_after_every_kind_of_write(make_host):
    cached_host = make_host()
    plain_host = make_host({"SVC_DISPLAY_LIST_CACHE_BYTES": "0"})  # the same database, no cache
    cached = Api(cached_host, issue_key(cached_host, "admin", "cache-admin"))
    plain = Api(plain_host, issue_key(plain_host, "admin", "plain-admin"))
    assert list_cache(plain_host) is None
    viewer = issue_key(cached_host, "power_viewer", "cache-viewer")

    def same() -> dict[str, bytes]:
        first = bodies(cached)
        assert bodies(cached) == first  # served from the cache
        assert bodies(plain) == first
        assert bodies(cached, LISTS[-2:], viewer) == bodies(plain, LISTS[-2:], viewer)
        return first

    before = same()
    assert cached_host.services[SERVICE].entries  # the cache holds them
    created = cached.post("/v1/screens", json={"id": "menu", "screen_type": "message",
                                               "config_json": {"body": "hi"}})
    assert created.status_code == 201, created.text
    after_post = same()
    assert after_post["/v1/screens"] != before["/v1/screens"] and b'"menu"' in after_post["/v1/screens"]
    assert plain.patch("/v1/screens/menu", json={"sort_order": 7}).status_code == 200  # the other host
    after_patch = same()
    assert b'"sort_order":7' in after_patch["/v1/screens"]
    with orm.db_session:  # the ORM of the cached host itself, and bulk rows
        for index in range(12):
            add_article(cached_host.db, f"a{index}", title=f"Story {index}", summary="s",
                        suppressed=index % 4 == 0, at=index)
    after_rows = same()
    assert after_rows["/v1/catalog/rss-articles?limit=5"] != before["/v1/catalog/rss-articles?limit=5"]
    assert b"suppressed" in cached.get("/v1/catalog/rss-articles?limit=5").text.encode()
    assert b"suppressed" not in cached.get("/v1/catalog/rss-articles?limit=5", key=viewer).text.encode()
    table = cached_host.db.RssArticle._table_
    direct_sql(cached_host, f"UPDATE \"{table}\" SET title = 'Direct story' WHERE id = 'a11'")
    after_sql = same()
    assert b"Direct story" in after_sql["/v1/catalog/rss-articles?limit=5"]
    screens = cached_host.db.Screen._table_
    direct_sql(cached_host, f'DELETE FROM "{screens}"')
    assert same()["/v1/screens"] == b'{"items":[]}'


def test_a_write_not_committed_changes_nothing_and_a_rolled_back_one_neither(make_host):
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    assert api.post("/v1/screens", json={"id": "menu", "screen_type": "message",
                                         "config_json": {"body": "hi"}}).status_code == 201
    before = bodies(api, ("/v1/screens",))
    versions = host.services[SERVICE].versions([host.db.Screen._table_])
    screens = host.db.Screen._table_
    open_write = direct_sql(host, f"UPDATE \"{screens}\" SET sort_order = 99", commit=False)
    try:
        assert bodies(api, ("/v1/screens",)) == before  # the write is not committed yet
        assert host.services[SERVICE].versions([screens]) == versions
    finally:
        open_write.rollback() if host.settings.database_url else open_write.execute("ROLLBACK")
        open_write.close()
    assert host.services[SERVICE].versions([screens]) == versions
    assert bodies(api, ("/v1/screens",)) == before
    assert b'"sort_order":99' not in before["/v1/screens"]
    direct_sql(host, f"UPDATE \"{screens}\" SET sort_order = 99")
    assert b'"sort_order":99' in bodies(api, ("/v1/screens",))["/v1/screens"]
    assert host.services[SERVICE].versions([screens]) != versions


def test_the_memory_cap_holds(make_host):
    host = make_host({"SVC_DISPLAY_LIST_CACHE_BYTES": "20000"})
    api = Api(host, issue_key(host, "admin"))
    with orm.db_session:
        for index in range(40):
            add_article(host.db, f"a{index}", title=f"Story {index} " + "x" * 100, summary="s", at=index)
    cache = host.services.get(SERVICE) or list_cache(host)
    pages = {}
    for offset in range(40):
        path = f"/v1/catalog/rss-articles?limit=3&offset={offset}"
        pages[path] = api.get(path).text
        assert cache.bytes <= cache.max_bytes == 20000
    assert 0 < len(cache.entries) < 40  # the oldest were dropped
    for path, text in pages.items():  # and every page still answers the same
        assert api.get(path).text == text
    assert cache.bytes <= cache.max_bytes


def test_a_table_without_its_version_row_is_served_uncached(make_host):
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    first = bodies(api, ("/v1/screens",))
    direct_sql(host, f"DELETE FROM {VERSIONS_TABLE}")
    cache: ListCache = host.services[SERVICE]
    assert cache.versions([host.db.Screen._table_]) is None
    assert api.post("/v1/screens", json={"id": "menu", "screen_type": "message",
                                         "config_json": {"body": "hi"}}).status_code == 201
    assert bodies(api, ("/v1/screens",)) != first


@pytest.mark.slow
def test_two_servers_on_one_database_see_each_others_writes_on_the_next_request(start_server, env, backend,
                                                                                  tmp_path):
    """Real server processes: a write through either, or by direct SQL, shows on the very next
    list request of both, after both have served (and cached) the list many times."""
    first = start_server()
    second_env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data-second")} if backend == "postgres" else {}
    second = start_server(second_env)
    admin = first.key("admin")
    servers = (first, second)

    def listed() -> list[bytes]:
        seen = []
        for _ in range(3):
            for process in servers:
                response = process.get("/v1/screens", key=admin)
                assert response.status_code == 200, response.text
                seen.append(response.content)
        assert len(set(seen)) == 1, seen
        return seen[0]

    assert listed() == b'{"items":[]}'
    for index, changer in enumerate(servers):
        created = changer.request("POST", "/v1/screens", key=admin,
                                  json={"id": f"s{index}", "screen_type": "message", "config_json": {"body": "x"}})
        assert created.status_code == 201, created.text
        assert f'"s{index}"'.encode() in listed()
    if backend == "postgres":
        connection = psycopg2.connect(_postgres_dsn(env["SVC_DISPLAY_DATABASE_URL"]))
        with connection, connection.cursor() as cursor:
            cursor.execute('UPDATE "svc_screen" SET sort_order = 42')
        connection.close()
    else:
        connection = sqlite3.connect(first.data_dir / "svc_display.sqlite3", isolation_level=None, timeout=10)
        connection.execute('UPDATE "svc_screen" SET sort_order = 42')
        connection.close()
    assert listed().count(b'"sort_order":42') == 2


def test_a_route_over_several_tables_reads_one_group_version_that_any_member_changes(make_host):
    """``GET /v1/ticker/items`` reads many tables: one version row stands for them all, and a
    write to any of them (another tool, committed) replaces it; one not committed does not."""
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    cache: ListCache = list_cache(host)
    screens, tapes = host.db.Screen._table_, host.db.TickerTape._table_
    assert api.post("/v1/screens", json={"id": "menu", "screen_type": "message",
                                         "config_json": {"body": "hi"}}).status_code == 201
    assert api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": "text", "enabled": False,
                                              "config_json": {"text": "off"}}).status_code == 201
    group = cache.versions([tapes, screens])
    assert group is not None and len(group) == 1
    assert cache.versions([screens, tapes, screens]) == group  # order and repeats do not matter
    own = cache.versions([screens])
    open_write = direct_sql(host, f'UPDATE "{tapes}" SET sort_order = 5', commit=False)
    try:
        assert cache.versions([screens, tapes]) == group
    finally:
        open_write.rollback() if host.settings.database_url else open_write.execute("ROLLBACK")
        open_write.close()
    assert cache.versions([screens, tapes]) == group
    direct_sql(host, f'UPDATE "{tapes}" SET sort_order = 5')
    changed = cache.versions([screens, tapes])
    assert changed != group
    assert cache.versions([screens]) == own  # a member's own version moves only with its own writes
    direct_sql(host, f'DELETE FROM "{screens}"')
    assert cache.versions([screens, tapes]) != changed
    assert cache.versions([screens]) != own

    # the route itself: a marquee line written by another tool shows on the very next request
    key_values = host.db.KeyValue._table_
    assert api.get("/v1/ticker/items").json["items"] == []
    assert api.get("/v1/ticker/items").json["items"] == []  # cached
    direct_sql(host, f"INSERT INTO \"{key_values}\" (key, value) VALUES ('ticker.marquee.sql', 'From SQL')")
    assert [item["body"] for item in api.get("/v1/ticker/items").json["items"]] == ["From SQL"]


def test_tables_with_the_triggers_of_before_groups_get_the_new_ones(make_host):
    """A database whose version triggers bump only their own table's row (before groups) gets
    triggers that bump groups too the first time a process serves the table (SQLite: triggers
    renamed; PostgreSQL: the one trigger function replaced)."""
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    assert api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": "text", "enabled": False,
                                              "config_json": {"text": "off"}}).status_code == 201
    cache: ListCache = list_cache(host)
    screens, tapes = host.db.Screen._table_, host.db.TickerTape._table_
    postgres = bool(host.settings.database_url)
    old = [f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} "
           f"(table_name TEXT PRIMARY KEY, version {'BIGINT' if postgres else 'INTEGER'} NOT NULL)"]
    if postgres:
        old.append(f"CREATE OR REPLACE FUNCTION {VERSIONS_TABLE}_bump() RETURNS trigger LANGUAGE plpgsql AS "
                   f"$body$ BEGIN UPDATE {VERSIONS_TABLE} SET version = version + 1 "
                   f"WHERE table_name = TG_TABLE_NAME; RETURN NULL; END $body$")
    for table in (screens, tapes):
        if postgres:
            old.append(f'CREATE TRIGGER "{table}_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE '
                       f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION {VERSIONS_TABLE}_bump()')
        else:
            old += [f'CREATE TRIGGER "{table}_version_{event[0].lower()}" AFTER {event} ON "{table}" '
                    f"BEGIN UPDATE {VERSIONS_TABLE} SET version = random() WHERE table_name = '{table}'; END"
                    for event in ("INSERT", "UPDATE", "DELETE")]
        old.append(f"INSERT INTO {VERSIONS_TABLE} VALUES ('{table}', 1)")
    direct_sql(host, "; ".join(old) if postgres else old[0])
    if not postgres:  # sqlite3 runs one statement per execute
        for statement in old[1:]:
            direct_sql(host, statement)
    group = cache.versions([screens, tapes])
    if not postgres:
        triggers = {row[0] for row in direct_sql_rows(host, "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert not any(name.startswith(f"{tapes}_version_") for name in triggers), triggers
    direct_sql(host, f'UPDATE "{tapes}" SET sort_order = 5')
    assert cache.versions([screens, tapes]) != group


def direct_sql_rows(host, sql: str) -> list[tuple]:
    connection = sqlite3.connect(host.settings.sqlite_path, isolation_level=None, timeout=10)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()
