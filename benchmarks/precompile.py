"""The start of ``make test`` on a fresh clone: its workers' collection with the bytecode caches
written first by ``tests/precompile.py`` (one collection per core), against the workers writing
them themselves, measured in the same run.

Each round copies this checkout without any ``__pycache__`` (as a fresh clone is) and runs
``pytest -n WORKERS`` selecting no test there (``make test``'s workers collect the whole suite each),
once as it is and once after ``python -m tests.precompile``. The CPU is the machine's (``/proc/stat``:
xdist's workers are not reaped by the command, so its own accounting misses them): run it on a
quiet machine. Prints the medians and the ratios precompiled / cold.

    .venv/bin/python benchmarks/precompile.py [--rounds 3] [--workers 6]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns("__pycache__", ".venv", ".git", ".hypothesis", ".pytest_cache", "*.egg-info")


def machine_cpu() -> float:
    """CPU seconds the machine has spent busy (user, nice, system, irq, softirq) since boot."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def run(command: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """(the machine's CPU seconds while ``command`` ran, wall seconds)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    started, before = time.monotonic(), machine_cpu()
    status = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
    if status not in ok:
        raise SystemExit(f"{command} failed in {cwd}")
    return machine_cpu() - before, time.monotonic() - started


def round_(workers: int, precompiled: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="svc-precompile-") as tmp:
        tree = Path(tmp) / "clone"
        shutil.copytree(REPO, tree, ignore=SKIP)
        cpu = wall = 0.0
        if precompiled:
            cpu, wall = run([sys.executable, "-m", "tests.precompile"], tree)
        # (xdist does not distribute --collect-only: a selection of no test makes each worker collect)
        more_cpu, more_wall = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers),
                                   "-k", "no_test_is_named_this"], tree, ok=(0, 5))
        return cpu + more_cpu, wall + more_wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=min(8, 3 * (os.cpu_count() or 1)))
    options = parser.parse_args()
    results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for _ in range(options.rounds):
        for precompiled in (False, True):  # interleaved: a drift in load falls on both
            results[precompiled].append(round_(options.workers, precompiled))
    cold_cpu, cold_wall = (statistics.median(x[i] for x in results[False]) for i in (0, 1))
    warm_cpu, warm_wall = (statistics.median(x[i] for x in results[True]) for i in (0, 1))
    print(f"collection by {options.workers} workers on a fresh copy, median of {options.rounds} rounds")
    print(f"  cold (each worker writes the caches): {cold_cpu:7.1f} s CPU {cold_wall:6.1f} s wall")
    print(f"  tests.precompile first              : {warm_cpu:7.1f} s CPU {warm_wall:6.1f} s wall")
    print(f"ratio precompiled/cold: CPU {warm_cpu / cold_cpu:.3f}, wall {warm_wall / cold_wall:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
