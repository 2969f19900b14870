"""Pure parts of the display: overlay windows, the bus, mode choice, ring buffers, presets, tickets."""
from __future__ import annotations

import datetime as dt

import pytest

from builtin_plugins.display_program.telemetry import RingBuffer
from builtin_plugins.display_program.windows import nth_weekday_date, overlay_active
from builtin_plugins.display_renderers.alerts import format_challenge
from builtin_plugins.display_renderers.base import RenderContext
from builtin_plugins.display_renderers.theme import parse_color, resolve_theme
from builtin_plugins.display_renderers.ticker import time_tape
from builtin_plugins.live_preview import TicketBook, normalise_origin
from svc_host.display import DisplayBus, choose_mode, parse_size


def window(**fields):
    return {"enabled": True, **fields}


D = dt.date


@pytest.mark.parametrize("row,day,expected", [
    (window(start_month=5, start_day=13), D(2026, 5, 13), True),
    (window(start_month=5, start_day=13), D(2026, 5, 14), False),
    (window(start_month=5, start_day=13, enabled=False), D(2026, 5, 13), False),
    (window(start_month=5, start_day=10, end_month=5, end_day=20), D(2026, 5, 20), True),
    (window(start_month=5, start_day=10, end_month=5, end_day=20), D(2026, 5, 21), False),
    # across the new year
    (window(start_month=12, start_day=20, end_month=1, end_day=5), D(2026, 12, 31), True),
    (window(start_month=12, start_day=20, end_month=1, end_day=5), D(2027, 1, 5), True),
    (window(start_month=12, start_day=20, end_month=1, end_day=5), D(2027, 1, 6), False),
    (window(start_month=12, start_day=20, end_month=1, end_day=5), D(2026, 12, 19), False),
    # year_exact pins the window, a wrapping one into the next January
    (window(start_month=12, start_day=20, end_month=1, end_day=5, year_exact=2026), D(2027, 1, 2), True),
    (window(start_month=12, start_day=20, end_month=1, end_day=5, year_exact=2026), D(2026, 1, 2), False),
    (window(start_month=5, start_day=13, year_exact=2026), D(2027, 5, 13), False),
    (window(start_month=5, start_day=13, year_exact=2026, repeat_annually=True), D(2027, 5, 13), True),
    (window(start_month=5, start_day=13, year_exact=2026, repeat_annually=True), D(2025, 5, 13), False),
    # nth weekday: the 2nd Sunday of May 2026 is May 10; the last Monday of May 2026 is May 25
    (window(start_month=5, start_day=1, nth_week_of_month=2, nth_weekday=0), D(2026, 5, 10), True),
    (window(start_month=5, start_day=1, nth_week_of_month=2, nth_weekday=0), D(2026, 5, 3), False),
    (window(start_month=5, start_day=1, nth_week_of_month=-1, nth_weekday=1), D(2026, 5, 25), True),
    (window(start_month=5, start_day=1, nth_week_of_month=5, nth_weekday=1), D(2026, 5, 25), True),
    # malformed rows never show
    (window(start_month=13, start_day=1), D(2026, 1, 1), False),
    (window(start_month="5", start_day=13), D(2026, 5, 13), False),
])
def test_overlay_windows(row, day, expected):
    assert overlay_active(row, day) is expected


def test_nth_weekday_out_of_range():
    assert nth_weekday_date(2026, 2, 6, 0) is None
    assert nth_weekday_date(2026, 13, 1, 0) is None


def test_bus_runs_handlers_in_order_and_contains_failures():
    bus = DisplayBus()
    seen = []
    bus.subscribe("navigate", lambda **kw: seen.append(kw))
    bus.subscribe("navigate", lambda **kw: 1 / 0)
    triggered = []
    bus.post("navigate", surface="screen", direction="forward")
    bus.bind(lambda: triggered.append(True))  # a queued command triggers at bind time
    bus.post("navigate", surface="ticker", direction="back")
    assert triggered == [True, True]
    assert bus.drain() == 2
    assert seen == [{"surface": "screen", "direction": "forward"}, {"surface": "ticker", "direction": "back"}]
    assert bus.drain() == 0


@pytest.mark.parametrize("headless,env,platform,mode", [
    (True, {"DISPLAY": ":0"}, "linux", "headless"),
    (False, {"SDL_VIDEODRIVER": "offscreen", "DISPLAY": ":0"}, "linux", "offscreen"),
    (False, {"DISPLAY": ":0"}, "linux", "window"),
    (False, {"WAYLAND_DISPLAY": "wayland-0"}, "linux", "window"),
    (False, {}, "linux", "offscreen"),
    (False, {}, "darwin", "window"),
    (False, {"SDL_VIDEODRIVER": "kmsdrm"}, "linux", "window"),
])
def test_choose_mode(headless, env, platform, mode):
    assert choose_mode(headless, env, platform) == mode


def test_parse_size():
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("1280X720") == (1280, 720)
    assert parse_size("big") is None
    assert parse_size("0x0") is None
    assert parse_size(None) is None


def test_ring_buffer_newest_first_with_limit_and_since():
    buffer = RingBuffer(capacity=3)
    for at in (1, 2, 3, 4):
        buffer.append({"at_ms": at})
    assert [i["at_ms"] for i in buffer.query(10)] == [4, 3, 2]
    assert [i["at_ms"] for i in buffer.query(1)] == [4]
    assert [i["at_ms"] for i in buffer.query(10, since_ms=3)] == [4, 3]


def test_time_presets():
    moment = dt.datetime(2026, 5, 13, 15, 4, 5)
    context = RenderContext(None, "screen", "clock", {}, time_format="12h")
    assert context.format_preset(moment, "24h_hms") == "15:04:05"
    assert context.format_preset(moment, "12h_hm_tt") == "3:04 PM"
    assert context.format_preset(moment, None) == "3:04 PM"
    assert context.format_preset(moment, "bogus", seconds=True) == "3:04:05 PM"
    assert RenderContext(None, "screen", "clock", {}).format_preset(moment, None) == "15:04"


class FixedClock:
    def __init__(self, ms: int):
        self.ms = ms

    def now_ms(self) -> int:
        return self.ms


class FakeHost:
    def __init__(self, ms: int = 0):
        self.clock = FixedClock(ms)
        self.services = {}


def test_time_tape_formats_and_refresh_period():
    host = FakeHost(int(dt.datetime(2026, 5, 13, 15, 4, 5, tzinfo=dt.timezone.utc).timestamp() * 1000))
    row = {"config_json": {"timeFormatPreset": "24h_hms", "timeZone": "Europe/Berlin", "dateOrder": "dmy",
                           "labelPrefix": "Berlin"}}
    content = time_tape(RenderContext(host, "ticker", "time", row))
    assert content.items == ["Berlin 13/05/2026 17:04:05"] and content.refresh_seconds == 1.0
    row = {"config_json": {"timeFormatPreset": "12h_hm_tt"}}
    content = time_tape(RenderContext(host, "ticker", "time", row, date_order="mdy"))
    assert content.items == ["05/13/2026 3:04 PM"] and content.refresh_seconds == 60.0
    content = time_tape(RenderContext(host, "ticker", "time", {"config_json": {}}, time_format="24h",
                                      timezone="America/New_York"))
    assert content.items == ["2026-05-13 11:04"]


def test_render_context_formats():
    context = RenderContext(FakeHost(), "screen", "weather_current", {}, temperature_unit="f")
    assert context.format_temperature(20.0) == "68°F"
    assert context.format_temperature(20.0, "c") == "20°C"
    assert context.format_temperature(None) == "--"
    assert RenderContext(FakeHost(), "screen", "x", {}, timezone="Not/AZone").tzinfo() == dt.timezone.utc


def test_theme_resolution_and_colours():
    assert parse_color("#ff0000") == (1.0, 0.0, 0.0, 1.0)
    assert parse_color("#0f08")[3] == pytest.approx(0x88 / 255)
    assert parse_color("nope", (0, 0, 0, 1)) == (0, 0, 0, 1)
    host = FakeHost()
    assert resolve_theme(host, None).id == "navy_coral"
    assert resolve_theme(host, "unknown").background == resolve_theme(host, "navy_coral").background

    class Settings:
        def get(self, key):
            return [{"id": "mine", "preview": {"display": ["#010203", "#040506"],
                                               "primaryContainer": ["#ffffff", "#000000"]}}]

    host.services["settings"] = Settings()
    theme = resolve_theme(host, "mine")
    assert theme.background[0][:3] == pytest.approx((1 / 255, 2 / 255, 3 / 255))
    assert theme.primary_fg == (1.0, 1.0, 1.0, 1.0)


def test_tickets_are_single_use_bound_and_expire():
    clock = FixedClock(1000)
    book = TicketBook(clock)
    ticket, expires = book.issue("alice")
    assert expires == 1000 + 30_000
    assert book.redeem(ticket, "alice") is True
    assert book.redeem(ticket, "alice") is False
    ticket, _ = book.issue("alice")
    assert book.redeem(ticket, "bob") is False
    assert book.redeem(ticket, "alice") is False  # spent by the failed attempt
    ticket, _ = book.issue("alice")
    clock.ms += 30_000
    assert book.redeem(ticket, "alice") is False
    assert book.redeem("", "alice") is False
    assert book.redeem("x" * 500, "alice") is False


def test_origin_normalisation_and_challenge_format():
    assert normalise_origin("HTTPS://Example.com") == "https://example.com"
    assert normalise_origin("file://x") is None
    assert format_challenge("abcd2345") == "ABCD-2345"
    assert format_challenge("ABCD-2345") == "ABCD-2345"


def test_ticker_cycles_pick_tapes_by_weight():
    from builtin_plugins.display_program.director import pick_tapes
    import random as rnd

    rnd.seed(3)
    tapes = [{"id": "a", "frequency_weight": 4}, {"id": "b", "frequency_weight": 1}, {"id": "c", "frequency_weight": 0}]
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(2000):
        for tape in pick_tapes(tapes):
            counts[tape["id"]] += 1
    assert counts["a"] == 2000 and counts["c"] == 0
    assert 400 < counts["b"] < 600
    assert pick_tapes([{"id": "z", "frequency_weight": 0}]) == []


class FakeRow:
    def __init__(self, **data):
        self._data = data
        self.display_only = data.pop("display_only", None)

    def to_dict(self):
        return dict(self._data)


class FakeEntity:
    def __init__(self, *rows):
        self.rows = rows

    def select(self):
        return list(self.rows)


def test_entity_source_reads_rows_and_applies_curator_membership():
    from types import SimpleNamespace

    from builtin_plugins.display_program.source import EntityProgramSource

    host = FakeHost(10_000)
    host.db = SimpleNamespace(
        Screen=FakeEntity(FakeRow(id="s1", screen_type="message", config_json='{"text": "hi"}'),
                          FakeRow(id="s2", screen_type="clock", config_json={})),
        TickerTape=FakeEntity(FakeRow(id="t1", ticker_type="time", config_json={})),
        OverlaySchedule=FakeEntity(FakeRow(id="o1", overlay_type="edge_glow", config_json="not json")),
        Alert=FakeEntity(FakeRow(id="a1", title="live", expires_at=20_000, dismissed_at=None),
                         FakeRow(id="a2", title="expired", expires_at=5_000, dismissed_at=None),
                         FakeRow(id="a3", title="dismissed", expires_at=None, dismissed_at=9_000),
                         FakeRow(id="a4", title="adoption", display_only={"challenge": "ABCD2345"})),
    )
    snapshot = EntityProgramSource(host).snapshot()
    assert [s["id"] for s in snapshot["screens"]] == ["s1", "s2"]
    assert snapshot["screens"][0]["config_json"] == {"text": "hi"}
    assert snapshot["overlays"][0]["config_json"] == {}
    assert [a["id"] for a in snapshot["alerts"]] == ["a1", "a4"]
    assert snapshot["alerts"][1]["display_only"] == {"challenge": "ABCD2345"}

    class Curator:
        def active_view(self):
            return {"effective_members": {"screens": [{"id": "s2", "label": "Clock"}], "tickers": [],
                                          "overlays": [{"id": "o1", "label": "glow"}]},
                    "program_controls": {"screens_enabled": True, "ticker_enabled": False}}

    class Alerts:
        def display_only(self, alert_id):
            return {"kind": "from service"} if alert_id == "a1" else None

    host.services.update(curator=Curator(), alerts=Alerts())
    snapshot = EntityProgramSource(host).snapshot()
    assert [s["id"] for s in snapshot["screens"]] == ["s2"]
    assert snapshot["tapes"] == []
    assert [o["id"] for o in snapshot["overlays"]] == ["o1"]
    assert snapshot["program_controls"] == {"screens_enabled": True, "ticker_enabled": False}
    assert snapshot["alerts"][0]["display_only"] == {"kind": "from service"}


def test_origin_check_is_pluggable():
    from types import SimpleNamespace

    from builtin_plugins.live_preview import origin_allowed

    host = SimpleNamespace(settings=SimpleNamespace(http_cors_origins=("https://ctl.example",)), services={})
    assert origin_allowed(host, None) is True
    assert origin_allowed(host, "https://CTL.example") is True
    assert origin_allowed(host, "https://evil.example") is False
    host.services["origin_allowed"] = lambda origin: origin == "https://evil.example"
    assert origin_allowed(host, "https://evil.example") is True
    assert origin_allowed(host, "https://ctl.example") is False
    host.services["origin_allowed"] = lambda origin: 1 / 0
    assert origin_allowed(host, "https://ctl.example") is False


def test_bearer_token_from_header_or_subprotocol():
    from builtin_plugins.live_preview import bearer_token

    class Req:
        def __init__(self, **headers):
            self.headers = headers

        def get_header(self, name):
            return self.headers.get(name)

    assert bearer_token(Req(Authorization="Bearer abc")) == "abc"
    assert bearer_token(Req(Authorization="Basic abc")) is None
    assert bearer_token(Req(Authorization="Bearer " + "x" * 600)) is None
    assert bearer_token(Req(**{"Sec-WebSocket-Protocol": "chat, bearer.svc_k"})) == "svc_k"
    assert bearer_token(Req(**{"Sec-WebSocket-Protocol": "bearer."})) is None
    assert bearer_token(Req()) is None


def test_tickets_are_redacted_from_log_records():
    import logging

    from builtin_plugins.live_preview import RedactTickets

    record = logging.LogRecord("uvicorn.error", logging.INFO, "x", 1, '%s - "WebSocket %s" %s',
                               ("127.0.0.1:1", "/v1/display/live-preview/ws?ticket=SECRET&x=1", "[accepted]"), None)
    assert RedactTickets().filter(record)
    assert "SECRET" not in record.getMessage()
    assert "ticket=<redacted>&x=1" in record.getMessage()


@pytest.mark.parametrize("kind", ["screens", "overlays", "ticker"])
def test_renderers_read_only_keys_the_real_schemas_define(kind):
    """Every config key a renderer module reads is a property of one of its types' schemas."""
    import importlib
    import inspect
    import re

    types = importlib.import_module(f"builtin_plugins.{kind}.types").TYPES
    source = inspect.getsource(importlib.import_module(f"builtin_plugins.display_renderers.{kind}"))
    pattern = r"(?:config_(?:text|number|flag|strings|list)\(\w+, |config\.get\(|_key\(context, |_speed\(context, )" \
              r"[\"']([A-Za-z_]+)[\"']"
    read = set(re.findall(pattern, source))
    defined = {key for t in types for key in t.config_schema["properties"]}
    assert read, kind
    assert read <= defined, sorted(read - defined)
