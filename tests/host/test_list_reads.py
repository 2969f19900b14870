"""List routes read plain columns (svc_host/storage.py:select_rows, svc_host/rest/typed_rows.py,
the catalog's column rows) and answer what Pony's entities answered: long integers in stored
JSON stay exact, text another tool stored as invalid UTF-8 is read with replacement characters
(not a 500), a catalog page with a relation still serializes it."""
import sqlite3

import pytest
from pony import orm

pytestmark = pytest.mark.svc_display_storage

BIG = 10 ** 30  # past 64 bits: orjson alone would read it as a float


def _screen(db, screen_id, **values):
    db.Screen(id=screen_id, screen_type="message", created_at_ms=1, updated_at_ms=1, **values)


def test_long_integers_and_floats_in_stored_config_read_back_exactly(api):
    with orm.db_session:
        _screen(api.host.db, "big", sort_order=1, config_json={"title": "t", "n": BIG, "m": -BIG, "x": 0.1 + 0.2},
                dwell_seconds=0.1 + 0.2)
        _screen(api.host.db, "small", sort_order=2, config_json={"title": "t", "n": 2 ** 63 - 1, "f": 2.5})
    items = {item["id"]: item for item in api.get("/v1/screens").json["items"]}
    assert items["big"]["config_json"] == {"title": "t", "n": BIG, "m": -BIG, "x": 0.1 + 0.2}
    assert isinstance(items["big"]["config_json"]["n"], int)
    assert items["big"]["dwell_seconds"] == 0.1 + 0.2
    assert items["small"]["config_json"] == {"title": "t", "n": 2 ** 63 - 1, "f": 2.5}
    assert items["big"]["enabled"] is True and items["big"]["require_news_photo"] is None


def test_invalid_utf8_written_by_another_tool_reads_with_replacement_characters(api, backend):
    if backend != "sqlite":
        pytest.skip("PostgreSQL refuses invalid UTF-8 on write")
    with orm.db_session:
        _screen(api.host.db, "odd", name="placeholder")
    with sqlite3.connect(api.host.settings.sqlite_path) as connection:
        connection.execute("UPDATE svc_screen SET name = CAST(x'4142ff43' AS TEXT) WHERE id = 'odd'")
    response = api.get("/v1/screens")
    assert response.status_code == 200
    assert response.json["items"][0]["name"] == "AB\ufffdC"
    with orm.db_session:  # as Pony reads it
        assert api.host.db.Screen["odd"].name == "AB\ufffdC"
