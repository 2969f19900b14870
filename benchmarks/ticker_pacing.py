"""The ticker's frame pacing on a busy box: how evenly the band's text moves, quiet and under two
busy loops.

    .venv/bin/python benchmarks/ticker_pacing.py [--seconds 8] [--size 1280x720]

Each measurement is a child process: the real compositor in Kivy's offscreen window (llvmpipe,
60 fps cap as a display runs, Kivy's own clock driving the frames), a ``text`` ticker tape and
nothing else on screen. At every buffer flip (``Window.on_flip``: offscreen, the frame is shown
when it is drawn) it records the time and the text's offset. Figures per case: the frames, the
mean speed, ``spread`` (the standard deviation of px/ms between consecutive flips over their mean:
0 when the offset is a function of the time, whatever the frames' spacing), the longest gap
between flips and ``still_100ms`` (the share of 100 ms windows with no flip at all: what a viewer
sees as "0 px, then 39 px"). With ``busy``, two processes spin on a core each (this box has two:
the canvas then competes for them). Prints one JSON object with both cases and the ratios busy /
quiet (the baseline is the quiet run of the same invocation).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def spin() -> None:  # pragma: no cover - a busy loop
    while True:
        pass


def child(seconds: float) -> dict:
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient
    from svc_host.config import load_settings
    from svc_host.display import MODE_OFFSCREEN, start_kivy
    from svc_host.display.bus import DisplayBus
    from svc_host.display.compositor import Compositor
    from svc_host.host import build_host

    data = tempfile.mkdtemp(prefix="ticker-pacing-")
    host = build_host(load_settings({"SVC_DISPLAY_DATA_DIR": data, "SVC_DISPLAY_HEADLESS": ""}))
    api = ApiClient(host, issue_key(host, "admin"))
    answer = api.request("POST", "/v1/ticker/tapes", json={"id": "tape", "ticker_type": "text", "config_json": {
        "text": "Welcome to Aurora Café · Fresh coffee and cinnamon buns until 18:00 · Free Wi-Fi: cafe"}})
    assert answer.status_code < 300, answer.text
    start_kivy(host, MODE_OFFSCREEN)
    from kivy.base import EventLoop  # Kivy after the store's requests (its logger takes over stderr)
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.uix.floatlayout import FloatLayout

    host.display_bus = DisplayBus()
    host.display_bus.bind(Clock.create_trigger(host.display_bus.drain, 0))
    root = FloatLayout(size=Window.size)
    Window.add_widget(root)
    compositor = Compositor(host)
    compositor.attach(root, frames=True)
    marquee = compositor.entry("marquee").layer
    flips: list[tuple[float, float]] = []
    Window.bind(on_flip=lambda *_a: flips.append((time.perf_counter(), marquee.offset)))
    end = time.perf_counter() + seconds + 3.0
    while time.perf_counter() < end:
        EventLoop.idle()
    compositor.detach()
    host.close()
    start = end - seconds
    flips = [f for f in flips if f[0] >= start]  # past the start (loading, the first cycle)
    rates = []
    for (t0, x0), (t1, x1) in zip(flips, flips[1:]):
        if t1 > t0 and x1 <= x0 and x0 - x1 < 2000:  # not across a run dropped at the band's end
            rates.append((x0 - x1) / ((t1 - t0) * 1000))
    mean = statistics.fmean(rates)
    times = [t for t, _x in flips]
    windows = int(seconds * 10)
    still = sum(1 for i in range(windows) if not any(start + i / 10 <= t < start + (i + 1) / 10 for t in times))
    return {"frames": len(rates), "px_per_ms": round(mean, 4), "spread": round(statistics.pstdev(rates) / mean, 4),
            "longest_gap_ms": round(max(b - a for a, b in zip(times, times[1:])) * 1000, 1),
            "still_100ms": round(still / windows, 3)}


def measure(seconds: float, size: str, busy: bool) -> dict:
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(2 if busy else 0)]
    for process in spinners:
        process.start()
    try:
        env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "SVC_DISPLAY_HEADLESS": "",
               "SVC_DISPLAY_WINDOW_SIZE": size, "SVC_DISPLAY_MAX_FPS": "60", "KIVY_NO_ARGS": "1"}
        done = subprocess.run([sys.executable, __file__, "--child", "--seconds", str(seconds)], env=env,
                              capture_output=True, text=True, timeout=seconds * 20 + 120, cwd=str(REPO))
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise SystemExit(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return json.loads(lines[-1])
    finally:
        for process in spinners:
            process.terminate()
            process.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.seconds)))
        return
    load = os.getloadavg()[0]
    cases = {load_name: measure(args.seconds, args.size, load_name == "busy") for load_name in ("quiet", "busy")}
    quiet, busy = cases["quiet"], cases["busy"]
    ratios = {"spread busy/quiet": round(busy["spread"] / max(quiet["spread"], 1e-4), 2),
              "longest_gap busy/quiet": round(busy["longest_gap_ms"] / quiet["longest_gap_ms"], 2),
              "frames busy/quiet": round(busy["frames"] / max(1, quiet["frames"]), 2)}
    print(json.dumps({"seconds": args.seconds, "size": args.size, "load_at_start": load,
                      "load_at_end": os.getloadavg()[0], "cases": cases, "ratios": ratios}, indent=1))


if __name__ == "__main__":
    main()
