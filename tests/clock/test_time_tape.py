"""The time ticker tape over HTTP: zones, presets, date orders, the display settings it follows."""
import datetime as dt

import pytest
from pony import orm

from tests.ticker.tapes import _items, _tape
from hookspecs.services import SETTINGS

pytestmark = pytest.mark.svc_display_storage


@pytest.mark.parametrize("zone, preset, order, expected", [
    ("UTC", "24h_hms", "ymd", "2026-03-08 14:05:09"),
    ("UTC", "24h_hm", "dmy", "08/03/2026 14:05"),
    ("UTC", "12h_hms_tt", "mdy", "03/08/2026 2:05:09 PM"),
    ("UTC", "12h_hm_tt", "ymd", "2026-03-08 2:05 PM"),
    ("UTC", "12h_hms", "ymd", "2026-03-08 2:05:09"),
    ("UTC", "12h_hm", "ymd", "2026-03-08 2:05"),
    ("America/New_York", "24h_hms", "mdy", "03/08/2026 10:05:09"),
    ("America/New_York", "12h_hm_tt", "mdy", "03/08/2026 10:05 AM"),
    ("Asia/Kolkata", "24h_hm", "dmy", "08/03/2026 19:35"),
    ("Pacific/Auckland", "12h_hms_tt", "dmy", "09/03/2026 3:05:09 AM"),
    ("Pacific/Auckland", "24h_hms", "ymd", "2026-03-09 03:05:09"),
])
def test_time_tape_formats_across_zones_and_presets(ticker, zone, preset, order, expected):
    _tape(ticker, "clock", "time", {"timeZone": zone, "timeFormatPreset": preset, "dateOrder": order})
    assert _items(ticker) == [{"ordinal": 0, "kind": "time", "body": expected}]


def test_time_tape_label_prefix_and_setting_fallbacks(ticker):
    settings = ticker.host.services[SETTINGS]
    _tape(ticker, "clock", "time", {"labelPrefix": "Lobby"})
    assert _items(ticker)[0]["body"] == "Lobby 2026-03-08 14:05"  # defaults: ymd, 24h, UTC
    with orm.db_session:
        settings.set("controller_date_order", "mdy")
        settings.set("controller_time_format", "12h")
        settings.set("display_timezone", "America/Los_Angeles")
    assert _items(ticker)[0]["body"] == "Lobby 03/08/2026 7:05 AM"
    ticker.patch("/v1/ticker/tapes/clock", json={"config_json": {"timeZone": "Europe/Berlin",
                                                                 "timeFormatPreset": "24h_hms"}})
    assert _items(ticker)[0]["body"] == "03/08/2026 15:05:09"


def test_time_tape_midnight_and_noon_in_12h():
    from svc_host.kit.formatting import format_time

    assert format_time(dt.datetime(2026, 1, 1, 0, 7, 3), "12h_hms_tt") == "12:07:03 AM"
    assert format_time(dt.datetime(2026, 1, 1, 12, 0, 0), "12h_hm_tt") == "12:00 PM"
    assert format_time(dt.datetime(2026, 1, 1, 23, 59, 59), "24h_hms") == "23:59:59"


def test_time_tape_show_date_false_shows_the_time_alone(ticker):
    _tape(ticker, "clock", "time", {"timeFormatPreset": "24h_hm", "showDate": False, "labelPrefix": "Now"})
    assert _items(ticker)[0]["body"] == "Now 14:05"
    rejected = ticker.patch("/v1/ticker/tapes/clock", json={"config_json": {"showDate": "no"}})
    assert rejected.status_code == 400
    assert _items(ticker)[0]["body"] == "Now 14:05"  # a rejected patch changes nothing
