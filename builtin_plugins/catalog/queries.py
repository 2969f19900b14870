"""One catalog page as SQL: substring filters (AND), suppression, order, count, limit/offset."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from builtin_plugins.catalog.search_index import FTS_TABLE, fts_phrase
from builtin_plugins.common.query import substring_needle


ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Catalog:
    """A catalog list: its entity, which query names filter which attributes, its order."""

    path: str
    entity: str
    filters: dict[str, str]
    order: tuple[tuple[str, bool], ...]  # (attribute, descending)
    suppressible: bool = False
    fts_columns: frozenset[str] = field(default_factory=frozenset)
    # query name -> junction (table, event column, category column) also searched
    junction: dict[str, tuple[str, str, str]] = field(default_factory=dict)


class CatalogQuery:
    """Builds and runs ``COUNT(*)`` and the page query for one request."""

    def __init__(self, db: Any, entity: Any, catalog: Catalog, use_fts: bool):
        self.db = db
        self.entity = entity
        self.catalog = catalog
        self.use_fts = use_fts
        self.postgres = db.provider_name == "postgres"
        self.where: list[str] = []
        self.params: dict[str, Any] = {}
        self.fts_terms: list[str] = []
        self.suppressed: bool | None = None
        self._matches: list[int] | None = None

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
        return f"instr(lower({column}), {self._param(needle.translate(ASCII_LOWER))}) > 0"

    def add_text_filter(self, name: str, value: str) -> None:
        needle = substring_needle(value)
        if not needle:
            return
        attr = self.catalog.filters[name]
        column = self.column(attr)
        if column is None:  # the entity lacks the field: nothing matches
            self.where.append("1 = 0")
            return
        if self.use_fts and attr in self.catalog.fts_columns and len(needle) >= 3:
            self.fts_terms.append(f"{attr} : {fts_phrase(needle)}")
            return
        condition = self._contains(column, needle)
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

    def _fts_sql(self, ordered_walk: bool = False) -> str:
        # The index is queried once per request (``_match_ids``); the statements then read
        # the match list as a JSON array. "+t.rowid" keeps SQLite from driving the query by
        # rowid lookups, so that it walks the ORDER BY index and probes the match list.
        rowid = "+t.rowid" if ordered_walk else "t.rowid"
        return f"{rowid} IN (SELECT value FROM json_each({self._param(json.dumps(self._match_ids()))}))"

    def _match_ids(self) -> list[int]:
        if self._matches is None:
            self._matches = self._raw_column(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?",
                                             (" AND ".join(self.fts_terms),))
        return self._matches

    def _raw_column(self, sql: str, args: tuple) -> list[Any]:
        """One column through the session's DB-API connection (SQLite only): tens of
        thousands of ids come back several times faster than through ``db.select``."""
        return [row[0] for row in self.db.get_connection().execute(sql, args).fetchall()]

    def _where_sql(self, ordered_walk: bool = False) -> str:
        clauses = list(self.where)
        if self.suppressed is not None:
            clauses.append(self._suppressed_sql(self.suppressed))
        if self.fts_terms:
            clauses.append(self._fts_sql(ordered_walk))
        return (" WHERE " + " AND ".join(clauses)) if clauses else ""

    def _count(self, table: str) -> int:
        if self.fts_terms and not self._match_ids():
            return 0
        if not self.fts_terms and not self.where and self.suppressed is not None:
            # every row, less (or only) the few suppressed ones found through their index
            hidden = int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t WHERE {self._suppressed_sql(True)}',
                                        self.params)[0])
            if self.suppressed:
                return hidden
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t')[0]) - hidden
        if not self.fts_terms or self.where:
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t{self._where_sql()}', self.params)[0])
        # Only search-index terms (and suppression): the matches, less (or only) the
        # suppressed ones, which the suppressed index lists cheaply.
        matches = self._match_ids()
        if self.suppressed is None:
            return len(matches)
        column = self.column("suppressed")
        hidden_rows = self._raw_column(f'SELECT t.rowid FROM "{table}" t WHERE {column} = 1', ())
        hidden = len(set(hidden_rows).intersection(matches))
        return hidden if self.suppressed else len(matches) - hidden

    def _walk_in_order(self, table: str, total: int, limit: int, offset: int) -> bool:
        """Walk the ORDER BY index (probing matches) rather than sort every match?

        Sorting costs about one row fetch per match; the walk visits about
        rows / matches * (offset + limit) index entries, each several times cheaper.
        """
        if not self.fts_terms or total == 0:
            return False
        rows = int(self.db.select(f'SELECT COALESCE(MAX(rowid), 0) FROM "{table}"')[0])
        return rows * (offset + limit) < 10 * total * total

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
        total = self._count(table)
        rows: list[Any] = []
        if total <= offset:
            return total, rows
        walk = self._walk_in_order(table, total, limit, offset)
        if walk and not self.where:
            return total, self._walked_page(table, limit, offset)
        where = self._where_sql(walk)
        sql = f'SELECT t.* FROM "{table}" t{where}{self._order_sql()} LIMIT {int(limit)} OFFSET {int(offset)}'
        return total, list(self.entity.select_by_sql(sql, self.params))

    def _walked_page(self, table: str, limit: int, offset: int) -> list[Any]:
        """Walk the ORDER BY index and keep the rows in the match set until the page is full."""
        matches = set(self._match_ids())
        where = ""
        if self.suppressed is not None:
            where = f" WHERE {self.column('suppressed')} = {1 if self.suppressed else 0}"
        order = self._order_sql()
        cursor = self.db.get_connection().execute(f'SELECT t.rowid FROM "{table}" t{where}{order}')
        picked: list[int] = []
        try:
            while len(picked) < offset + limit:
                chunk = cursor.fetchmany(512)
                if not chunk:
                    break
                picked.extend(row[0] for row in chunk if row[0] in matches)
        finally:
            cursor.close()
        page_ids = picked[offset:offset + limit]
        if not page_ids:
            return []
        id_list = ", ".join(str(int(rowid)) for rowid in page_ids)
        return list(self.entity.select_by_sql(f'SELECT t.* FROM "{table}" t WHERE t.rowid IN ({id_list}){order}', {}))
