"""Displays in step, measured from what they show: the spread of the slide changes of real display
processes of one sync group, seen in their live-preview frames.

    .venv/bin/python benchmarks/in_step.py [--displays 3] [--seconds 40] [--dwell 2] [--fps 20]

Starts ``--displays`` real ``svc-display serve`` processes with their canvas offscreen (Mesa
llvmpipe, 320x180), each on a data dir of its own, ``--stagger`` seconds apart, each with the same
program (three ``message`` slides of ``--dwell`` seconds, each its own background colour), and
watches every display's live-preview WebSocket (JPEG frames at ``--fps``) from one process. The
slide a frame shows is told by the colour of a corner of the slide area (the slide's ground, which
turns to the new slide's in the middle of a change); a display's change is the receive time of its
first frame of the next slide. For each change of the first display, the spread is the latest minus
the earliest of the displays' changes to the same slide within half a cycle.

Two phases in the same run, ``--seconds`` each:

- ``baseline``: the same displays with no ``sync_group`` (each cycle runs from its own start);
- ``in_step``: ``sync_group`` set on every display (``PUT /v1/display/settings``).

It prints one JSON object: per phase the spread's p50 and max (ms) and the number of changes
matched (``in_step_recorded``: the same from the changes' recorded start times, the program
telemetry's ``at_ms``, over the in-step phase), the live preview's measured frame interval (the resolution of this measure: a change is
seen at the first frame after it), the ratios ``in_step / baseline`` and ``in_step / frame
interval``, the load average at the start and the end. docs/performance.md and docs/display.md
record its figure.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import ImageStat  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from tests.display.canvas import ServeCanvas, canvas_env, decode  # noqa: E402

COLOURS = {"red": (200, 40, 40), "green": (40, 170, 60), "blue": (40, 70, 200)}
SIZE = "320x180"


def classify(image) -> str | None:
    """The slide a frame shows, by the mean colour of a corner of the slide area (its ground)."""
    width, height = image.size
    corner = image.crop((int(width * 0.02), int(height * 0.04), int(width * 0.12), int(height * 0.14)))
    mean = ImageStat.Stat(corner).mean
    name, distance = min(((n, sum(abs(mean[i] - c[i]) for i in range(3))) for n, c in COLOURS.items()),
                         key=lambda item: item[1])
    return name if distance < 90 else None


def watch(display: ServeCanvas, key: str, seconds: float, out: list) -> None:
    """``(receive time, slide)`` of every live-preview frame of ``display`` for ``seconds``."""
    with connect(display.ws_url(display.ticket(key)), additional_headers={"Authorization": f"Bearer {key}"},
                 open_timeout=10, max_size=None) as ws:
        end = time.time() + seconds
        while time.time() < end:
            message = ws.recv(timeout=10)
            out.append((time.time(), classify(decode(message))))


def changes(frames: list) -> list[tuple[float, str]]:
    """``(time, slide)`` of each frame that shows another slide than the frames before it."""
    found, last = [], None
    for at, slide in frames:
        if slide is not None and slide != last:
            if last is not None:
                found.append((at, slide))
            last = slide
    return found


def spreads(per_display: list[list[tuple[float, str]]], window: float) -> list[float]:
    """For each change of the first display, latest minus earliest of every display's change to
    the same slide within ``window`` seconds (ms); a change not every display made is left out."""
    out = []
    for at, slide in per_display[0]:
        matched = [at]
        for others in per_display[1:]:
            near = [t for t, s in others if s == slide and abs(t - at) <= window]
            if not near:
                break
            matched.append(min(near, key=lambda t: abs(t - at)))
        else:
            out.append((max(matched) - min(matched)) * 1000)
    return out


def phase(displays: list[ServeCanvas], keys: list[str], seconds: float) -> list[list]:
    frames: list[list] = [[] for _ in displays]
    threads = [threading.Thread(target=watch, args=(d, k, seconds, f)) for d, k, f in zip(displays, keys, frames)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return frames


def summary(values: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(values), 1) if values else None,
            "max_ms": round(max(values), 1) if values else None, "changes": len(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--displays", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--dwell", type=float, default=2.0)
    parser.add_argument("--fps", type=int, default=20)
    parser.add_argument("--stagger", type=float, default=1.3)
    args = parser.parse_args()
    load_start = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    program = [{"id": f"s-{name}", "screen_type": "message", "dwell_seconds": args.dwell, "frequency_weight": 1,
                "config_json": {"title": name.title(), "body": "In step", "backgroundColor": "#%02x%02x%02x" % rgb}}
               for name, rgb in COLOURS.items()]
    displays: list[ServeCanvas] = []
    with tempfile.TemporaryDirectory(prefix="in-step-") as tmp:
        try:
            keys = []
            for index in range(args.displays):
                env = canvas_env(Path(tmp) / f"display-{index}", SVC_DISPLAY_WINDOW_SIZE=SIZE,
                                 SVC_DISPLAY_MAX_FPS="30", SVC_DISPLAY_LIVE_PREVIEW_FPS=str(args.fps),
                                 SVC_DISPLAY_LIVE_PREVIEW_WIDTH="160", SVC_DISPLAY_LOG_LEVEL="WARNING")
                display = ServeCanvas(env).start(timeout=120)
                displays.append(display)
                key = display.key("admin")
                keys.append(key)
                for row in program:
                    answer = display.request("POST", "/v1/screens", key=key, json=row)
                    assert answer.status_code == 201, answer.text
                time.sleep(args.stagger)
            window = args.dwell * len(program) / 2
            time.sleep(2)
            baseline = phase(displays, keys, args.seconds)
            for display, key in zip(displays, keys):
                answer = display.request("PUT", "/v1/display/settings", key=key, json={"sync_group": "bench"})
                assert answer.status_code == 200, answer.text
            time.sleep(args.dwell * len(program) + 1)  # joined: on the group's slide, then a change
            syncs = {json.dumps(d.get("/v1/display/screen", key=k).json()["sync"], sort_keys=True)
                     for d, k in zip(displays, keys)}
            watched_from = int(time.time() * 1000)
            in_step = phase(displays, keys, args.seconds)
            recorded = [[(line["at_ms"] / 1000, line["slides"][0]["id"]) for line in reversed(
                d.get("/v1/telemetry/programs?limit=500", key=k).json()["items"])
                if line["reason"] == "dwell" and line["at_ms"] >= watched_from] for d, k in zip(displays, keys)]
        finally:
            for display in displays:
                display.stop()
    intervals = [b[0] - a[0] for frames in in_step + baseline for a, b in zip(frames, frames[1:])]
    frame_ms = statistics.median(intervals) * 1000 if intervals else None
    base = spreads([changes(f) for f in baseline], window)
    step = spreads([changes(f) for f in in_step], window)
    result = {
        "date": started, "displays": args.displays, "seconds": args.seconds, "dwell": args.dwell,
        "preview_fps": args.fps, "canvas": SIZE, "sync": [json.loads(s) for s in syncs],
        "frame_interval_ms": round(frame_ms, 1) if frame_ms else None,
        "baseline": summary(base), "in_step": summary(step),
        "in_step_recorded": summary(spreads(recorded, window)),
        "ratio_in_step_to_baseline_p50": round(statistics.median(step) / statistics.median(base), 3)
        if step and base and statistics.median(base) else None,
        "ratio_in_step_p50_to_frame_interval": round(statistics.median(step) / frame_ms, 2)
        if step and frame_ms else None,
        "ratio_in_step_max_to_frame_interval": round(max(step) / frame_ms, 2) if step and frame_ms else None,
        "load_start": [round(v, 2) for v in load_start], "load_end": [round(v, 2) for v in os.getloadavg()],
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
