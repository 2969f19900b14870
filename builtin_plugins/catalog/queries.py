"""One catalog page as SQL: substring filters (AND), suppression, order, count, limit/offset."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builtin_plugins.catalog.search_index import FTS_TABLE, fts_phrase
from builtin_plugins.common.query import substring_needle


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
        return f"instr(lower({column}), {self._param(needle.lower())}) > 0"

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
        return f"{self.column('suppressed')} = {self._param(value)}"

    def _fts_sql(self, ordered_walk: bool = False) -> str:
        # "+t.rowid" keeps SQLite from driving the query by rowid lookups, so that it walks
        # the ORDER BY index and probes the (materialised) match list instead.
        match = self._param(" AND ".join(self.fts_terms))
        rowid = "+t.rowid" if ordered_walk else "t.rowid"
        return f"{rowid} IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH {match})"

    def _where_sql(self, ordered_walk: bool = False) -> str:
        clauses = list(self.where)
        if self.suppressed is not None:
            clauses.append(self._suppressed_sql(self.suppressed))
        if self.fts_terms:
            clauses.append(self._fts_sql(ordered_walk))
        return (" WHERE " + " AND ".join(clauses)) if clauses else ""

    def _count(self, table: str) -> int:
        if not self.fts_terms or self.where:
            return int(self.db.select(f'SELECT COUNT(*) FROM "{table}" t{self._where_sql()}', self.params)[0])
        # Only search-index terms (and suppression): count index matches, and subtract (or
        # take) the suppressed ones, reached through the suppressed index - few rows.
        matches = int(self.db.select(
            f"SELECT COUNT(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH "
            f"{self._param(' AND '.join(self.fts_terms))}", self.params)[0])
        if self.suppressed is None:
            return matches
        hidden = int(self.db.select(
            f'SELECT COUNT(*) FROM "{table}" t WHERE {self._suppressed_sql(True)} AND {self._fts_sql(True)}',
            self.params)[0])
        return hidden if self.suppressed else matches - hidden

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
            if descending:
                parts.append(f"{column} DESC" + (" NULLS LAST" if self.postgres else ""))
            else:
                parts.append(f"{column} ASC")
        return (" ORDER BY " + ", ".join(parts)) if parts else ""

    def page(self, limit: int, offset: int) -> tuple[int, list[Any]]:
        table = self.entity._table_
        total = self._count(table)
        rows: list[Any] = []
        if total > offset:
            where = self._where_sql(self._walk_in_order(table, total, limit, offset))
            sql = f'SELECT t.* FROM "{table}" t{where}{self._order_sql()} LIMIT {int(limit)} OFFSET {int(offset)}'
            rows = list(self.entity.select_by_sql(sql, self.params))
        return total, rows
