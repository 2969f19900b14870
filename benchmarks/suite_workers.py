"""The suite's wall time with the Makefile's workers against the old two, in the same run.

``make test`` runs twice the cores' workers (at most 8) and hands modules out heaviest first
(``--no-loadscope-reorder`` and the order of tests/module_seconds.json); it used to run one worker
per core with xdist's own order. This runs a sample of modules (by default a mix of servers, a
canvas, a browser and in-process tests) both ways, one after the other, and prints each wall time
and the ratio new / old. A ratio below 1 is the gain; the whole suite's figures are in
docs/testing.md.

    .venv/bin/python benchmarks/suite_workers.py [--cores N] [MODULE ...]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = ("tests/display/test_layout.py", "tests/controller/test_fleet.py", "tests/webapp/test_power.py",
          "tests/folder_plugins/test_collect.py", "tests/host/test_server.py", "tests/trust/test_sessions.py",
          "tests/catalog/test_catalog.py", "tests/curator/test_configurations.py")


def run(args: list[str], modules: list[str]) -> tuple[float, int]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *modules],
                          cwd=REPO, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-2000:], file=sys.stderr)
    return seconds, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("modules", nargs="*", default=list(SAMPLE))
    options = parser.parse_args()
    workers = min(options.cores * 2, 8)
    old = ["-n", str(options.cores), "--dist", "loadscope"]
    new = ["-n", str(workers), "--dist", "loadscope", "--no-loadscope-reorder"]
    print(f"{len(options.modules)} modules; load average before: {os.getloadavg()[0]:.2f}")
    old_s, old_rc = run(old, options.modules)
    print(f"old ({' '.join(old)}): {old_s:.1f} s, exit {old_rc}")
    new_s, new_rc = run(new, options.modules)
    print(f"new ({' '.join(new)}): {new_s:.1f} s, exit {new_rc}")
    print(f"ratio new/old: {new_s / old_s:.3f}; load average after: {os.getloadavg()[0]:.2f}")
    return 0 if old_rc == new_rc == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
