"""The fleet's reads while the poller writes, in process on a real database (SQLite and PostgreSQL):
a status another thread commits while a display's item is being made never makes a 500 (CI once got
one: ``GET /bff/v1/displays/third`` while the poller marked that display unreachable, Pony's
UnrepeatableReadError), and the item is one read's, never a mix of two.

The other thread's commit is put at the worst moment through ``Fleet.item_json``, which every read
of a row goes through: right after the route has read the display's row, before it reads its group."""
from __future__ import annotations

import threading
from typing import Iterator

import pytest
from pony import orm

from svc_controller.app import build_controller
from svc_controller.config import ControllerSettings
from svc_controller.fleet import Fleet, PollResult

pytestmark = pytest.mark.svc_display_storage

LOBBY_A, LOBBY_B = "a" * 64, "b" * 64


def online(group: str | None, program: str) -> PollResult:
    return PollResult(state="online", version="1.0.0", sync={"group": group, "program_hash": program,
                                                              "cycle_ms": 30_000})


@pytest.fixture
def fleet(tmp_path, module_database_url) -> Iterator[Fleet]:
    ctl = build_controller(ControllerSettings(data_dir=tmp_path / "data", database_url=module_database_url))
    fleet = ctl.fleet
    for name in ("first", "second", "third"):
        with orm.db_session:
            fleet.upsert(name, {"name": name.capitalize(), "baseUrl": f"https://127.0.0.1:9/{name}"})
        fleet.record(name, f"https://127.0.0.1:9/{name}", online("lobby", LOBBY_A if name != "third" else LOBBY_B),
                     (1, 0, 0))
    yield fleet
    ctl.db.disconnect()
    ctl.db.provider.disconnect()


def commit_after_reading(monkeypatch, read_id: str, commit) -> list[str]:
    """Run ``commit`` in another thread (its own session, committed) right after this thread has
    read row ``read_id`` the first time; returns the ids read, in order."""
    original = Fleet.item_json
    reads: list[str] = []
    me = threading.get_ident()

    def item_json(display):
        item = original(display)
        if threading.get_ident() == me:
            reads.append(item["id"])
            if item["id"] == read_id and reads.count(read_id) == 1:
                failed: list[BaseException] = []

                def other() -> None:
                    try:
                        commit()
                    except BaseException as exc:  # noqa: BLE001  (said below, in the test's thread)
                        failed.append(exc)

                thread = threading.Thread(target=other)
                thread.start()
                thread.join(30)
                assert not thread.is_alive() and not failed, failed
        return item

    monkeypatch.setattr(Fleet, "item_json", staticmethod(item_json))
    return reads


@pytest.mark.parametrize("new_state", ["unreachable", "other group"])
def test_a_display_read_while_the_poller_changes_its_status_is_one_consistent_item(fleet, monkeypatch, new_state):
    result = PollResult(state="unreachable") if new_state == "unreachable" else online("cafe", LOBBY_B)
    reads = commit_after_reading(monkeypatch, "third", lambda: fleet.record(
        "third", "https://127.0.0.1:9/third", result, (1, 0, 0)))
    with orm.db_session:
        item = fleet.item(fleet.get("third"))  # what GET /bff/v1/displays/third answers
    assert "third" in reads
    # whichever status it shows, its problems are that status's: a lone display is in no group
    codes = [p["code"] for p in item["status"]["problems"]]
    if item["status"]["state"] == "unreachable" or item["status"]["sync"]["group"] == "cafe":
        assert codes == []
    else:
        assert codes == ["programs_differ"]
    with orm.db_session:
        now = fleet.item(fleet.get("third"))
    assert now["status"]["state"] == ("unreachable" if new_state == "unreachable" else "online")
    assert [p["code"] for p in now["status"]["problems"]] == []

