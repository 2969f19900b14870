"""Write the bytecode caches before ``make test``'s workers start, one collection per core.

Every xdist worker collects the whole suite. On a fresh clone no ``__pycache__`` exists yet, so
each worker rewrote the asserts of every test module and compiled the project itself, all six at
once. Here the test modules are split into one share per core and each share is collected
(``--collect-only``) by a pytest of its own, in parallel: pytest writes the rewritten test
modules' caches (``__pycache__/*-pytest-*.pyc``) and Python the project's as they are imported;
the workers then read them (``benchmarks/precompile.py``: the six workers' collection on a fresh
copy took 72.7 s of CPU and 37.3 s wall, 56.2 s and 30.6 s with this step first). Only the
modules whose cache is missing or older than their source are collected, and only when there are
at least :data:`MIN_STALE`. Nothing is run and nothing else is written; a collection error is
the suite's to report, so this step always succeeds.

``.venv/bin/python -m tests.precompile [PATH ...]`` (default: ``tests``).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def modules_under(paths: list[Path]) -> list[Path]:
    """The test modules under ``paths`` (pytest's default ``test_*.py``), in a stable order."""
    found: set[Path] = set()
    for path in paths:
        found.update([path] if path.is_file() else path.rglob("test_*.py"))
    return sorted(found)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return os.cpu_count() or 1


# Fewer modules without a cache than this are left to the workers: a worker rewrites a module in
# about 0.08 s, while this step's pytest processes cost about 3 s each to start (a working
# checkout after an edit has a few; a fresh clone all 200).
MIN_STALE = 12


def cached(module: Path) -> bool:
    """Whether pytest's rewritten bytecode of ``module`` is there and not older than its source."""
    try:
        source = module.stat().st_mtime
    except OSError:
        return False
    pattern = f"{module.stem}.{sys.implementation.cache_tag}-pytest-*.pyc"
    return any(pyc.stat().st_mtime >= source for pyc in (module.parent / "__pycache__").glob(pattern))


def precompile(paths: list[Path], shares: int | None = None, cwd: Path = REPO,
               min_stale: int = MIN_STALE) -> list[int]:
    """Collect the test modules under ``paths`` that have no up-to-date cache, in ``shares``
    parallel pytest processes (one per core by default); their exit statuses (none when fewer than
    ``min_stale`` modules need it)."""
    files = [module for module in modules_under(paths) if not cached(module)]
    if len(files) < min_stale:
        return []
    shares = max(1, min(shares or cores(), len(files)))
    groups = [files[i::shares] for i in range(shares)]  # interleaved: each share has heavy and light folders
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    processes = [subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                                   "-p", "no:cacheprovider", *map(str, group)],
                                  cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for group in groups]
    return [process.wait() for process in processes]


def main(argv: list[str]) -> int:
    precompile([Path(arg) for arg in argv] or [REPO / "tests"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
