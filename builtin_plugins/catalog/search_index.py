"""Substring-search indexes for the RSS article catalog (the biggest table).

SQLite: an FTS5 table with the trigram tokenizer over ``title``, ``summary``, ``link`` and
``guid``, an external-content index of ``svc_rss_article`` kept in sync by triggers. A
trigram phrase query is an exact, case-insensitive substring match for needles of three or
more characters; shorter needles fall back to a scan.
PostgreSQL: ``pg_trgm`` GIN indexes on the same columns serve ``ILIKE '%needle%'``.
"""
from __future__ import annotations

import logging
from typing import Any

from pony import orm

log = logging.getLogger(__name__)

FTS_TABLE = "svc_rss_article_fts"
INDEXED_COLUMNS = ("title", "summary", "link", "guid")

# the catalog order (newest first, undated last), so a page need not sort every row
PG_ORDER_INDEX = ("CREATE INDEX IF NOT EXISTS svc_rss_article_catalog_order "
                  "ON svc_rss_article (published_at_ms DESC NULLS LAST, id DESC)")

_SQLITE_STATEMENTS = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(
        title, summary, link, guid, content='svc_rss_article', content_rowid='rowid', tokenize='trigram')""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ai AFTER INSERT ON svc_rss_article BEGIN
        INSERT INTO {FTS_TABLE}(rowid, title, summary, link, guid)
        VALUES (new.rowid, new.title, new.summary, new.link, new.guid);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ad AFTER DELETE ON svc_rss_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, link, guid)
        VALUES ('delete', old.rowid, old.title, old.summary, old.link, old.guid);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_au AFTER UPDATE OF title, summary, link, guid
        ON svc_rss_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, link, guid)
        VALUES ('delete', old.rowid, old.title, old.summary, old.link, old.guid);
        INSERT INTO {FTS_TABLE}(rowid, title, summary, link, guid)
        VALUES (new.rowid, new.title, new.summary, new.link, new.guid);
    END""",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]


def create_search_index(db: Any) -> None:
    """Migration: the FTS5 trigram index on SQLite, pg_trgm GIN indexes on PostgreSQL."""
    if getattr(db, "RssArticle", None) is None:  # content_model disabled: nothing to index
        return
    if db.provider_name == "sqlite":
        for statement in _SQLITE_STATEMENTS:
            db.execute(statement)
        return
    db.execute("SAVEPOINT svc_pg_trgm")
    try:
        db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception as exc:  # no privilege or not installed: search still works, by scanning
        db.execute("ROLLBACK TO SAVEPOINT svc_pg_trgm")
        log.warning("pg_trgm unavailable (%s); catalog substring filters will scan", exc)
        db.execute(PG_ORDER_INDEX)
        return
    db.execute("RELEASE SAVEPOINT svc_pg_trgm")
    for column in INDEXED_COLUMNS:
        db.execute(f"CREATE INDEX IF NOT EXISTS svc_rss_article_{column}_trgm "
                   f"ON svc_rss_article USING gin ({column} gin_trgm_ops)")
    db.execute(PG_ORDER_INDEX)


def has_fts(db: Any) -> bool:
    if db.provider_name != "sqlite":
        return False
    with orm.db_session:
        return bool(db.select(f"SELECT COUNT(*) FROM sqlite_master WHERE name = '{FTS_TABLE}'")[0])


def fts_phrase(needle: str) -> str:
    """An FTS5 phrase matching ``needle`` literally (double quotes doubled)."""
    return '"' + needle.replace('"', '""') + '"'
