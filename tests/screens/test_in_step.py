"""Displays in step (CONTRACT "Displays in step, and proof of play"): the ``sync_group`` display
setting over REST (validated, a bad one changes nothing), the timetable that lays the program on
the wall clock, and ``GET /v1/display/screen``'s ``sync: {group, program_hash, cycle_ms}``.
The canvases in step are tests/display/test_in_step.py."""
import pytest

from builtin_plugins.screens.timetable import timetable
from hookspecs.services import SETTINGS
from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage

PROGRAM = [
    {"id": "menu", "screen_type": "message", "config_json": {"body": "Soup of the day"}, "dwell_seconds": 4,
     "frequency_weight": 2, "sort_order": 3},
    {"id": "clock", "screen_type": "clock", "config_json": {}, "dwell_seconds": 3, "sort_order": 1},
    {"id": "offer", "screen_type": "message", "config_json": {"body": "Two for one"}, "dwell_seconds": 5,
     "sort_order": 2},
]


# -- the timetable (pure) ----------------------------------------------------------------------

def test_the_cycle_is_by_id_spread_by_weight_each_slot_its_dwell():
    table = timetable(list(reversed(PROGRAM)))
    assert [row["id"] for row in table.rows] == ["menu", "clock", "menu", "offer"]  # a weight of 2, spread
    assert table.offsets == (0, 4000, 7000, 11000) and table.cycle_ms == 16000
    assert timetable(PROGRAM) == table  # whatever order the rows come in


def test_the_slot_is_a_function_of_the_wall_clock_alone():
    table = timetable(PROGRAM)
    base = 1_765_000_000_000 - 1_765_000_000_000 % 16000  # a cycle's start (the epoch is Unix time 0)
    assert [(table.at(base + t).row["id"], table.at(base + t).start_ms - base) for t in (0, 3999, 4000, 15999)] == [
        ("menu", 0), ("menu", 0), ("clock", 4000), ("offer", 11000)]
    slot = table.at(base + 16000 + 5000)  # the next cycle: the same slots 16 s on
    assert (slot.row["id"], slot.start_ms, slot.end_ms) == ("clock", base + 20000, base + 23000)
    assert table.after(slot).start_ms == slot.end_ms and table.before(table.after(slot)) == slot
    first = table.at(base)
    assert table.before(first) == table.at(base - 1)  # across a cycle's start


def test_the_program_hash_follows_what_decides_the_cycle_only():
    table = timetable(PROGRAM)
    renamed = [{**row, "name": "Another name", "sort_order": 0, "description": "x"} for row in PROGRAM]
    assert timetable(renamed).program_hash == table.program_hash
    for change in ({"dwell_seconds": 6}, {"frequency_weight": 3}, {"config_json": {"body": "Soup!"}},
                   {"screen_type": "clock"}, {"id": "menu2"}):
        changed = [{**PROGRAM[0], **change}, *PROGRAM[1:]]
        assert timetable(changed).program_hash != table.program_hash, change
    assert timetable(PROGRAM[1:]).program_hash != table.program_hash
    assert timetable([]).cycle_ms == 0 and timetable([]).rows == ()


# -- the setting and the route (SQLite and PostgreSQL) -----------------------------------------

def test_sync_group_is_a_display_setting_validated_with_a_title(api):
    assert api.get("/v1/display/settings").json["sync_group"] == ""
    result = api.put("/v1/display/settings", json={"sync_group": "lobby-wall 2"})
    assert result.status_code == 200, result.text
    assert result.json["sync_group"] == "lobby-wall 2"
    assert api.get("/v1/display/settings").json["sync_group"] == "lobby-wall 2"
    for bad in (" lobby", "lobby ", "x" * 65, "lobby\n", "café/2", 42, None, ["lobby"]):
        refused = api.put("/v1/display/settings", json={"sync_group": bad})
        assert refused.status_code == 400, (bad, refused.text)
        assert refused.json["code"] == "validation_failed" and "sync_group" in refused.json["details"], refused.json
    assert api.host.services[SETTINGS].get("sync_group") == "lobby-wall 2"  # a refused request changes nothing
    assert api.put("/v1/display/settings", json={"sync_group": ""}).json["sync_group"] == ""
    viewer = issue_key(api.host, "viewer")
    assert api.put("/v1/display/settings", json={"sync_group": "lobby"}, key=viewer).status_code == 403
    document = api.get("/v1/openapi.json").json
    schemas = document["components"]["schemas"]
    fields = [schema["properties"]["sync_group"] for schema in schemas.values()
              if "sync_group" in (schema.get("properties") or {})]
    assert len(fields) == 2 and all(field.get("title") == "Sync group" for field in fields)


def test_the_screen_status_says_the_group_the_program_hash_and_the_cycle(api):
    empty = api.get("/v1/display/screen", key=issue_key(api.host, "viewer"))
    assert empty.status_code == 200
    assert empty.json["sync"] == {"group": "", "program_hash": timetable([]).program_hash, "cycle_ms": 0}
    for row in PROGRAM:
        assert api.post("/v1/screens", json=row).status_code == 201
    assert api.post("/v1/screens", json={"id": "off", "screen_type": "message", "config_json": {"body": "-"},
                                         "enabled": False}).status_code == 201
    assert api.post("/v1/screens", json={"id": "never", "screen_type": "message", "config_json": {"body": "-"},
                                         "frequency_weight": 0}).status_code == 201
    api.put("/v1/display/settings", json={"sync_group": "cafe"})
    sync = api.get("/v1/display/screen").json["sync"]
    expected = timetable(PROGRAM)
    assert sync == {"group": "cafe", "program_hash": expected.program_hash, "cycle_ms": 16000}
    # the same program stored another way (other names and sort orders): the same hash
    for row in PROGRAM:
        assert api.patch(f"/v1/screens/{row['id']}", json={"name": "Renamed", "sort_order": 9}).status_code == 200
    assert api.get("/v1/display/screen").json["sync"] == sync
    # a dwell changed: another program, another cycle
    assert api.patch("/v1/screens/clock", json={"dwell_seconds": 5}).status_code == 200
    changed = api.get("/v1/display/screen").json["sync"]
    assert changed["program_hash"] != sync["program_hash"] and changed["cycle_ms"] == 18000
    document = api.get("/v1/openapi.json").json
    schema = document["paths"]["/v1/display/screen"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[-1]
    sync_ref = document["components"]["schemas"][name]["properties"]["sync"]
    assert "sync" in document["components"]["schemas"][name]["required"]
    target = sync_ref.get("$ref") or sync_ref["allOf"][0]["$ref"]
    assert set(document["components"]["schemas"][target.rsplit("/", 1)[-1]]["properties"]) == {
        "group", "program_hash", "cycle_ms"}
