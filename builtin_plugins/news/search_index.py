"""Substring-search indexes for the RSS article catalog (the biggest table).

SQLite, two indexes kept in sync with ``svc_rss_article`` by triggers:

- a **word index** (FTS5, ``ascii`` tokenizer, ``detail=column``) over ``title`` and
  ``summary``, with a **term list** of every word it holds (itself indexed by trigrams). A
  needle without separators (ASCII characters other than letters and digits) occurs in a
  text exactly when it occurs inside one of the text's words, so the rows containing it are
  the rows holding any term that contains it: a short list of terms, each with a compact
  posting list. Counting a common word this way reads a few kilobytes instead of six long
  trigram position lists.
- a **trigram index** (FTS5, ``trigram`` tokenizer) over ``title``, ``summary``, ``link``
  and ``guid``: a phrase query is an exact, case-insensitive substring match for any needle
  of three or more characters (needles with spaces or punctuation, links, guids, and needles
  contained in too many terms).

New and changed rows queue their rowid in ``svc_rss_article_terms_pending``; their words
join the term list when the next search runs (or a writer calls :func:`sync_terms`), so
results are always exact. Shorter needles fall back to a scan.
PostgreSQL: ``pg_trgm`` GIN indexes on the same columns serve ``ILIKE '%needle%'``.

:data:`INDEX` offers both to the catalog as the RSS article list's
:class:`hookspecs.content.TextIndex`; the migrations below create them.
"""
from __future__ import annotations

import logging
import re
from typing import Any

from pony import orm

log = logging.getLogger(__name__)

FTS_TABLE = "svc_rss_article_fts"
INDEXED_COLUMNS = ("title", "summary", "link", "guid")
WORDS_TABLE = "svc_rss_article_words"
WORD_COLUMNS = ("title", "summary")
TERMS_TABLE = "svc_rss_article_terms"
TERMS_FTS = "svc_rss_article_terms_fts"
PENDING_TABLE = "svc_rss_article_terms_pending"
# Above this many pending rows, the term list is refreshed from the word index's own
# vocabulary (one pass over the index) instead of tokenizing each row in Python.
VOCABULARY_SYNC_ROWS = 20_000

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


_WORD_STATEMENTS = [
    # ``suppressed`` (0 or 1) is indexed too, so that "not suppressed" is a term of the query
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {WORDS_TABLE} USING fts5(
        title, summary, suppressed, content='svc_rss_article', content_rowid='rowid', tokenize='ascii',
        detail='column')""",
    f"CREATE TABLE IF NOT EXISTS {TERMS_TABLE} (term TEXT PRIMARY KEY)",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {TERMS_FTS} USING fts5(term, tokenize='trigram case_sensitive 1')",
    f"CREATE TABLE IF NOT EXISTS {PENDING_TABLE} (id INTEGER PRIMARY KEY, article_rowid INTEGER NOT NULL)",
    f"""CREATE TRIGGER IF NOT EXISTS {TERMS_TABLE}_ai AFTER INSERT ON {TERMS_TABLE} BEGIN
        INSERT INTO {TERMS_FTS}(term) VALUES (new.term);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {WORDS_TABLE}_ai AFTER INSERT ON svc_rss_article BEGIN
        INSERT INTO {WORDS_TABLE}(rowid, title, summary, suppressed)
        VALUES (new.rowid, new.title, new.summary, new.suppressed);
        INSERT INTO {PENDING_TABLE}(article_rowid) VALUES (new.rowid);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {WORDS_TABLE}_ad AFTER DELETE ON svc_rss_article BEGIN
        INSERT INTO {WORDS_TABLE}({WORDS_TABLE}, rowid, title, summary, suppressed)
        VALUES ('delete', old.rowid, old.title, old.summary, old.suppressed);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {WORDS_TABLE}_au AFTER UPDATE OF title, summary, suppressed
        ON svc_rss_article
        WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.suppressed IS NOT new.suppressed
        BEGIN
        INSERT INTO {WORDS_TABLE}({WORDS_TABLE}, rowid, title, summary, suppressed)
        VALUES ('delete', old.rowid, old.title, old.summary, old.suppressed);
        INSERT INTO {WORDS_TABLE}(rowid, title, summary, suppressed)
        VALUES (new.rowid, new.title, new.summary, new.suppressed);
        INSERT INTO {PENDING_TABLE}(article_rowid)
        SELECT new.rowid WHERE old.title IS NOT new.title OR old.summary IS NOT new.summary;
    END""",
    f"INSERT INTO {WORDS_TABLE}({WORDS_TABLE}) VALUES ('rebuild')",
]

# FTS5's ``ascii`` tokenizer: ASCII letters and digits and every non-ASCII character are
# token characters, any other ASCII character separates; ASCII letters fold to lower case.
_ASCII_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_words(text: str | None) -> set[str]:
    """The terms FTS5's ``ascii`` tokenizer makes of ``text``."""
    if not text:
        return set()
    return {token.translate(ASCII_LOWER) for token in _ASCII_SEPARATORS.split(text) if token}


def word_pieces(needle: str) -> list[str]:
    """The words of ``needle`` as the ``ascii`` tokenizer splits them, ASCII-folded."""
    return [token.translate(ASCII_LOWER) for token in _ASCII_SEPARATORS.split(needle) if token]


def is_one_word(needle: str) -> bool:
    """Whether ``needle`` has no separator, so that every occurrence lies inside one word."""
    return bool(needle) and _ASCII_SEPARATORS.search(needle) is None


def create_word_index(db: Any) -> None:
    """Migration: the word index, its term list and the pending queue (SQLite only)."""
    if getattr(db, "RssArticle", None) is None or db.provider_name != "sqlite":
        return
    for statement in _WORD_STATEMENTS:
        db.execute(statement)
    _sync_from_vocabulary(db.get_connection())


def _sync_from_vocabulary(connection: Any) -> None:
    """Every term of the word index into the term list; the pending queue emptied."""
    connection.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.svc_rss_vocab USING fts5vocab(main, {WORDS_TABLE}, 'row')")
    try:
        max_id = connection.execute(f"SELECT COALESCE(MAX(id), 0) FROM {PENDING_TABLE}").fetchone()[0]
        connection.execute(f"INSERT OR IGNORE INTO {TERMS_TABLE}(term) SELECT term FROM temp.svc_rss_vocab")
        connection.execute(f"DELETE FROM {PENDING_TABLE} WHERE id <= ?", (max_id,))
    finally:
        connection.execute("DROP TABLE IF EXISTS temp.svc_rss_vocab")


def sync_terms(db: Any) -> None:
    """Add the words of queued (new or changed) rows to the term list, inside the caller's
    ``db_session``; the search calls it first, writers may call it after a batch."""
    connection = db.get_connection()
    pending = connection.execute(f"SELECT COUNT(*), COALESCE(MAX(id), 0) FROM {PENDING_TABLE}").fetchone()
    if not pending[0]:
        return
    db.execute("SELECT 1")  # Pony opens (and will commit) the session's transaction
    if pending[0] > VOCABULARY_SYNC_ROWS:
        _sync_from_vocabulary(connection)
        return
    terms: set[str] = set()
    rows = connection.execute(
        f"SELECT a.title, a.summary FROM {PENDING_TABLE} p JOIN svc_rss_article a ON a.rowid = p.article_rowid "
        f"WHERE p.id <= ?", (pending[1],))
    for title, summary in rows:
        terms |= ascii_words(title)
        terms |= ascii_words(summary)
    connection.executemany(f"INSERT OR IGNORE INTO {TERMS_TABLE}(term) VALUES (?)", [(t,) for t in terms])
    connection.execute(f"DELETE FROM {PENDING_TABLE} WHERE id <= ?", (pending[1],))


def terms_containing(db: Any, needle: str, limit: int) -> list[str] | None:
    """The indexed words that contain ``needle`` (ASCII-folded, three characters or more);
    ``None`` when there are more than ``limit``."""
    rows = db.get_connection().execute(f"SELECT term FROM {TERMS_FTS} WHERE {TERMS_FTS} MATCH ? LIMIT ?",
                                       (fts_phrase(needle), limit + 1)).fetchall()
    if len(rows) > limit:
        return None
    return [row[0] for row in rows]


def create_search_index(db: Any) -> None:
    """Migration: the FTS5 trigram index on SQLite, pg_trgm GIN indexes on PostgreSQL."""
    if getattr(db, "RssArticle", None) is None:  # no article table: nothing to index
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


def _sqlite_table_exists(db: Any, name: str) -> bool:
    if db.provider_name != "sqlite":
        return False
    with orm.db_session:
        return bool(db.select("SELECT COUNT(*) FROM sqlite_master WHERE name = $name")[0])


def has_fts(db: Any) -> bool:
    return _sqlite_table_exists(db, FTS_TABLE)


def has_word_index(db: Any) -> bool:
    return _sqlite_table_exists(db, WORDS_TABLE)


def fts_phrase(needle: str) -> str:
    """An FTS5 phrase matching ``needle`` literally (double quotes doubled)."""
    return '"' + needle.replace('"', '""') + '"'


class RssArticleIndex:
    """The indexes above as the RSS article list's :class:`hookspecs.content.TextIndex`."""

    columns = frozenset(INDEXED_COLUMNS)
    word_columns = frozenset(WORD_COLUMNS)

    def tables(self, db: Any) -> tuple[str | None, str | None]:
        return (FTS_TABLE if has_fts(db) else None, WORDS_TABLE if has_word_index(db) else None)

    def sync_terms(self, db: Any) -> None:
        sync_terms(db)

    def terms_containing(self, db: Any, needle: str, limit: int) -> list[str] | None:
        return terms_containing(db, needle, limit)

    def fold(self, text: str) -> str:
        return text.translate(ASCII_LOWER)

    def words(self, needle: str) -> list[str]:
        return word_pieces(needle)

    def is_one_word(self, needle: str) -> bool:
        return is_one_word(needle)

    def phrase(self, needle: str) -> str:
        return fts_phrase(needle)


INDEX = RssArticleIndex()
