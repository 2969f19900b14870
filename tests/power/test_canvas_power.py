"""The canvas while the display is off, and the systemd watchdog, in one real server process
with an offscreen canvas: ``cec`` through a stand-in ``cec-client``, the live preview, a
witness layer (tests/power/witness.py) and a datagram socket standing in for systemd.

Off: the compositor pauses (the witness layer ticks no more but is kept), the live preview
sends one black frame and then none, the panel is sent ``standby 0``; on: the same compositor
draws again, and a program goes on from the slide it showed (the display test plugin's
canvas, :class:`~tests.display.canvas.CanvasServer`). The watchdog: ``READY=1`` once the port is bound, ``WATCHDOG=1`` while the UI
thread runs its clock, none once a renderer blocks it, pings again once it is free, and
pings while off (from the server loop).
"""
from __future__ import annotations

import socket

import pytest
from websockets.sync.client import connect

from svc_display.testing.upstream import wait_for
from tests.display.canvas import ServeCanvas, canvas_env, decode
from tests.power.helpers import power
from tests.power.standins import WATCHDOG_USEC, StandIns, Systemd
from tests.power.witness import install

pytestmark = pytest.mark.slow

INTERVAL = WATCHDOG_USEC / 1e6


@pytest.fixture(scope="module")
def display(tmp_path_factory):
    root = tmp_path_factory.mktemp("power-canvas")
    tools = StandIns(root / "standins")
    witness = root / "witness"
    witness.mkdir()
    systemd = Systemd()
    env = canvas_env(root / "data", PATH=tools.path(), SVC_DISPLAY_POWER_BACKEND="cec",
                     NOTIFY_SOCKET="@" + systemd.name, WATCHDOG_USEC=str(WATCHDOG_USEC),
                     POWER_WITNESS_DIR=str(witness))
    server = ServeCanvas(env, [install(root / "site")])
    server.start(timeout=120)
    server.admin = server.key("admin")
    server.tools, server.witness, server.systemd = tools, witness, systemd
    yield server
    (witness / "block").unlink(missing_ok=True)
    assert server.stop() == 0, server.log[-3000:]
    assert "Traceback" not in server.log, server.log[-3000:]


def lives(display) -> list[str]:
    path = display.witness / "lives"
    return path.read_text().split() if path.exists() else []


def frames(display) -> int:
    path = display.witness / "frames"
    return int(path.read_text() or 0) if path.exists() else 0


def panel(display) -> str:
    return display.request("GET", "/v1/display/power", key=display.admin).json()["panel_state"]


def test_ready_after_the_port_is_bound_then_pings_while_drawing(display):
    display.systemd.wait("READY=1")
    with socket.create_connection(("127.0.0.1", display.port), timeout=10):
        pass  # bound before READY=1 was sent (the server was started before the socket was read)
    display.systemd.wait("WATCHDOG=1")
    wait_for(lambda: frames(display) > 0, timeout=60)


def test_a_blocked_ui_thread_stops_the_pings_and_they_resume_when_it_is_free(display):
    display.systemd.wait("WATCHDOG=1")
    (display.witness / "block").write_text("1")
    wait_for(lambda: (display.witness / "blocked").exists(), timeout=60)
    display.systemd.drain(INTERVAL)  # pings decided before the stamp went stale
    assert "WATCHDOG=1" not in display.systemd.drain(2 * INTERVAL)
    assert display.get("/v1/health").status_code == 200  # the server still answers: the canvas froze
    (display.witness / "block").unlink()
    display.systemd.wait("WATCHDOG=1")


def test_off_darkens_the_canvas_and_the_preview_and_on_draws_again(display):
    key = display.admin
    with connect(display.ws_url(display.ticket(key)), additional_headers={"Authorization": f"Bearer {key}"},
                 open_timeout=10, max_size=None) as ws:
        lit = decode(ws.recv(timeout=30))
        assert lit.getpixel((lit.width // 2, lit.height // 2))[0] > 150  # the witness's red
        created = lives(display).count("created")
        body = power(display, state="off")
        assert body["state"] == "off" and body["backend"] == "cec" and body["backend_available"] is True
        while True:  # frames captured before the change, then the black one
            frame = decode(ws.recv(timeout=30))
            if max(max(frame.getpixel((x, y))) for x in range(0, frame.width, 16)
                   for y in range(0, frame.height, 16)) < 20:
                break
        with pytest.raises(TimeoutError):
            ws.recv(timeout=3)  # one black frame, then none while off
        stopped_at = frames(display)
        wait_for(lambda: panel(display) == "standby", timeout=60)
        assert {"tool": "cec-client", "args": ["-s", "-d", "1"], "stdin": "standby 0\n"} in display.tools.calls()
        assert display.get("/v1/health").json()["display_power"] == "off"
        display.systemd.drain(INTERVAL)
        assert "WATCHDOG=1" in display.systemd.drain(INTERVAL)  # off: the server loop is the sign of life
        assert frames(display) == stopped_at  # no frame ticked any layer while off

        power(display, state="on")
        wait_for(lambda: decode(ws.recv(timeout=30)).getpixel((lit.width // 2, lit.height // 2))[0] > 150, timeout=60)
        wait_for(lambda: frames(display) > stopped_at, timeout=60)  # the same layer ticks again
        assert lives(display).count("created") == created and "disposed" not in lives(display)
    wait_for(lambda: panel(display) == "on", timeout=60)
    assert {"tool": "cec-client", "args": ["-s", "-d", "1"], "stdin": "on 0\n"} in display.tools.calls()


def test_a_display_started_outside_its_hours_never_draws(display):
    """Last in the module: it restarts the server. A window tomorrow only: off now, by schedule."""
    import datetime as dt

    key = display.admin
    assert power(display, state="auto")["override"] is None
    tomorrow = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)).strftime("%a").lower()
    answer = display.request("PUT", "/v1/display/power/schedule", key=key,
                             json={"schedule": [{"days": [tomorrow], "on": "10:00", "off": "11:00"}]})
    assert answer.status_code == 200 and answer.json()["state"] == "off", answer.text
    assert display.stop() == 0
    created = lives(display).count("created")
    display.start(timeout=120)
    with connect(display.ws_url(display.ticket(key)), additional_headers={"Authorization": f"Bearer {key}"},
                 open_timeout=10, max_size=None) as ws:
        frame = decode(ws.recv(timeout=30))
        assert max(frame.getextrema()[channel][1] for channel in range(3)) < 20  # black
    wait_for(lambda: panel(display) == "standby", timeout=60)  # the worker has looked, and switched
    assert lives(display).count("created") == created  # no compositor was made, not even for a frame
    assert display.request("PUT", "/v1/display/power/schedule", key=key, json={"schedule": []}).status_code == 200
    wait_for(lambda: lives(display).count("created") == created + 1, timeout=60)
