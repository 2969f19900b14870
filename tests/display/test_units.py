"""Pure parts of the display (overlay windows are the overlays plugin's: tests/overlays, tests/display/test_one_owner.py): the bus, mode choice, ring buffers, presets, tickets."""
from __future__ import annotations

import datetime as dt
import importlib
import inspect
import re
from types import SimpleNamespace

import pytest

from builtin_plugins.display_program.telemetry import RingBuffer
from builtin_plugins.adoption.display import format_challenge
from hookspecs.render import Preferences, Rect, RenderContext, default_theme, parse_color
from hookspecs.services import CURATOR, ORIGIN_ALLOWED
from svc_host.kit.services import curated, preferences
from builtin_plugins.live_preview import TicketBook, normalise_origin
from svc_host.display import DisplayBus, choose_mode, parse_size
from svc_host.kit.display.layout import layout_of
from hookspecs.catalog import Code
from hookspecs.feature import implementation, resolve
from svc_display.testing.clock import FixedClock
from svc_host.kit.formatting import formats


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
    assert formats(context).format_preset(moment, "24h_hms") == "15:04:05"
    assert formats(context).format_preset(moment, "12h_hm_tt") == "3:04 PM"
    assert formats(context).format_preset(moment, None) == "3:04 PM"
    assert formats(context).format_preset(moment, "bogus", seconds=True) == "3:04:05 PM"
    assert formats(RenderContext(None, "screen", "clock", {})).format_preset(moment, None) == "15:04"


class FakeHost:
    def __init__(self, ms: int = 0):
        self.clock = FixedClock(ms)
        self.services = {}


def test_the_time_tape_builds_from_its_config_and_is_rebuilt_every_second():
    from builtin_plugins.clock import TYPES

    (time_type,) = TYPES.ticker_types
    host = FakeHost(int(dt.datetime(2026, 5, 13, 15, 4, 5, tzinfo=dt.timezone.utc).timestamp() * 1000))

    def build(config):
        return time_type.build_items(host, SimpleNamespace(config_json=config), host.clock.now_ms())

    assert build({"timeFormatPreset": "24h_hms", "timeZone": "Europe/Berlin", "dateOrder": "dmy",
                  "labelPrefix": "Berlin"}) == ["Berlin 13/05/2026 17:04:05"]
    assert build({"timeFormatPreset": "12h_hm_tt", "dateOrder": "mdy"}) == ["05/13/2026 3:04 PM"]
    assert build({"timeZone": "America/New_York"}) == ["2026-05-13 11:04"]  # no settings plugin: ymd, 24h
    assert time_type.refresh_seconds == 1.0 and not hasattr(time_type, "renderer")  # ticker types draw nothing


def test_render_context_formats():
    context = RenderContext(FakeHost(), "screen", "weather_current", {}, temperature_unit="f")
    assert formats(context).format_temperature(20.0) == "68°F"
    assert formats(context).format_temperature(20.0, "c") == "20°C"
    assert formats(context).format_temperature(None) == "--"
    assert formats(RenderContext(FakeHost(), "screen", "x", {}, timezone="Not/AZone")).tzinfo().utcoffset(None) == dt.timedelta(0)


def test_colours_and_the_preferences_without_the_settings_plugin():
    assert parse_color("#ff0000") == (1.0, 0.0, 0.0, 1.0)
    assert parse_color("#0f08")[3] == pytest.approx(0x88 / 255)
    assert parse_color("nope", (0, 0, 0, 1)) == (0, 0, 0, 1)
    prefs = preferences(FakeHost())  # no settings plugin: the documented defaults
    assert prefs == Preferences() and prefs.theme == default_theme() and prefs.theme_id == "navy_coral"
    context = Preferences(text_scale_screen=2.0, text_scale_ticker=0.5, date_order="dmy").context(
        None, "ticker", "time", {"id": "t"}, (640, 360))
    assert (context.text_scale, context.date_order, context.size) == (0.5, "dmy", (640, 360))


def test_the_layout_gives_the_ticker_band_and_the_content_area():
    layout = layout_of(640, 360, {"ticker": 27})
    assert layout.ticker == Rect(0, 0, 640, 27) and layout.content == Rect(0, 27, 640, 333)
    assert layout.free == layout.content == layout.area("content") == layout.area("free")
    assert layout.area("screen") == Rect(0, 0, 640, 360) and layout.area("top_right") is None
    assert layout_of(640, 360).ticker.height == 0 and layout_of(640, 360).content.height == 360
    assert layout_of(640, 360, {"ticker": 9999}).content.height == 0  # a claim never exceeds the screen


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


def test_curated_keeps_the_curators_members_and_controls(caplog):
    rows = [{"id": "s1"}, {"id": "s2"}, {"id": "s3"}]
    host = FakeHost()
    assert curated(host, "screens", rows) == (rows, {"screens_enabled": True, "ticker_enabled": True})

    class Curator:
        def active_view(self):
            members = {"screens": [{"id": "s2", "label": "Clock"}, {"id": "s3", "label": "x"}], "tickers": []}
            return {"effective_members": members,
                    "program_controls": {"screens_enabled": True, "ticker_enabled": False}}

    host.services[CURATOR] = Curator()
    assert curated(host, "screens", rows) == ([{"id": "s2"}, {"id": "s3"}],
                                              {"screens_enabled": True, "ticker_enabled": False})
    assert curated(host, "tickers", rows)[0] == []
    assert curated(host, "overlays", rows)[0] == rows  # a kind the view does not list: every row

    class Broken:
        def active_view(self):
            raise RuntimeError("curator bug")

    host.services[CURATOR] = Broken()
    assert curated(host, "screens", rows)[0] == rows  # a failing curator blanks nothing
    assert "curator active view failed" in caplog.text


def test_origin_check_is_pluggable():
    from types import SimpleNamespace

    from builtin_plugins.live_preview import origin_allowed

    host = SimpleNamespace(settings=SimpleNamespace(http_cors_origins=("https://ctl.example",)), services={})
    assert origin_allowed(host, None) is True
    assert origin_allowed(host, "https://CTL.example") is True
    assert origin_allowed(host, "https://evil.example") is False
    host.services[ORIGIN_ALLOWED] = lambda origin: origin == "https://evil.example"
    assert origin_allowed(host, "https://evil.example") is True
    assert origin_allowed(host, "https://ctl.example") is False
    host.services[ORIGIN_ALLOWED] = lambda origin: 1 / 0
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


DRAWING_PLUGINS = ["alerts", "basic", "calendar", "clock", "content", "effects", "folder_plugins", "media", "menu_board",
                   "news", "stocks", "tasks", "weather"]
READS = re.compile(r"(?:config_(?:text|number|flag|strings|list)\(\w+, |config\.get\(|data_key\(context, "
                   r"|speed\(context, |newest_shuffled\(context, [\w.]+, )[\"']([A-Za-z_]+)[\"']")


def keys_read(module: str) -> set[str]:
    return set(READS.findall(inspect.getsource(importlib.import_module(module))))


def schema_keys(types: list) -> set[str]:
    return {key for t in types for key in t.config_schema["properties"]}


@pytest.mark.parametrize("plugin", DRAWING_PLUGINS)
def test_renderers_read_only_keys_the_real_schemas_define(plugin):
    """Every config key a feature's display module names is a property of one of its own types' schemas
    (keys read inside the kit's convention helpers, ``opacity(context)`` ..., are not seen here)."""
    module = importlib.import_module(f"builtin_plugins.{plugin}")
    read = keys_read(f"builtin_plugins.{plugin}.display")
    defined = schema_keys([t for hook in ("register_screen_types", "register_overlay_types")
                           if implementation(module, hook) for t in implementation(module, hook)()])
    assert read, plugin
    assert read <= defined, sorted(read - defined)


def test_the_ticker_builders_read_only_keys_their_schemas_define():
    from tests.display.fixture_plugin import builtin_types

    for ticker_type in builtin_types("register_ticker_types"):
        build = ticker_type.build_items
        if isinstance(build, Code):  # declared in a types.json: "module:attr"
            build = resolve(build.reference)
        read = set(READS.findall(inspect.getsource(build)))
        assert read <= schema_keys([ticker_type]), (ticker_type.id, sorted(read - schema_keys([ticker_type])))


def test_every_builtin_screen_and_overlay_type_draws_in_its_own_feature_folder(host):
    for registry in (host.registries.screen_types, host.registries.overlay_types):
        for type_id, plugin in registry.owner.items():
            assert registry.get(type_id).renderer.startswith(f"builtin_plugins.{plugin}.display:"), type_id
            assert plugin in DRAWING_PLUGINS
