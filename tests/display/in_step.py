"""The driven scenario of a display of a sync group (tests/display/test_in_step.py): one real canvas
(:mod:`tests.display.driven`, its own host, database and program state), its frame time driven
from ``start_ms`` (the job's host clock) to ``end_ms`` in frames of random length (a seed of its
own), with an optional stall (one long frame), a dark spell (no frames while the wall clock
runs on) and changes of its ``sync_group`` setting at given times. It answers every change of the slide program (the telemetry line: its recorded
``at_ms``, reason and slide) with the wall-clock times of the frame that made it and of the frame
before, and its ``sync`` as ``GET /v1/display/screen`` says it."""
from __future__ import annotations

import random
from typing import Any

from tests.display.driven import Canvas, lines


def display(canvas: Canvas, job: dict) -> dict:
    compositor, clock = canvas.compositor, canvas.host.clock
    rng = random.Random(job["seed_frames"])
    low, high = job["dt"]
    stall_ms, dark = job.get("stall_ms"), job.get("dark")  # dark: [from_ms, for_ms]
    groups = sorted(job.get("groups", []))  # [at_ms, sync_group]: the setting changed through REST then
    changes: list[dict] = []
    spells: list[list[int]] = []
    seen = 0

    def collect(frame_ms: int, before_ms: int) -> None:
        """The telemetry lines since the last call: made by the frame (or the request) at ``frame_ms``."""
        nonlocal seen
        found = lines(canvas.host)
        for line in found[seen:]:
            if line["reason"] != "program_changed":
                changes.append({"at_ms": line["at_ms"], "reason": line["reason"], "frame_ms": frame_ms,
                                "before_ms": before_ms, "slide": line["slides"][0]["id"] if line["slides"] else None})
        seen = len(found)

    started = clock.now_ms()
    collect(started, started)  # the first slide, put on screen as the canvas started
    while clock.now_ms() < job["end_ms"]:
        before = clock.now_ms()
        if dark is not None and before >= dark[0]:
            compositor.pause()  # dark: no frame, the wall clock goes on
            clock.start_ms += dark[1]
            spells.append([before, clock.now_ms()])
            compositor.resume()
            canvas.settle()
            dark = None
            before = clock.now_ms()
        while groups and before >= groups[0][0]:
            answer = canvas.api.put("/v1/display/settings", json={"sync_group": groups.pop(0)[1]})
            assert answer.status_code == 200, answer.text
            canvas.settle()  # the change event, the slides layer's reload: no frame time
            collect(before, before)
        dt = rng.uniform(low, high)
        if stall_ms is not None and before >= stall_ms:
            dt, stall_ms = 2.5, None  # a frame 2.5 s late (the machine stalled)
            spells.append([before, before + 2500])
        canvas.frame(dt)
        collect(clock.now_ms(), before)
    assert len(lines(canvas.host)) < 500, "the telemetry ring buffer wrapped: the changes above miss some"
    sync = canvas.api.get("/v1/display/screen").json["sync"]
    return {"changes": changes, "spells": spells, "sync": sync, "started_ms": started, "ended_ms": clock.now_ms()}
