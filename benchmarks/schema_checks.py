"""CPU time of an ``svc-display`` process with the type schemas remembered, against the same
process checking every schema (svc_host/schema_checks.py), measured in the same run.

Each round runs ``svc-display keys list`` on one data dir twice: with ``XDG_CACHE_HOME``
pointing at a file where a directory should be (nothing can be remembered: every schema is checked,
as before the cache) and with a cache the first run filled. Prints the median CPU seconds
(user + system, from ``os.wait4``) of each and the ratio remembered / checked.

    .venv/bin/python benchmarks/schema_checks.py [--rounds 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(args: list[str], env: dict[str, str]) -> float:
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited with {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "blocked").write_text("a file: no cache directory can be made here")
        base = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(root / "data"), "SVC_DISPLAY_HEADLESS": "1"}
        command = [sys.executable, "-m", "svc_host", "keys", "list"]
        # a first command creates the data dir's database (and warms the file cache)
        cpu_of([sys.executable, "-m", "svc_host", "migrate"], {**base, "XDG_CACHE_HOME": str(root / "cache")})
        checked, remembered = [], []
        for _ in range(options.rounds):
            checked.append(cpu_of(command, {**base, "XDG_CACHE_HOME": str(root / "blocked")}))
            remembered.append(cpu_of(command, {**base, "XDG_CACHE_HOME": str(root / "cache")}))
    a, b = statistics.median(checked), statistics.median(remembered)
    print(f"{options.rounds} rounds, load average {os.getloadavg()[0]:.2f}")
    print(f"every schema checked: {a:.3f} s of CPU per process (median)")
    print(f"schemas remembered:   {b:.3f} s of CPU per process (median)")
    print(f"ratio remembered/checked: {b / a:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
