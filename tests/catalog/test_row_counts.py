"""Unfiltered catalog totals come from counter rows kept by triggers (row_counts.py), on SQLite and
PostgreSQL: exact through inserts, deletes, suppression changes and bulk statements, checked
against ``COUNT(*)``, and rebuilt at start when the triggers are missing."""
from __future__ import annotations

import pytest
from pony import orm

from builtin_plugins.catalog.row_counts import COUNTS_TABLE, row_counts
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests.content_rows import add_article, add_joke

pytestmark = pytest.mark.svc_display_storage


def counted(db, table: str) -> tuple[int, int]:
    with orm.db_session:
        total = int(db.select(f'SELECT COUNT(*) FROM "{table}"')[0])
        hidden = int(db.select(f'SELECT COUNT(*) FROM "{table}" WHERE suppressed')[0])
    return total, hidden


def kept(db, table: str) -> tuple[int, int] | None:
    with orm.db_session:
        return row_counts(db, table)


def totals(api: Api, viewer: str, path: str) -> tuple[int, int]:
    """``total`` as an admin (suppressed rows included) and as a viewer (not)."""
    admin = api.get(f"/v1/catalog/{path}").json["total"]
    return admin, api.get(f"/v1/catalog/{path}", key=viewer).json["total"]


def test_totals_follow_every_kind_of_write(make_host):
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    viewer = issue_key(host, "power_viewer")  # reads the catalog, not its suppressed rows
    db = host.db
    table = db.RssArticle._table_
    assert kept(db, table) == counted(db, table) == (0, 0)
    with orm.db_session:
        for index in range(30):
            add_article(db, f"a{index}", title=f"Story {index}", summary="s", suppressed=index % 10 == 0,
                        at=index)
    assert kept(db, table) == counted(db, table) == (30, 3)
    assert totals(api, viewer, "rss-articles") == (30, 27)
    with orm.db_session:
        db.RssArticle.select(lambda a: not a.suppressed).first().delete()
        db.RssArticle.select(lambda a: a.suppressed).first().suppressed = False
    assert kept(db, table) == counted(db, table) == (29, 2)
    with orm.db_session:  # bulk statements: one UPDATE and one DELETE over many rows
        db.execute(f'UPDATE "{table}" SET suppressed = $flag WHERE published_at_ms < 20', {"flag": True})
    assert kept(db, table) == counted(db, table)
    with orm.db_session:
        db.execute(f'DELETE FROM "{table}" WHERE published_at_ms >= 25')
    assert kept(db, table) == counted(db, table)
    rows, hidden = kept(db, table)
    assert totals(api, viewer, "rss-articles") == (rows, rows - hidden)
    with orm.db_session:  # a list without suppression: the total alone
        add_joke(db, "j1", setup="Knock knock", punchline="Who", at=1)
    assert totals(api, viewer, "jokes") == (1, 1)


def test_the_route_answers_from_the_counter_row(make_host):
    host = make_host()
    api = Api(host, issue_key(host, "admin"))
    with orm.db_session:
        add_joke(host.db, "j1", setup="Knock knock", punchline="Who", at=1)
        host.db.execute(f"UPDATE {COUNTS_TABLE} SET total = 41 WHERE table_name = $table",
                        {"table": host.db.Joke._table_})
    assert api.get("/v1/catalog/jokes").json["total"] == 41  # no COUNT(*) behind it
    assert api.get("/v1/catalog/jokes?setup=knock").json["total"] == 1  # a filter counts its matches


def test_missing_triggers_are_rebuilt_with_a_fresh_count_at_start(make_host, env):
    host = make_host()
    table = host.db.RssArticle._table_
    with orm.db_session:
        for index in range(5):
            add_article(host.db, f"a{index}", title=f"Story {index}", summary="s", at=index)
        on = f' ON "{table}"' if host.db.provider_name == "postgres" else ""
        host.db.execute(f"DROP TRIGGER {table}_count_ai{on}")
        add_article(host.db, "uncounted", title="Written while no trigger counted", summary="s", at=9)
    assert kept(host.db, table) == (5, 0)  # stale: what this start must not trust
    host.close()
    again = make_host()
    assert kept(again.db, table) == counted(again.db, table) == (6, 0)
    with orm.db_session:
        add_article(again.db, "after", title="Counted again", summary="s", at=10)
    assert kept(again.db, table) == (7, 0)


def trigger_ids(db) -> set:
    """Each trigger's name and identity (PostgreSQL's oid; SQLite's row in its schema table)."""
    with orm.db_session:
        if db.provider_name == "postgres":
            return set(db.select("SELECT tgname || ':' || oid FROM pg_trigger WHERE NOT tgisinternal"))
        return set(db.select("SELECT name || ':' || rowid FROM sqlite_master WHERE type = 'trigger'"))


def test_a_lost_counter_row_is_counted_again_at_start_and_the_triggers_kept(make_host, env):
    """A database emptied or restored with its triggers but without the counter row (a
    ``DELETE`` of the counters): the next start counts the table again and the triggers it kept
    go on counting; a start that finds both in place changes neither."""
    host = make_host()
    table = host.db.RssArticle._table_
    with orm.db_session:
        for index in range(3):
            add_article(host.db, f"a{index}", title=f"Story {index}", summary="s", at=index)
        host.db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE table_name = $table")
    triggers = trigger_ids(host.db)
    host.close()
    again = make_host()
    assert kept(again.db, table) == counted(again.db, table) == (3, 0)
    assert trigger_ids(again.db) == triggers  # not dropped and made again
    with orm.db_session:
        add_article(again.db, "after", title="Counted by the kept triggers", summary="s", at=10)
    assert kept(again.db, table) == (4, 0)
    again.close()
    third = make_host()  # both in place: the count is the triggers', not a new COUNT(*)
    with orm.db_session:
        third.db.execute(f"UPDATE {COUNTS_TABLE} SET total = 41 WHERE table_name = $table")
    third.close()
    assert kept(make_host().db, table) == (41, 0)


def test_the_counting_functions_are_made_again_only_when_they_differ(make_host, backend):
    """PostgreSQL's counting functions: a start that finds them as they should be leaves them
    (their catalog rows keep their transaction id), one that finds one changed replaces it."""
    if backend != "postgres":
        pytest.skip("SQLite's triggers count in their own bodies: no functions")
    host = make_host()
    query = "SELECT proname, xmin::text FROM pg_proc WHERE starts_with(proname, 'svc_catalog_count_')"
    with orm.db_session:
        before = dict(host.db.select(query))
        assert len(before) == 6
        host.db.execute("CREATE OR REPLACE FUNCTION svc_catalog_count_truncate() RETURNS trigger "
                        "LANGUAGE plpgsql AS $$body$$ BEGIN RETURN NULL; END $$body$$")
    host.close()
    again = make_host()
    with orm.db_session:
        after = dict(again.db.select(query))
        source = again.db.select("SELECT prosrc FROM pg_proc WHERE proname = 'svc_catalog_count_truncate'")[0]
    assert "total = 0" in source  # replaced
    changed = {name for name in before if after[name] != before[name]}
    assert changed == {"svc_catalog_count_truncate"}, changed
