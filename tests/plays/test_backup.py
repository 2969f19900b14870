"""Plays are rows of the display's database, so a backup holds them and a restore brings them back
(the database is backed up whole: builtin_plugins/maintenance). SQLite only: backups exist only
with the default database."""
from __future__ import annotations

import pytest

from hookspecs.services import PLAYS
from svc_display.testing import ServerProcess
from svc_display.testing.clock import FixedClock
from svc_host.config import load_settings
from svc_host.host import build_host
from tests.maintenance.archives import backup
from tests.maintenance.conftest import server_env

pytestmark = pytest.mark.slow

T0 = 1_800_000_000_000


def test_plays_survive_a_backup_and_a_restore_on_another_display(tmp_path):
    source_env = server_env(tmp_path / "source")
    host = build_host(load_settings(source_env))
    try:
        host.clock = FixedClock(T0)
        plays = host.services[PLAYS]
        for index in range(25):
            plays.replace("slide", [{"id": f"s{index % 4}", "type": "message", "label": f"Slide {index % 4}"}],
                          complete=True)
            host.clock.ms += 6000
        plays.show("alert", [{"id": "a1", "type": "info", "label": "Welcome"}])
        host.clock.ms += 1000
        plays.show("alert", [])
    finally:
        host.close()
    source = ServerProcess(source_env).start(timeout=60)
    try:
        key = source.key("admin")
        before = source.get("/v1/telemetry/plays", key=key).json()
        archive = backup(source, key)
    finally:
        source.stop()
    assert len(before["items"]) == 26 and before["next_cursor"] is None  # 24 slides ended, the 25th at the stop

    target = ServerProcess(server_env(tmp_path / "target")).start(timeout=60)
    try:
        assert target.get("/v1/telemetry/plays", key=target.key("admin")).json()["items"] == []
        answer = target.request("POST", "/v1/display/backup/restore?confirm=yes", key=target.key("admin"),
                                data=archive)
        assert answer.status_code == 202, answer.text
        assert target.process.wait(60) == 75
        target.start(timeout=60)
        assert target.get("/v1/telemetry/plays", key=key).json() == before  # the source's key: a restored row
    finally:
        target.stop()
