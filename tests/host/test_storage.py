"""Storage on SQLite and PostgreSQL: pragmas, migrations, schema_version, blobs, instance id."""
import os
import stat

import pytest
from pony import orm

from hookspecs import Migration, hookimpl
from svc_host.storage import BlobKeyError, BlobStore

pytestmark = pytest.mark.svc_display_storage


class CountingPlugin:
    """Declares an entity and two ordered migrations that record the order they ran in."""

    def __init__(self):
        self.runs = []

    @hookimpl
    def register_entities(self, db):
        class Note(db.Entity):
            _table_ = "test_note"
            text = orm.Required(str)

    @hookimpl
    def register_migrations(self):
        def first(db):
            self.runs.append("first")
            db.Note(text="seeded")

        def second(db):
            self.runs.append("second")
            db.Note.get(text="seeded").text = "seeded and migrated"

        return [Migration("0001_seed", first), Migration("0002_change", second)]


def test_migrations_run_once_in_order_and_are_counted(make_host, backend):
    plugin = CountingPlugin()
    host = make_host(plugins=[("counting", plugin)])
    assert plugin.runs == ["first", "second"]
    with orm.db_session:
        assert [n.text for n in host.db.Note.select()] == ["seeded and migrated"]
    # every applied migration counts, the builtin plugins' ones too
    expected = 1 if backend == "postgres" else len(host.registries.migrations)
    assert [m.id for name, m in host.registries.migrations if name == "counting"] == ["0001_seed", "0002_change"]
    assert host.schema_version() == expected
    host.close()

    again = make_host(plugins=[("counting", plugin)])
    assert plugin.runs == ["first", "second"]  # nothing re-ran
    assert again.schema_version() == expected


@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)  # pragmas are SQLite's own
def test_sqlite_runs_in_wal_with_foreign_keys(make_host, backend):
    host = make_host()
    with orm.db_session:
        assert host.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert host.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert host.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert host.settings.sqlite_path.exists()


def test_postgres_is_used_when_a_url_is_set(make_host, backend):
    host = make_host()
    assert host.db.provider_name == backend
    if backend == "postgres":
        assert not host.settings.sqlite_path.exists()


def test_instance_id_is_created_once_with_mode_0600(make_host, env):
    host = make_host()
    path = host.settings.data_dir / "svc_instance.id"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    first = host.instance_id
    assert first and len(first) == 64
    host.close()
    assert make_host().instance_id == first


def test_blob_store_round_trip_and_atomic_files(tmp_path):
    store = BlobStore(tmp_path / "media")
    key = store.new_key("photos", ".png")
    blob = store.put(key, b"\x89PNG data", "image/png")
    assert blob.size == 9
    found = store.get(key)
    assert found.content_type == "image/png" and found.path.read_bytes() == b"\x89PNG data"
    assert not [p for p in (tmp_path / "media" / "photos").iterdir() if p.name.startswith(".tmp-")]
    assert store.delete(key) is True
    assert store.get(key) is None and store.delete(key) is False


def test_blob_without_metadata_is_not_found(tmp_path):
    store = BlobStore(tmp_path / "media")
    store.put("a/b.bin", b"x", "application/octet-stream")
    (tmp_path / "media" / "a" / "b.bin.meta.json").unlink()
    assert store.get("a/b.bin") is None


@pytest.mark.parametrize("key", ["../etc/passwd", "/abs", "a/../../x", "", ".hidden", "a//b", "a\\b", "a/b\x00",
                                 "x" * 600, "a/b.meta.json", "a/" * 9 + "b"])
def test_blob_keys_cannot_escape_the_media_folder(tmp_path, key):
    store = BlobStore(tmp_path / "media")
    with pytest.raises(BlobKeyError):
        store.put(key, b"x", "text/plain")
    assert store.get(key) is None


def _schema(host) -> set:
    """What the database holds besides rows: each table, index and trigger with its SQL."""
    if host.db.provider_name == "sqlite":
        query = "SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite%'"
    else:
        query = ("SELECT 'table', tablename, '' FROM pg_tables WHERE schemaname = current_schema() "
                 "UNION ALL SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()")
    with orm.db_session:
        return set(host.db.select(query))


def test_a_start_on_a_complete_schema_creates_nothing_and_a_missing_index_is_made_again(make_host, env, backend):
    """The host reads which tables and indexes exist in one query (svc_host.schema.map_entities)
    and leaves Pony's create pass out when all are there; one missing, the pass runs and makes it."""
    from svc_host.schema import missing_schema_objects

    first = make_host()
    before = _schema(first)
    assert missing_schema_objects(first.db) == []
    index = next(item for table in first.db.schema.order_tables_to_create()
                 for item in table.get_objects_to_create(set()) if item.typename == "Index")
    with orm.db_session:
        first.db.execute(f'DROP INDEX "{index.name}"')
    assert missing_schema_objects(first.db) == [("Index", index.name)]
    first.close()
    again = make_host()
    assert missing_schema_objects(again.db) == [] and _schema(again) == before


@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)  # PostgreSQL has schema_template
def test_a_host_built_on_the_kits_sqlite_template_has_the_schema_of_one_built_on_an_empty_file(
        make_host, env, backend, tmp_path, monkeypatch):
    """The kit writes its SQLite template (the builtin tables Pony creates, no rows and nothing a
    migration makes) into a new host's data dir; the host's migrations then make the rest, so it
    ends with the schema and seeded rows of a host started on an empty file."""
    import sqlite3

    from svc_display.testing import databases
    from svc_host.config import load_settings
    from svc_host.host import build_host

    real, seeded_paths = databases.seed_sqlite_file, []

    def seed(path):
        written = real(path)
        seeded_paths.append((path, written))
        return written

    monkeypatch.setattr(databases, "seed_sqlite_file", seed)
    seeded = make_host()
    assert seeded_paths == [(seeded.settings.sqlite_path, True)]  # the kit's factory wrote it
    fresh = build_host(load_settings({**env, "SVC_DISPLAY_DATA_DIR": str(tmp_path / "empty" / "data")}))
    try:
        assert not real(fresh.settings.sqlite_path)  # a file there already is left alone
        assert _schema(seeded) == _schema(fresh)
        with orm.db_session:
            counts = [{name: host.db.select(f'SELECT COUNT(*) FROM "{name}"')[0]
                       for kind, name, _ in sorted(_schema(fresh)) if kind == "table"} for host in (seeded, fresh)]
        assert counts[0] == counts[1] and any(counts[0].values())  # the same first-start rows
    finally:
        fresh.close()
    template = tmp_path / "template.sqlite3"
    template.write_bytes(databases.sqlite_template())
    with sqlite3.connect(template) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert names and all(connection.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] == 0
                             for name in names)
        assert not connection.execute("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view')").fetchall()
