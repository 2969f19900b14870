"""The controller's own database: users, sessions, backup targets and snapshots, the fleet.

One Pony database bound by the host kit (``svc_host.storage``): SQLite
``svc_controller.sqlite3`` in ``SVC_CONTROLLER_DATA_DIR``, or PostgreSQL at
``SVC_CONTROLLER_DATABASE_URL``. Tables come from the mapping; the ordered migrations
below are recorded in ``svc_applied_migration`` like the display's.
"""
from __future__ import annotations

import logging
import re

from pony import orm

from hookspecs import Migration
from svc_host.schema import add_column, check_tables, map_entities
from svc_host.storage import apply_migrations, bind_database, new_database

log = logging.getLogger(__name__)

MIGRATION_OWNER = "svc_controller"


def define_entities(db: orm.Database) -> None:
    class ControllerUser(db.Entity):
        _table_ = "ctl_user"
        id = orm.PrimaryKey(int, auto=True)
        username = orm.Required(str, 64, unique=True)
        password_hash = orm.Required(str, 300)
        created_at_ms = orm.Required(int, size=64)
        sessions = orm.Set("ControllerSession")

    class ControllerSession(db.Entity):
        _table_ = "ctl_session"
        token_hash = orm.PrimaryKey(str, 64)
        user = orm.Required(ControllerUser)
        created_at_ms = orm.Required(int, size=64)
        expires_at_ms = orm.Required(int, size=64)

    class BackupTarget(db.Entity):
        _table_ = "ctl_backup_target"
        id = orm.PrimaryKey(str, 32)
        scope = orm.Optional(str, 64, default="")  # "" when auth is off, else "user:<id>"
        display_id = orm.Required(str, 200)
        base_url = orm.Optional(str, 2000)  # "" when it follows a fleet display
        api_key_encrypted = orm.Optional(orm.LongStr, lazy=False, nullable=True)
        cron_expr = orm.Required(str, 200)
        timezone = orm.Required(str, 64)
        retention_count = orm.Required(int)
        enabled = orm.Required(bool, default=True)
        next_run_at_ms = orm.Optional(int, size=64, nullable=True)
        last_run_json = orm.Optional(orm.LongStr, lazy=False, nullable=True)
        created_at_ms = orm.Required(int, size=64)
        # a target that follows a display of the fleet registry: its baseUrl and apiKey are
        # that display's, read at each pull (base_url then holds "")
        fleet_display_id = orm.Optional(str, 64, nullable=True)
        snapshots = orm.Set("BackupSnapshot", cascade_delete=True)
        orm.composite_key(scope, display_id)

    class BackupSnapshot(db.Entity):
        _table_ = "ctl_backup_snapshot"
        id = orm.PrimaryKey(str, 32)
        target = orm.Required(BackupTarget)
        created_at_ms = orm.Required(int, size=64)
        bytes = orm.Required(int, size=64)
        sha256 = orm.Required(str, 64)
        source = orm.Required(str, 16)
        schema_version = orm.Optional(int, nullable=True)
        file_name = orm.Required(str, 200)

    class FleetDisplay(db.Entity):
        """A display of the fleet (CONTRACT "The fleet"): one organisation, every user sees it."""
        _table_ = "ctl_display"
        id = orm.PrimaryKey(str, 64)
        name = orm.Required(str, 200)
        base_url = orm.Required(str, 2000)
        api_key_encrypted = orm.Optional(orm.LongStr, lazy=False, nullable=True)
        group = orm.Optional(str, 64, default="")
        created_at_ms = orm.Required(int, size=64)
        # the poller's last result (svc_controller/fleet.py): the item's ``status``. Volatile: the
        # poller's threads commit them at any time, so a session that reads the row, then the fleet,
        # takes the newer value instead of failing (Pony's UnrepeatableReadError, a 500 on a GET)
        state = orm.Required(str, 16, default="unknown", volatile=True)
        status_json = orm.Optional(orm.LongStr, lazy=False, nullable=True, volatile=True)
        # the ``since_ms`` of the unreachable/degraded spell a "display.down" webhook was sent for
        alerted_since_ms = orm.Optional(int, size=64, nullable=True)


def _index(statement: str) -> Migration:
    def apply(db: orm.Database) -> None:
        db.execute(statement)
    return Migration(statement.split()[5], apply, statement)


MIGRATIONS = [
    Migration("0001_baseline", lambda db: None, "tables created from the mapping"),
    _index("CREATE INDEX IF NOT EXISTS ctl_snapshot_target_created ON ctl_backup_snapshot (target, created_at_ms)"),
    _index("CREATE INDEX IF NOT EXISTS ctl_target_due ON ctl_backup_target (enabled, next_run_at_ms)"),
    Migration("0004_fleet", lambda db: add_column(db, "ctl_backup_target", "fleet_display_id", "VARCHAR(64)"),
              "ctl_display (created from the mapping); backup targets may follow a fleet display"),
]


DISPLAY_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def valid_display_id(value: object) -> bool:
    """A fleet display's id (CONTRACT "The fleet"): ``[a-z0-9][a-z0-9-]{0,63}``."""
    return isinstance(value, str) and DISPLAY_ID.fullmatch(value) is not None


def row(entity, key: object):  # noqa: ANN001, ANN201
    """``entity[key]`` or None, for a key from a request path of any length or byte: a key the
    primary key column cannot hold (too long, a NUL, not text) names no row (never a 500)."""
    column = entity._pk_attrs_[0]
    max_len = column.args[0] if column.args and isinstance(column.args[0], int) else 10 ** 6
    if not isinstance(key, str) or "\x00" in key or len(key) > max_len:
        return None
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    return entity.get(**{column.name: key})


def open_database(settings, now_ms: int) -> tuple[orm.Database, int]:  # noqa: ANN001
    """Bind, map and migrate; returns the database and the number of applied migrations."""
    db = new_database()
    define_entities(db)
    provider = bind_database(db, settings.database_url, settings.sqlite_path)
    map_entities(db)  # created before migrations, checked after (svc_host/schema.py)
    applied = apply_migrations(db, [(MIGRATION_OWNER, m) for m in MIGRATIONS], now_ms)
    check_tables(db)
    log.info("storage: %s, %d migrations applied", provider, applied)
    return db, applied
