"""One catalog page as SQL: substring filters (AND), suppression, order, count, limit/offset."""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Callable

from builtin_plugins.catalog.row_counts import row_counts
from hookspecs.content import TextIndex
from svc_host.kit.rest import substring_needle
from svc_host.kit.storage import select_rows

# SQLite's lower() folds ASCII letters only: a scanned needle is folded the same way.
SQLITE_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(frozen=True)
class Catalog:
    """A catalog list (from a content list): its entity, which query names filter which
    attributes, its order, and the search index tables present in this database."""

    path: str
    entity: str
    filters: dict[str, str]
    order: tuple[tuple[str, bool], ...]  # (attribute, descending)
    suppressible: bool = False
    index: TextIndex | None = None
    fts_table: str | None = None  # the trigram index, when it exists
    words_table: str | None = None  # the word index, when it exists
    # query name -> junction (table, event column, category column) also searched
    junction: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    serialize: Callable[[Any], Any] = dict

    @property
    def fts_columns(self) -> frozenset[str]:
        return self.index.columns if self.index is not None and self.fts_table else frozenset()


# A needle found in more words than this is searched through the trigram index instead.
MAX_TERMS = 128
# A page whose walk of the ORDER BY index should visit at most this many rows tests each
# visited row instead of materialising the matches.
SCAN_WALK_ROWS = 4000
# With filters besides the search index, at most this many index candidates are read,
# tested and ordered in one pass.
ONE_PASS_CANDIDATES = 20000


class CatalogQuery:
    """Builds and runs the count and the page query for one request.

    On SQLite with the list's search indexes (its :class:`~hookspecs.content.TextIndex`:
    ``use_fts``), text filters of three or more characters on indexed columns become FTS5
    ``MATCH`` expressions: one per index, the filters on it joined with ``AND``. Every
    filter also has its scan condition, used where the indexes do not help (the few
    suppressed rows). ``use_fts=False`` scans (the reference the indexes must agree with).
    """

    def __init__(self, db: Any, entity: Any, catalog: Catalog, use_fts: bool = True,
                 use_words: bool | None = None):
        self.db = db
        self.entity = entity
        self.catalog = catalog
        self.index = catalog.index
        self.use_fts = use_fts and catalog.fts_table is not None and self.index is not None
        self.use_words = (self.use_fts if use_words is None else use_words and self.use_fts) \
            and catalog.words_table is not None
        self.word_columns = self.index.word_columns if self.index is not None else frozenset()
        self.postgres = db.provider_name == "postgres"
        self.where: list[str] = []
        self.scans: list[str] = []  # the scan condition of every index-served filter
        self.params: dict[str, Any] = {}
        self.fts_terms: list[str] = []
        self.word_filters: list[tuple[str, str]] = []
        self.word_terms: list[str] = []
        self.suppressed: bool | None = None
        self.nothing = False

    def _param(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return "$" + name

    def column(self, attr: str) -> str | None:
        attribute = self.entity._adict_.get(attr)
        return f't."{attribute.column}"' if attribute is not None and attribute.columns else None

    def _contains(self, column: str, needle: str) -> str:
        if self.postgres:
            escaped = needle.replace("\\", "\\\\")
            return f"{column} ILIKE {self._param('%' + escaped + '%')}"
        # SQLite's lower() folds ASCII only; fold the needle the same way.
        return f"instr(lower({column}), {self._param(needle.translate(SQLITE_LOWER))}) > 0"

    def add_text_filter(self, name: str, value: str) -> None:
        needle = substring_needle(value)
        if not needle:
            return
        attr = self.catalog.filters[name]
        column = self.column(attr)
        if column is None:  # the entity lacks the field: nothing matches
            self.where.append("1 = 0")
            return
        condition = self._contains(column, needle)
        if self.use_fts and attr in self.catalog.fts_columns and len(needle) >= 3:
            index = self.index
            if self.use_words and attr in self.word_columns and index.is_one_word(needle):
                self.scans.append(condition)
                self.word_filters.append((attr, index.fold(needle)))
                return
            pieces = [piece for piece in index.words(needle) if len(piece) >= 3]
            if self.use_words and attr in self.word_columns and pieces:
                # Several words: each piece lies inside a word of every matching row, so
                # the word index gives candidates, and the row itself is tested.
                self.where.append(condition)
                self.word_filters.extend((attr, piece) for piece in pieces)
                return
            self.scans.append(condition)
            self.fts_terms.append(f"{attr} : {index.phrase(needle)}")
            return
        if name in self.catalog.junction:
            table, event_column, category_column = self.catalog.junction[name]
            inner = self._contains(f'j."{category_column}"', needle)
            condition = (f"({condition} OR EXISTS (SELECT 1 FROM {table} j "
                         f'WHERE j."{event_column}" = t."id" AND {inner}))')
        self.where.append(condition)

    def add_suppressed(self, value: bool) -> None:
        self.suppressed = value

    def _suppressed_sql(self, value: bool) -> str:
        # Active rows are nearly all rows: the suppressed index is useless for them and
        # would lure the planner away from better plans ("+" makes the term unindexable).
        prefix = "" if value or self.postgres else "+"
        return f"{prefix}{self.column('suppressed')} = {self._param(value)}"

    def _resolve_words(self) -> None:
        """Each one-word needle becomes ``column : (term OR term ...)`` over the words that
        contain it; a needle in too many words goes to the trigram index instead."""
        if not self.word_filters:
            return
        index = self.index
        index.sync_terms(self.db)
        for attr, needle in self.word_filters:
            terms = index.terms_containing(self.db, needle, MAX_TERMS)
            if terms is None:
                self.fts_terms.append(f"{attr} : {index.phrase(needle)}")
            elif not terms:
                self.nothing = True
            else:
                self.word_terms.append(f"{attr} : (" + " OR ".join(index.phrase(t) for t in terms) + ")")
        self.word_filters = []

    def _indexes(self) -> list[tuple[str, str]]:
        """(FTS table, MATCH expression) for each index the filters use. The word index
        also holds ``suppressed``, so hiding suppressed rows is part of its expression."""
        indexes = []
        if self.word_terms:
            match = " AND ".join(self.word_terms)
            if self.suppressed is False:
                match = f'({match}) NOT suppressed : "1"'
            indexes.append((self.catalog.words_table, match))
        if self.fts_terms:
            indexes.append((self.catalog.fts_table, " AND ".join(self.fts_terms)))
        return indexes

    def _where_sql(self, mode: str = "drive") -> str:
        """The WHERE clause. ``mode``: ``scan`` tests every filter on the row (for the few
        suppressed rows, or a walk of the ORDER BY index when matches are dense); ``walk``
        probes the materialised matches of each index while walking the ORDER BY index
        ("+t.rowid" keeps SQLite from driving by the match list); ``drive`` fetches the
        matches and sorts them."""
        clauses = list(self.where)
        if mode == "scan":
            clauses.extend(self.scans)
        if self.suppressed is not None:
            clauses.append(self._suppressed_sql(self.suppressed))
        if mode != "scan":
            rowid = "+t.rowid" if mode == "walk" else "t.rowid"
            for table, match in self._indexes():
                clauses.append(f"{rowid} IN (SELECT rowid FROM {table} WHERE {table} MATCH {self._param(match)})")
        return (" WHERE " + " AND ".join(clauses)) if clauses else ""

    def _count(self, table: str) -> int:
        indexes = self._indexes()
        if not indexes and not self.where:
            kept = row_counts(self.db, table)  # kept by triggers: no COUNT(*) over the table
            if kept is not None:
                total, hidden = kept
                if self.suppressed is None:
                    return total
                return hidden if self.suppressed else total - hidden
        if self.suppressed:  # the few suppressed rows, through their index, each filter tested on the row
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t{self._where_sql("scan")}', self.params)[0])
        if not indexes and not self.where and self.suppressed is False:
            # every row, less the few suppressed ones found through their index
            hidden = int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t WHERE {self._suppressed_sql(True)}',
                                        self.params)[0])
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t')[0]) - hidden
        if self.where or len(indexes) != 1:
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t{self._where_sql()}', self.params)[0])
        # One search index and no other filter: FTS5 counts its matches without touching
        # the table. The trigram index does not hold ``suppressed``: less the suppressed
        # rows that match, read through their index.
        index, match = indexes[0]
        total = self._index_count(index, match)
        if self.suppressed is False and index == self.catalog.fts_table:
            hidden = " AND ".join([*self.scans, self._suppressed_sql(True)])
            total -= int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t WHERE {hidden}', self.params)[0])
        return int(total)

    def _index_count(self, index: str, match: str) -> int:
        """The rows an FTS5 index matches, counted by FTS5 alone (the table is not read)."""
        return int(select_rows(self.db, f"SELECT COUNT(*) FROM {index} WHERE {index} MATCH $match",
                               {"match": match})[0][0])

    def _page_mode(self, table: str, total: int, limit: int, offset: int) -> str:
        """How to read the page.

        Walking the ORDER BY index visits about rows / matches * (offset + limit) rows.
        When that is small (dense matches), testing each visited row is cheapest (``scan``);
        otherwise walking while probing the materialised matches (``walk``) beats fetching
        and sorting every match (``drive``, about one row fetch per match) while the visits
        stay under ten times the matches.
        """
        if self.suppressed or not self._indexes():
            return "scan" if self.suppressed else "drive"
        rows = int(self.db.select(f'SELECT COALESCE(MAX(rowid), 0) FROM "{table}"')[0])
        visits = rows * (offset + limit) / max(total, 1)
        if visits <= SCAN_WALK_ROWS:
            return "scan"
        return "walk" if visits < 10 * total else "drive"

    def _order_sql(self) -> str:
        parts = []
        for attr, descending in self.catalog.order:
            column = self.column(attr)
            if column is None:
                continue
            if self.postgres and self.where and not parts and self.entity._adict_[attr].py_type is int:
                # With a filter, PostgreSQL tends to walk an order index hoping for early
                # matches; "+ 0" keeps it on the filter's (trigram) index and a small sort.
                column = f"({column} + 0)"
            if descending:
                parts.append(f"{column} DESC" + (" NULLS LAST" if self.postgres else ""))
            else:
                parts.append(f"{column} ASC")
        return (" ORDER BY " + ", ".join(parts)) if parts else ""

    def page(self, limit: int, offset: int) -> tuple[int, list[Any]]:
        table = self.entity._table_
        self._resolve_words()
        if self.nothing:
            return 0, []
        indexes = self._indexes()
        if self.where and indexes and not self.suppressed:
            # Other filters besides the index: the index bounds the candidates. When they
            # are few, one pass reads and orders the matching rowids (count and page
            # together) instead of testing the candidates twice.
            bound = min(self._index_count(index, match) for index, match in indexes)
            if bound <= ONE_PASS_CANDIDATES:
                ids = self.db.select(f'SELECT t.rowid FROM "{table}" t{self._where_sql()}{self._order_sql()}',
                                     self.params)
                page_ids = ", ".join(str(int(rowid)) for rowid in ids[offset:offset + limit])
                if not page_ids:
                    return len(ids), []
                sql = f'SELECT {{}} FROM "{table}" t WHERE t.rowid IN ({page_ids}){self._order_sql()}'
                return len(ids), column_rows(self.db, self.entity, sql, {})
        total = self._count(table)
        if total <= offset:
            return total, []
        where = self._where_sql(self._page_mode(table, total, limit, offset))
        sql = f'SELECT {{}} FROM "{table}" t{where}{self._order_sql()} LIMIT {int(limit)} OFFSET {int(offset)}'
        return total, column_rows(self.db, self.entity, sql, self.params)


class ColumnRow:
    """A page row as its column values (what Pony would hold for them), read with a plain
    ``SELECT``: materialising Pony entities took two thirds of a 25-row catalog page
    (``_fetch_objects``, docs/performance.md). An attribute that is no column of the row (a
    relation, a collection: a calendar event's categories) is read from the Pony entity,
    loaded for the whole page with one query the first time a row needs it."""

    def __init__(self, values: dict[str, Any], page: "_Page"):
        self.__dict__.update(values)
        self._page = page

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._page.entity_of(self), name)


class _Page:
    def __init__(self, entity: Any, sql: str, params: dict[str, Any]):
        self.entity, self.sql, self.params = entity, sql, params
        self.loaded = False

    def entity_of(self, row: ColumnRow) -> Any:
        if not self.loaded:  # into Pony's identity map: the lookups below read no more
            list(self.entity.select_by_sql(self.sql.format("t.*"), self.params))
            self.loaded = True
        key = tuple(row.__dict__[attr.name] for attr in self.entity._pk_attrs_)
        return self.entity[key if len(key) > 1 else key[0]]


def column_rows(db: Any, entity: Any, sql: str, params: dict[str, Any]) -> list[ColumnRow]:
    """The rows of ``sql`` (its select list a ``{}`` to fill) as :class:`ColumnRow`: every
    attribute stored in one column of the row, converted the way Pony converts it."""
    attrs = [attr for attr in entity._attrs_
             if not attr.is_collection and not attr.is_relation and len(attr.columns) == 1]
    if any(attr not in attrs for attr in entity._pk_attrs_):  # a relation in the key: entities as before
        return list(entity.select_by_sql(sql.format("t.*"), params))
    columns = ", ".join(f't."{attr.column}"' for attr in attrs)
    found = select_rows(db, sql.format(columns), params)
    convert = [(index, attr.converters[0].sql2py) for index, attr in enumerate(attrs)
               if attr.py_type not in (str, int)]
    names = [attr.name for attr in attrs]
    page = _Page(entity, sql, params)
    rows = []
    for values in found:
        if convert:
            values = list(values)
            for index, sql2py in convert:
                if values[index] is not None:
                    values[index] = sql2py(values[index])
        rows.append(ColumnRow(dict(zip(names, values)), page))
    return rows
