"""A folder-plugin sidecar that prints as fast as it can: the display's CPU and log growth.

Starts a real ``svc-display serve`` (headless, SQLite) twice on temporary data dirs: once
with a quiet plugin (its sidecar sleeps) as the baseline, then with a sidecar running
``yes`` (unbounded output, about as fast as a pipe takes it), short lines and 9000-byte
lines. For ``--seconds`` each, it
measures the display process's CPU time (psutil, user + system) and its log's growth, and
prints both runs and the spam run's CPU as a share of one core (goal: at most 5 %) and its
log bytes a second (bounded by the per-sidecar budget in bytes a minute, builtin_plugins/
folder_plugins/supervisor.py ``OutputLimit``: 64 KiB a minute is 1.07 KiB/s).

    .venv/bin/python benchmarks/sidecar_spam.py [--seconds 30]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svc_display.testing import ServerProcess  # noqa: E402

GOAL_CPU_SHARE = 0.05


def run(folder: Path, command: list[str], seconds: float) -> dict:
    plugin = folder / "plugins" / "bench"
    plugin.mkdir(parents=True)
    (plugin / "manifest.json").write_text(json.dumps({"id": "bench", "name": "bench", "version": "1",
                                                      "sidecar": {"command": command}}))
    server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(folder / "data"), "SVC_DISPLAY_HEADLESS": "1",
                            "SVC_DISPLAY_PLUGINS_DIR": str(folder / "plugins"),
                            "SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS": "600"}).start(timeout=60)
    try:
        deadline = time.monotonic() + 30
        while "plugin bench: sidecar started" not in server.log and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)  # past the start and the first burst
        process = psutil.Process(server.process.pid)
        cpu0, log0, t0 = sum(process.cpu_times()[:2]), len(server.log.encode()), time.monotonic()
        time.sleep(seconds)
        cpu1, log1, t1 = sum(process.cpu_times()[:2]), len(server.log.encode()), time.monotonic()
    finally:
        server.stop()
    return {"cpu_share": (cpu1 - cpu0) / (t1 - t0), "log_bytes_per_s": (log1 - log0) / (t1 - t0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        quiet = run(Path(tmp) / "quiet", ["sleep", "3600"], args.seconds)
        spam = run(Path(tmp) / "spam", ["yes", "spam from the sidecar"], args.seconds)
        long = run(Path(tmp) / "long", ["sh", "-c", "yes \"$(head -c 9000 /dev/zero | tr '\\0' x)\""], args.seconds)
    for name, result in (("quiet sidecar", quiet), ("yes(1) sidecar", spam), ("long lines", long)):
        print(f"{name:>15}: display CPU {result['cpu_share'] * 100:5.1f} % of a core, "
              f"log {result['log_bytes_per_s'] / 1024:8.1f} KiB/s")
    print(f"spam over quiet: CPU {(spam['cpu_share'] - quiet['cpu_share']) * 100:+.1f} points "
          f"(goal: spam run at most {GOAL_CPU_SHARE * 100:.0f} %)")
    return 0 if max(spam["cpu_share"], long["cpu_share"]) <= GOAL_CPU_SHARE else 1


if __name__ == "__main__":
    raise SystemExit(main())
