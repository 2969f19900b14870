"""Proof-of-play export benchmark: a week of plays exported as CSV, and what recording costs a frame.

Builds a host (real migrations: ``svc_play`` and its indexes), writes a week of plays at a 6 s
dwell (100,800 rows, three slides in turn, with a few alerts and overlays) through the recorder's
own insert, then measures:

- the export: ``GET /v1/telemetry/plays?from_ms&to_ms&limit=100000`` with ``Accept: text/csv``
  through the real Falcon app (auth, query validation, SQL, CSV), following ``Next-Cursor`` until
  the week is read; the baseline is a plain ``SELECT`` of the same rows in the same order (no HTTP,
  no CSV). Goal: the export under 1 s.
- the UI thread's cost of recording a play (``PlayRecorder.replace``, what a slide change calls)
  against appending a program telemetry line (``RingBuffer.append``, which it sits beside).

    .venv/bin/python benchmarks/plays_export.py
    .venv/bin/python benchmarks/plays_export.py --database-url postgresql://postgres@127.0.0.1:5432/bench

Results go to stdout (docs/performance.md records them).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pony import orm  # noqa: E402

from builtin_plugins.display_program.telemetry import RingBuffer  # noqa: E402
from builtin_plugins.plays.recorder import PlayRecorder, insert_plays  # noqa: E402
from svc_display.testing import ApiClient, issue_key  # noqa: E402
from svc_display.testing.clock import FixedClock  # noqa: E402
from svc_host.config import load_settings  # noqa: E402
from svc_host.host import build_host  # noqa: E402
from svc_host.storage import select_rows  # noqa: E402

WEEK_MS = 7 * 86_400_000
DWELL_MS = 6000
START = 1_800_000_000_000
SLIDES = [("welcome", "message", "Welcome to the lobby"), ("menu", "menu_board", "Lunch menu"),
          ("sponsor", "message", "Coffee by Bean & Co")]


def week_of_plays() -> list[tuple]:
    rows = []
    for index in range(WEEK_MS // DWELL_MS):
        slide_id, slide_type, label = SLIDES[index % len(SLIDES)]
        started = START + index * DWELL_MS
        rows.append(("slide", slide_id, slide_type, label, started, started + DWELL_MS, index % 50 != 0))
        if index % 600 == 0:  # an alert an hour, an overlay shown for a minute
            rows.append(("alert", f"alert-{index}", "info", "Fire drill at 3", started, started + 30_000, True))
            rows.append(("overlay", "logo", "static_image", "Our logo", started, started + 60_000, True))
    return rows


def export(api: ApiClient) -> tuple[int, int]:
    """The week as CSV, page after page; (rows, bytes)."""
    cursor, rows, size = None, 0, 0
    while True:
        query = f"/v1/telemetry/plays?from_ms={START}&to_ms={START + WEEK_MS}&limit=100000"
        answer = api.get(query + (f"&cursor={cursor}" if cursor else ""), headers={"Accept": "text/csv"})
        assert answer.status_code == 200, answer.text[:500]
        rows += answer.text.count("\n") - 1
        size += len(answer.text)
        cursor = answer.headers.get("next-cursor")
        if cursor is None:
            return rows, size


def plain_select(host) -> int:
    with orm.db_session:
        return len(select_rows(host.db, "SELECT id, screen_id, screen_type, label, started_ms, ended_ms, complete, "
                                        "kind FROM svc_play WHERE started_ms >= $a AND started_ms < $b "
                                        "ORDER BY started_ms, id", {"a": START, "b": START + WEEK_MS}))


def timed(step, runs: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = step()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), result


def record_cost(host, calls: int) -> tuple[float, float]:
    """Median µs of a recorded slide change and of a telemetry line append, ``calls`` each."""
    recorder = PlayRecorder(host, max_rows=10 ** 8)  # not started: what the UI thread pays is the call
    host.clock = FixedClock(START)
    items = [[{"id": slide_id, "type": kind, "label": label}] for slide_id, kind, label in SLIDES]
    ring = RingBuffer()
    line = {"at_ms": START, "reason": "dwell", "slides": items[0]}

    def plays() -> None:
        for index in range(calls):
            recorder.replace("slide", items[index % 3], complete=True)

    def lines() -> None:
        for _ in range(calls):
            ring.append(line)

    play_s, _ = timed(plays, 5)
    line_s, _ = timed(lines, 5)
    return play_s / calls * 1e6, line_s / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="svc-plays-bench-"))
    env = {"SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1", "SVC_DISPLAY_LOG_LEVEL": "WARNING",
           "SVC_DISPLAY_PLAYS_MAX_ROWS": "1000000"}
    if args.database_url:
        env["SVC_DISPLAY_DATABASE_URL"] = args.database_url
    host = build_host(load_settings(env))
    try:
        rows = week_of_plays()
        with orm.db_session:
            host.db.execute("DELETE FROM svc_play")
        for start in range(0, len(rows), 10_000):
            insert_plays(host.db, rows[start:start + 10_000])
        with orm.db_session:
            host.db.execute("ANALYZE")
        api = ApiClient(host, issue_key(host, "viewer", "bench-viewer"))
        export(api)  # warm up
        plain_select(host)
        export_s, (exported, size) = timed(lambda: export(api), args.runs)
        select_s, selected = timed(lambda: plain_select(host), args.runs)
        assert exported == selected == len(rows), (exported, selected, len(rows))
        play_us, line_us = record_cost(host, 20_000)
    finally:
        host.close()
    print(f"\nbackend: {host.db.provider_name}; rows: {len(rows):,} (a week at a {DWELL_MS // 1000} s dwell, "
          f"with alerts and overlays); runs: {args.runs} (medians)")
    print("\n| what | time | baseline | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| the week as CSV over the REST app ({size / 1e6:.1f} MB) | {export_s * 1000:.0f} ms | plain SELECT of "
          f"the same rows: {select_s * 1000:.0f} ms | {export_s / select_s:.1f}x |")
    print(f"| a slide change recorded (UI thread) | {play_us:.1f} µs | a telemetry line appended: {line_us:.1f} µs | "
          f"{play_us / line_us:.1f}x |")
    verdict = "met" if export_s < 1.0 else "NOT met"
    print(f"\ngoal: the week exported in under 1 s: {verdict} ({export_s:.2f} s)")
    return 0 if export_s < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
