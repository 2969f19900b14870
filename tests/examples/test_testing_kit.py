"""``svc_display.testing``, the pytest plugin for plugin authors, tested as an author uses it."""
import os
import subprocess
import sys
import textwrap

import pytest

from hookspecs import ScreenType, TickerType, hookimpl
from svc_display.testing import PluginNotLoaded, issue_key
from svc_display.testing.canvas import RenderError

AUTHOR_TESTS = '''
from hookspecs import AUTHENTICATED, Operation, Permission, Route, hookimpl


class Ping:
    def on_get(self, req, resp):
        resp.media = {"caller": req.context.principal.identifier}


def test_a_throwaway_plugin_serves_a_route(svc_display_plugin, svc_display_host, svc_display_api):
    @svc_display_plugin
    class Throwaway:
        @hookimpl
        def register_permissions():
            return [Permission("ping.read", "ping", roles=("operator",))]

        @hookimpl
        def register_routes(host):
            return [Route("/v1/ping", Ping(), {"GET": Operation("ping.read", "ping")})]

    host = svc_display_host()
    for role, status in (("viewer", 403), ("power_viewer", 403), ("operator", 200), ("admin", 200)):
        assert svc_display_api(host, role=role).get("/v1/ping").status_code == status, role
    assert svc_display_api(host, identifier="me").get("/v1/ping").json == {"caller": "me"}
    assert svc_display_api(host).get("/v1/ping", key="").status_code == 401


def test_and_is_gone_in_the_next_test(svc_display_host, svc_display_api):
    assert svc_display_api(svc_display_host()).get("/v1/ping").status_code == 404
'''


def test_a_fresh_pytest_session_finds_the_fixtures_through_the_entry_point(tmp_path):
    # no conftest, no -p: the pytest11 entry point `svc_display` of the installed distribution
    (tmp_path / "test_author.py").write_text(textwrap.dedent(AUTHOR_TESTS))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                          "test_author.py"], capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout


class Exploding:
    @hookimpl
    def register_routes(host):
        raise RuntimeError("no routes today")


def test_a_given_plugin_the_host_skips_fails_the_test_with_the_reason(svc_display_host):
    with pytest.raises(PluginNotLoaded, match=r"'exploding' was skipped.*register_routes raised "
                                              r"RuntimeError: no routes today"):
        svc_display_host(plugins=[("exploding", Exploding)])


def test_keys_come_from_the_clients_service_and_need_that_plugin(svc_display_host):
    with pytest.raises(LookupError, match=r"'client_keys'.*'clients' plugin"):
        issue_key(svc_display_host(disable=["clients", "adoption", "sessions"]))


# -- frames: the plugins a frame draws must be importable by the renderer process ---------------

def shout(host, tape, now_ms):
    return [w.upper() for w in tape.config_json["words"]] + ["  "]  # blank texts are left out


def banner(context):
    from kivy.uix.label import Label

    return Label(text="banner")


class Drawables:
    @hookimpl
    def register_ticker_types():
        return [TickerType("kit_banner", "Banner", {"type": "object"}, {"words": ["a"]},
                           build_items=shout, refresh_seconds=30)]

    @hookimpl
    def register_screen_types():
        missing = f"{__name__}:no_such_thing"  # the module exists (checked at startup), the name does not
        return [ScreenType("kit_missing", "Missing", {"type": "object"}, {}, renderer=missing)]


def test_a_ticker_frame_carries_the_texts_of_its_build_items(svc_display_host, svc_display_frame):
    host = svc_display_host(plugins=[("drawables", Drawables)])
    frame = svc_display_frame(host, "ticker", "kit_banner", {"words": ["fresh", "bread"]})
    assert (frame.items, frame.refresh_seconds, frame.png) == (["FRESH", "BREAD"], 30, None)
    with pytest.raises(RenderError, match="ticker types make texts"):
        frame.image


def test_a_renderer_that_does_not_resolve_is_reported_with_its_plugin(svc_display_host, svc_display_frame):
    host = svc_display_host(plugins=[("drawables", Drawables)])
    with pytest.raises(RenderError, match=r"plugin 'drawables': screen type 'kit_missing': renderer "
                                          r"'.*:no_such_thing' does not resolve"):
        svc_display_frame(host, "screen", "kit_missing")


def test_a_frame_of_an_unknown_type_or_a_local_plugin_is_refused_before_drawing(svc_display_host,
                                                                                svc_display_frame):
    class Local:
        @hookimpl
        def register_screen_types():
            return [ScreenType("kit_local", "Local", {"type": "object"}, {}, renderer=banner)]

    host = svc_display_host(plugins=[("local", Local)])
    with pytest.raises(RenderError, match=r"no screen type 'nope'.*kit_local"):
        svc_display_frame(host, "screen", "nope")
    with pytest.raises(ValueError, match="plugin 'local' provides screen type 'kit_local' but the renderer "
                                         "process cannot import it"):
        svc_display_frame(host, "screen", "kit_local")


def test_an_overlay_panel_is_drawn_in_its_zone_and_its_place_is_told(svc_display_frame):
    """svc_display_frame stretched every overlay to the whole frame, so a test could not check
    where a panel sits: a panel is now placed as the overlays layer places it."""
    frame = svc_display_frame(None, "overlay", "digital_clock", {"position": "bottom_left"}, size=(640, 360))
    assert frame.zone == "bottom_left"
    x, y, width, height = frame.panel
    assert 0 < x < 320 - width and 180 < y < y + height < 360  # in the bottom-left quarter
    inside = [frame.pixel(px, py) for px in range(x + 2, x + width - 2, 7) for py in range(y + 2, y + height - 2, 7)]
    assert sum(1 for rgb in inside if rgb != (0, 0, 0)) > 0.9 * len(inside)  # the panel's backdrop
    assert frame.pixel(600, 20) == frame.pixel(320, 180) == (0, 0, 0)  # nothing drawn elsewhere
    fullscreen = svc_display_frame(None, "overlay", "edge_glow", size=(640, 360))
    assert fullscreen.zone == "fullscreen" and fullscreen.panel is None


def test_the_canvas_check_says_which_renderers_raise_and_which_work(svc_display_host, svc_display_canvas_check):
    """Issue 34: ``svc_display_canvas_check`` shows a row of a type on the display's own canvas and
    says whether its renderer raised, at build or at a later frame, as the screen's report does;
    a working renderer is shown and did not raise."""
    from tests.display import failing_plugin

    host = svc_display_host(plugins=[(failing_plugin.NAME, failing_plugin)])
    at_build = svc_display_canvas_check(host, "screen", "breaks_at_build")
    assert at_build.raised and not at_build.shown, at_build
    assert at_build.failures[0]["message"] == "ZeroDivisionError: division by zero"
    assert at_build.failures[0]["plugin"] == failing_plugin.NAME
    assert "Traceback" in at_build.log  # the author sees where it raised
    later = svc_display_canvas_check(host, "screen", "breaks_later", seconds=2)
    assert later.raised and later.failures[0]["message"].startswith("ValueError: later: fails at frame")
    assert svc_display_canvas_check(host, "overlay", "overlay_breaks_later").raised
    tape = svc_display_canvas_check(host, "ticker", "tape_breaks")
    assert tape.raised and tape.failures[0]["kind"] == "ticker", tape
    works = svc_display_canvas_check(host, "screen", "message", {"body": "Hello"})
    assert not works.raised and works.shown and works.failures == [], works
    assert works.report["state"] == "showing" and works.report["current"]["screen_id"] == "check-message"
