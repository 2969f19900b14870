"""Tables that follow the plugins' entities: create, migrate, then check, naming the owner.

Pony's ``generate_mapping(create_tables=True)`` checks every table's columns before any
migration runs, so an entity that gained an attribute could never reach the migration
that adds its column, and the error named no plugin. The host therefore maps without the
check, creates only the tables that are missing, runs the migrations, and checks each
table afterwards against the plugin that declared it (:func:`check_tables`).

Plugins use :func:`add_column` in a migration to add a column to their own table; it is
a no-op when the column exists (a fresh install creates the table with it already).
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from pony import orm

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class TableCheckError(RuntimeError):
    """A table does not match its entity; ``table`` names it."""

    def __init__(self, table: str, message: str):
        super().__init__(message)
        self.table = table


def _identifier(name: str) -> str:
    # Table and column names cannot be bound as parameters; only plain identifiers pass.
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a plain SQL identifier")
    return name


def column_exists(db: orm.Database, table: str, column: str) -> bool:
    """True when ``table`` has ``column`` (SQLite or PostgreSQL). Call inside a ``db_session``."""
    _identifier(table), _identifier(column)
    if db.provider_name == "sqlite":
        rows = db.select(f'SELECT name FROM pragma_table_info("{table}")')
        return column in rows
    return bool(db.select("SELECT column_name FROM information_schema.columns "
                          "WHERE table_schema = current_schema() AND table_name = $table "
                          "AND column_name = $column"))


def add_column(db: orm.Database, table: str, column: str, sql_type: str, default: Any = None) -> bool:
    """Add ``column`` of ``sql_type`` (e.g. ``"TEXT"``, ``"INTEGER"``) to ``table`` unless present.

    ``default`` fills existing rows (and is the column's default). Returns True when the
    column was added. Call from a :class:`hookspecs.Migration`'s ``apply(db)``.
    """
    _identifier(table), _identifier(column)
    if not re.match(r"^[A-Za-z][A-Za-z0-9 (),]*$", sql_type):
        raise ValueError(f"{sql_type!r} is not a plain SQL type")
    if column_exists(db, table, column):
        return False
    statement = f'ALTER TABLE "{table}" ADD COLUMN "{column}" {sql_type}'
    if default is not None:
        if isinstance(default, bool) or not isinstance(default, (int, float, str)):
            raise ValueError("default must be a number or a string")
        literal = repr(default) if not isinstance(default, str) else "'" + default.replace("'", "''") + "'"
        statement += f" NOT NULL DEFAULT {literal}"
    db.execute(statement)
    return True


def map_entities(db: orm.Database) -> None:
    """Generate the mapping and create missing tables, without checking existing ones.

    Pony's ``create_tables`` asks the database about each table, index and foreign key in a
    query of its own (about 60 on the builtin plugins, a round trip each on PostgreSQL) even
    when all are there, as on every start after the first; the names are read here in one query,
    and Pony's pass runs only when one is missing (it then also refuses a name that differs only
    in case)."""
    db.generate_mapping(create_tables=False, check_tables=False)
    if missing_schema_objects(db):
        db.create_tables()


_PG_NAMES = """
SELECT 'Table', tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()
UNION ALL SELECT 'Index', indexname FROM pg_catalog.pg_indexes WHERE schemaname = current_schema()
UNION ALL SELECT 'Foreign key', con.conname FROM pg_catalog.pg_constraint con
  JOIN pg_catalog.pg_namespace ns ON con.connamespace = ns.oid
  WHERE con.contype = 'f' AND ns.nspname = current_schema()"""
_SQLITE_NAMES = "SELECT CASE type WHEN 'table' THEN 'Table' ELSE 'Index' END, name FROM sqlite_master " \
                "WHERE type IN ('table', 'index')"


def missing_schema_objects(db: orm.Database) -> list[tuple[str, str]]:
    """The ``(kind, name)`` of each table, index and foreign key of ``db``'s mapping that its
    database does not hold under exactly that name (Pony's kinds: ``Table``, ``Index``,
    ``Foreign key``); a table in another schema counts as missing. Call after the mapping."""
    provider = db.provider
    query = {"sqlite": _SQLITE_NAMES, "postgres": _PG_NAMES}.get(db.provider_name)
    wanted: list[tuple[str, str]] = []
    created: set = set()
    for table in db.schema.order_tables_to_create():
        for item in table.get_objects_to_create(created):
            name = item.name if isinstance(item.name, str) else None
            if query is None or name is None or \
                    provider.split_table_name(table.name)[0] not in (None, provider.default_schema_name):
                return [(item.typename, str(item.name))]  # not read here: Pony's pass decides
            wanted.append((item.typename, name))
    with orm.db_session:
        connection = db._get_cache().prepare_connection_for_query_execution()
        cursor = connection.cursor()
        cursor.execute(query)
        present = {(kind, name) for kind, name in cursor.fetchall()}
    return [item for item in wanted if item not in present]


def check_tables(db: orm.Database) -> None:
    """Check every table's columns, one table at a time, raising :class:`TableCheckError`.

    The query is Pony's own (``DBSchema.check_tables``) run per table so the failing one
    is known.
    """
    provider = db.provider
    with orm.db_session:
        connection = db._get_cache().prepare_connection_for_query_execution()
        for table in sorted(db.schema.tables.values(), key=lambda t: provider.split_table_name(t.name)):
            alias = provider.base_name(table.name)
            sql, _ = provider.ast2sql([
                "SELECT", ["ALL"] + [["COLUMN", alias, column.name] for column in table.column_list],
                ["FROM", [alias, "TABLE", table.name]],
                ["WHERE", ["EQ", ["VALUE", 0], ["VALUE", 1]]],
            ])
            cursor = connection.cursor()
            try:
                provider.execute(cursor, sql)
            except Exception as exc:  # noqa: BLE001  any driver error: name the table
                orm.rollback()
                raise TableCheckError(table.name, f"table {table.name!r} does not match its entity: "
                                                  f"{type(exc).__name__}: {str(exc).strip()}") from exc


def table_owners(db: orm.Database, entity_owner: Mapping[str, str]) -> dict[str, str]:
    """Table name -> plugin, from entity name -> plugin (tables of many-to-many links included)."""
    owners: dict[str, str] = {}
    for name, plugin in entity_owner.items():
        entity = db.entities.get(name)
        if entity is None:
            continue
        table = entity._table_
        owners[table if isinstance(table, str) else str(table)] = plugin
        for attr in entity._attrs_:
            link = getattr(attr, "table", None)
            if isinstance(link, str):
                owners.setdefault(link, plugin)
    return owners
