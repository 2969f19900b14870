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
