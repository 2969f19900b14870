"""Connection churn for a long time: the display's RSS at the end against its start.

Starts a real ``svc-display serve`` (headless, HTTPS, SQLite) on a temporary data dir and, for
``--minutes`` (default 30), churns ``--at-once`` connections at a time (default 500, each from
its own loopback address), round after round. Two modes:

- ``upgrade`` (default): TLS connections that send a WebSocket upgrade with a ticket that does
  not exist (each refused with 403).
- ``idle``: plain TCP connections that send nothing, held ``--hold`` seconds and closed; the
  server's global cap (``SVC_DISPLAY_HTTP_MAX_CONNECTIONS``) is set to ``--at-once`` so each
  round fills it (the issue's "idle TCP sockets re-opened at the global cap"); ``--cap`` below
  ``--at-once`` has the rest of each round refused at accept.

``--warmup`` rounds run before the start is measured (default 0): what a process allocates once
on its first connections (lazy imports, caches, free lists) then counts in the start, not in
the churn. It prints the RSS every ``--every`` seconds; at the end it waits for the server's
next ``malloc_trim`` (``--settle``: one more) (every 30 s, ``svc_host/display/runtime.py``) and prints RSS end / start
(goal: within 10 %).

``--probe`` loads ``benchmarks/memprobe/sitecustomize.py`` in the server and prints its report
at the cold start, at the start and at the end (``SVC_MEMPROBE_FRAMES=6`` in the environment
adds tracemalloc, from start-up: slow, and RSS figures are higher): where the rest that the churn
leaves is (garbage a full collection would free, glibc heap, pymalloc arenas, Python objects),
and the top allocations that differ from the cold start.

    .venv/bin/python benchmarks/upgrade_churn.py [--minutes 30] [--at-once 500] [--warmup 6]
        [--mode upgrade|idle] [--probe]
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svc_display.testing import ServerProcess  # noqa: E402
from svc_display.testing.memory import MIB, rss  # noqa: E402
from tests.raw_http import idle_sockets, refused_upgrades  # noqa: E402

GOAL = 0.10
TRIM_WAIT = 35  # past the server's next malloc_trim (every 30 s)
SETTLE = 30  # --settle: one more trim, at least 30 s after the last round's connections closed


def churn_round(server: ServerProcess, args) -> collections.Counter:
    if args.mode == "idle":
        return asyncio.run(idle_sockets(server, args.at_once, args.hold))
    return collections.Counter(asyncio.run(refused_upgrades(server, rounds=1, at_once=args.at_once)))


def breakdown(pid: int) -> str:
    """Where the resident pages are, from outside: the glibc main heap, other anonymous
    mappings (pymalloc arenas, thread stacks, glibc's other arenas, large blocks) and files
    (libraries and their pages touched on first use)."""
    heap = anon = 0
    name = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            name = fields[5] if len(fields) > 5 else ""
        elif fields[0] == "Anonymous:":
            if name == "[heap]":
                heap += int(fields[1]) * 1024
            else:
                anon += int(fields[1]) * 1024
    status = {line.split(":")[0]: line.split()[1:] for line in Path(f"/proc/{pid}/status").read_text().splitlines()}
    return (f"heap {heap / MIB:.1f} MiB, other anonymous {anon / MIB:.1f} MiB, files "
            f"{int(status['RssFile'][0]) / 1024:.1f} MiB, threads {status['Threads'][0]}")


def probe(folder: Path | None, name: str) -> None:
    """Ask the server's memory probe for a report and print it (``--probe``)."""
    if folder is None:
        return
    (folder / f"{name}.request").touch()
    report = folder / f"{name}.txt"
    deadline = time.monotonic() + 120
    while not report.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.2)  # written in one call; let it finish
    print(f"--- probe {name} ---\n{report.read_text() if report.exists() else '(no report)'}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--at-once", type=int, default=500)
    parser.add_argument("--every", type=float, default=60.0)
    parser.add_argument("--warmup", type=int, default=0, help="rounds before the start is measured")
    parser.add_argument("--mode", choices=("upgrade", "idle"), default="upgrade")
    parser.add_argument("--hold", type=float, default=2.0, help="idle mode: seconds each socket is held")
    parser.add_argument("--cap", type=int, default=0,
                        help="idle mode: the server's global cap (default --at-once; lower: each round "
                             "has connections refused at accept)")
    parser.add_argument("--settle", action="store_true",
                        help="wait for a second trim at the end (the first may come as the connections close)")
    parser.add_argument("--probe", action="store_true", help="report where the memory is, from inside the server")
    args = parser.parse_args()
    env = {"SVC_DISPLAY_HTTP_MAX_CONNECTIONS": str(args.cap or args.at_once)} if args.mode == "idle" else {}
    with tempfile.TemporaryDirectory() as tmp:
        probes = Path(tmp) / "probes" if args.probe else None
        if probes:
            probes.mkdir()
            env["SVC_MEMPROBE_DIR"] = str(probes)
        server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(Path(tmp) / "data"), "SVC_DISPLAY_HEADLESS": "1",
                                "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0", **env},
                               extra_pythonpath=[str(REPO / "benchmarks" / "memprobe")] if probes else ()
                               ).start(timeout=240 if probes else 60)
        try:
            pid = server.process.pid
            time.sleep(TRIM_WAIT)  # past the first malloc_trim after start-up
            probe(probes, "cold")
            cold = rss(pid)
            print(f"cold: {cold / MIB:.1f} MiB: {breakdown(pid)}", flush=True)
            if args.warmup:
                for _ in range(args.warmup):
                    churn_round(server, args)
                time.sleep(TRIM_WAIT)
                print(f"before the warm-up: {cold / MIB:.1f} MiB ({args.warmup} rounds)", flush=True)
            if args.warmup:
                probe(probes, "start")
            start = rss(pid)
            print(f"start: {start / MIB:.1f} MiB (mode {args.mode}, {args.at_once} at once): {breakdown(pid)}",
                  flush=True)
            began = shown = time.monotonic()
            total: collections.Counter = collections.Counter()
            while time.monotonic() - began < args.minutes * 60:
                total.update(churn_round(server, args))
                if time.monotonic() - shown >= args.every:
                    shown = time.monotonic()
                    print(f"{(shown - began) / 60:5.1f} min: {sum(total.values())} connections, "
                          f"RSS {rss(pid) / MIB:.1f} MiB", flush=True)
            busy = rss(pid)
            time.sleep(TRIM_WAIT + (SETTLE if args.settle else 0))
            end = rss(pid)
            print(f"end: {end / MIB:.1f} MiB: {breakdown(pid)}", flush=True)
            probe(probes, "end")
        finally:
            server.stop()
    print(f"answers: {dict(total)}")
    print(f"RSS start {start / MIB:.1f} MiB, at the last round {busy / MIB:.1f} MiB, {TRIM_WAIT + (SETTLE if args.settle else 0)} s later "
          f"{end / MIB:.1f} MiB: end/start {end / start:.3f} (goal: at most {1 + GOAL:.2f})"
          + (f"; against the cold start {end / cold:.3f}" if args.warmup else ""))
    return 0 if end / start <= 1 + GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
