"""The power backends against stand-in executables on PATH (tests/power/standins.py), and the
worker that runs them: detection order, the commands and what is read back, a panel that
ignores standby, a failing and a hanging ``cec-client``."""
from __future__ import annotations

import logging
import os
import signal
import threading

import pytest

from builtin_plugins.power import backends
from builtin_plugins.power.backends import BackendError, choose
from builtin_plugins.power.controller import PowerService
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient
from tests.power.standins import StandIns


@pytest.fixture
def tools(tmp_path):
    return StandIns(tmp_path / "standins")


def environ(tools, *present, **extra):
    """An environment whose PATH holds the stand-ins of ``present`` only."""
    only = StandIns(tools.folder, tuple(present)) if present != ("all",) else tools
    if present != ("all",):
        for path in tools.bin.iterdir():
            if path.name not in present:
                path.unlink()
    return {"PATH": only.path(), **extra}


@pytest.mark.parametrize(("present", "extra", "chosen"), [
    (("all",), {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "cec"),
    (("vcgencmd", "wlr-randr", "xset"), {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "vcgencmd"),
    (("wlr-randr", "xset"), {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "wlr"),
    (("wlr-randr", "xset"), {"DISPLAY": ":0"}, "dpms"),  # wlr-randr without Wayland: not usable
    (("xset",), {}, "none"),  # xset without X11
    ((), {}, "none"),
    (("all",), {"named": "dpms"}, "dpms"),  # named: used even without DISPLAY
])
def test_detection_order_and_the_named_backend(tools, present, extra, chosen):
    named = extra.pop("named", "")
    backend, problem = choose(False, named, environ=environ(tools, *present, **extra))
    assert backend.name == chosen and problem is None


def test_headless_and_unknown_names_use_none(tools):
    assert choose(True, environ=environ(tools, "all", DISPLAY=":0"))[0].name == "none"
    backend, problem = choose(False, "hdmi", environ=environ(tools, "all"))
    assert backend.name == "none" and "SVC_DISPLAY_POWER_BACKEND" in problem and "cec" in problem
    named, _ = choose(False, "cec", environ={"PATH": str(tools.bin / "empty")})
    assert named.name == "cec" and not named.available()


@pytest.mark.parametrize(("name", "off_calls"), [
    ("cec", [("cec-client", ["-s", "-d", "1"], "standby 0\n"), ("cec-client", ["-s", "-d", "1"], "pow 0\n")]),
    ("vcgencmd", [("vcgencmd", ["display_power", "0"], ""), ("vcgencmd", ["display_power"], "")]),
    ("wlr", [("wlr-randr", [], ""), ("wlr-randr", ["--output", "HDMI-A-1", "--off"], ""), ("wlr-randr", [], "")]),
    ("dpms", [("xset", ["dpms", "force", "off"], ""), ("xset", ["q"], "")]),
])
def test_each_backend_switches_and_reads_the_panel_back(tools, name, off_calls):
    backend = backends.CLASSES[name](5, environ(tools, "all", DISPLAY=":0", WAYLAND_DISPLAY="w-0"))
    assert backend.available()
    assert backend.apply(False) == "standby" and tools.panel == "standby"
    assert [(c["tool"], c["args"], c["stdin"]) for c in tools.calls()] == off_calls
    assert backend.apply(True) == "on" and tools.panel == "on"


def test_a_panel_that_ignores_standby_reads_back_on(tools):
    tools.set_mode("ignore_standby")
    assert backends.Cec(5, environ(tools, "all")).apply(False) == "on"


def test_failing_and_hanging_commands_raise(tools):
    cec = backends.Cec(1, environ(tools, "all"))
    tools.set_mode("fail")
    with pytest.raises(BackendError, match="exited with 1: no adapter found"):
        cec.apply(False)
    tools.set_mode("hang")
    with pytest.raises(BackendError, match="did not finish within 1 s"):
        cec.apply(False)


@pytest.fixture
def api(make_host):
    host = make_host()
    return ApiClient(host, issue_key(host, "admin", "power-admin"))


def test_a_failure_is_logged_once_per_change_and_tried_again_at_the_next(api, tools, caplog):
    power = PowerService(api.host, backends.Cec(5, environ(tools, "all")), True)
    power.step()  # the first step switches the panel to the state (on: no schedule)
    assert power.panel_state == "on" and len(tools.calls()) == 2
    tools.set_mode("fail")
    api.post("/v1/display/power", json={"state": "off"})
    with caplog.at_level(logging.WARNING, "builtin_plugins.power.controller"):
        power.step()
        power.step()  # no change: not tried again, not logged again
    failures = [r for r in caplog.records if "backend cec could not switch the panel off" in r.getMessage()]
    assert len(failures) == 1 and power.panel_state == "unknown" and len(tools.calls()) == 3
    assert power.blank()  # the canvas goes dark even when the panel cannot be switched
    tools.set_mode("")
    api.post("/v1/display/power", json={"state": "on"})
    power.step()
    assert power.panel_state == "on" and not power.blank()


def test_a_hanging_cec_client_blocks_neither_the_api_nor_the_next_state(api, tools, caplog):
    tools.set_mode("hang")
    power = PowerService(api.host, backends.Cec(60, environ(tools, "all")), True)
    worker = threading.Thread(target=power.step, daemon=True)
    api.post("/v1/display/power", json={"state": "off"})
    worker.start()
    hung = tools.folder / "hung"
    for _ in range(600):  # the stand-in is running (event: it wrote its marker), at most 60 s
        if hung.exists():
            break
        worker.join(0.1)
    assert hung.exists() and worker.is_alive()
    # the command still hangs: reads, writes and the canvas's question answer from memory
    assert power.blank()
    body = api.get("/v1/display/power").json
    assert body["state"] == "off" and body["panel_state"] == "unknown"
    assert api.post("/v1/display/power", json={"state": "on"}).status_code == 200
    assert worker.is_alive()
    os.kill(int(hung.read_text()), signal.SIGKILL)  # the stand-in is ours to end
    worker.join(60)
    assert power.panel_state == "unknown"
