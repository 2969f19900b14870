"""CPU of the ``svc-display serve`` process with its canvas while the display is on and while
it is off (CONTRACT "Display power": off, the canvas draws nothing and schedules no frame).

    .venv/bin/python benchmarks/power_idle.py [--seconds 60] [--size 1280x720] [--warmup 5]

One real server process, offscreen canvas (``SDL_VIDEODRIVER=offscreen``, llvmpipe), capped at
60 fps as a display runs, headless of any panel (backend ``none``), with a program that moves:
a ``message`` slide, a ``text`` ticker tape and a ``birthday_confetti`` overlay. After a warm-up
the process's CPU time (``/proc/<pid>/stat`` utime + stime: every thread, llvmpipe's included)
is measured over ``--seconds`` with the display on, then (``POST /v1/display/power
{state: off}`` and a settling second) the same window off, then on again for the redraw time
(from the POST until the live preview's first frame that is not black). Prints one JSON object:
CPU seconds and share of a core of each window, off/on (goal: <= 0.1) and the redraw seconds
(goal: <= 1).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svc_display.testing import ServerProcess  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)


def measure(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - before


def redraw_seconds(server: ServerProcess, key: str) -> float:
    """From ``POST {state: on}`` until the canvas shows the slide again: the first live-preview
    frame that is not black (a viewer gets one black frame while off). The compositor is kept
    while off and goes on with the slide it showed, so no new program line marks the moment;
    the preview's own latency (it hands frames out a batch at a time) is counted in."""
    from websockets.sync.client import connect

    from tests.display.canvas import decode

    ticket = server.request("POST", "/v1/display/live-preview/session", key=key).json()["ticket"]
    url = f"ws://127.0.0.1:{server.port}/v1/display/live-preview/ws?ticket={ticket}"
    with connect(url, additional_headers={"Authorization": f"Bearer {key}"}, open_timeout=10, max_size=None) as ws:
        ws.recv(timeout=30)  # the black frame of a display that is off
        posted = time.monotonic()
        server.request("POST", "/v1/display/power", key=key, json={"state": "on"})
        while True:
            frame = decode(ws.recv(timeout=30))
            if max(high for _low, high in frame.getextrema()) >= 20:
                return time.monotonic() - posted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        env = {"SVC_DISPLAY_DATA_DIR": str(Path(root) / "data"), "SVC_DISPLAY_HEADLESS": "",
               "SDL_VIDEODRIVER": "offscreen", "SVC_DISPLAY_HTTP_TLS": "0", "SVC_DISPLAY_WINDOW_SIZE": args.size,
               "SVC_DISPLAY_MAX_FPS": "60", "SVC_DISPLAY_LOG_LEVEL": "WARNING", "SVC_DISPLAY_POWER_BACKEND": "none"}
        server = ServerProcess(env).start(timeout=120)
        try:
            key = server.key("admin")
            for path, body in (
                ("/v1/screens", {"id": "slide", "screen_type": "message", "dwell_seconds": 3600,
                                 "config_json": {"title": "Power", "body": "on and off",
                                                 "backgroundColor": "#d02010"}}),
                ("/v1/ticker/tapes", {"id": "tape", "ticker_type": "text",
                                      "config_json": {"text": "Opening hours 07:00 to 19:00"}}),
                ("/v1/display/overlays", {"id": "confetti", "overlay_type": "birthday_confetti", "start_month": 1,
                                          "start_day": 1, "end_month": 12, "end_day": 31,
                                          "config_json": {"density": 1.0}})):
                answer = server.request("POST", path, key=key, json=body)
                assert answer.status_code in (200, 201), (path, answer.text)
            time.sleep(args.warmup)
            pid = server.process.pid
            on = measure(pid, args.seconds)
            server.request("POST", "/v1/display/power", key=key, json={"state": "off"})
            time.sleep(1.0)
            off = measure(pid, args.seconds)
            redraw = redraw_seconds(server, key)
        finally:
            server.stop()
    print(json.dumps({
        "seconds": args.seconds, "size": args.size,
        "on_cpu_s": round(on, 2), "off_cpu_s": round(off, 2),
        "on_core_share": round(on / args.seconds, 4), "off_core_share": round(off / args.seconds, 4),
        "off_over_on": round(off / on, 4) if on else None, "goal_off_over_on": 0.1,
        "redraw_after_on_s": round(redraw, 2), "goal_redraw_s": 1.0,
    }, indent=2))


if __name__ == "__main__":
    main()
