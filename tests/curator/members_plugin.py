"""Throwaway Screen, TickerTape and OverlaySchedule entities (the real ones belong to other plugins)."""
import time
from pathlib import Path

from pony import orm

from hookspecs import hookimpl


class ThrowawayMembersPlugin:
    @hookimpl
    def register_entities(self, db):
        class Screen(db.Entity):
            _table_ = "test_screen"
            id = orm.PrimaryKey(str, 128)
            name = orm.Optional(str, default="")
            screen_type = orm.Required(str, default="clock")
            enabled = orm.Required(bool, default=True)

        class TickerTape(db.Entity):
            _table_ = "test_ticker_tape"
            id = orm.PrimaryKey(str, 128)
            name = orm.Optional(str, default="")
            ticker_type = orm.Required(str, default="time")
            enabled = orm.Required(bool, default=True)

        class OverlaySchedule(db.Entity):
            _table_ = "test_overlay_schedule"
            id = orm.PrimaryKey(str, 128)
            label = orm.Optional(str, default="")
            overlay_type = orm.Required(str, default="snow")
            enabled = orm.Required(bool, default=True)


def set_clock(env, target_ms):
    """Point the host clock at ``target_ms`` (through the test clock offset file)."""
    Path(env["SVC_DISPLAY_TEST_CLOCK_FILE"]).write_text(str(target_ms - int(time.time() * 1000)))
