"""Refused WebSocket upgrades for a long time: the display's RSS at the end against its start.

Starts a real ``svc-display serve`` (headless, HTTPS, SQLite) on a temporary data dir and, for
``--minutes`` (default 30), opens ``--at-once`` TLS connections at a time (default 500, each
from its own loopback address) that send a WebSocket upgrade with a ticket that does not
exist (each refused with 403), round after round. It prints the RSS every ``--every`` seconds;
at the end it waits for the server's next ``malloc_trim`` (every 30 s,
``svc_host/display/runtime.py``) and prints RSS end / start (goal: within 10 %).

    .venv/bin/python benchmarks/upgrade_churn.py [--minutes 30] [--at-once 500]
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
from tests.host.test_hostile_http import refused_upgrades  # noqa: E402

GOAL = 0.10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--at-once", type=int, default=500)
    parser.add_argument("--every", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(Path(tmp) / "data"), "SVC_DISPLAY_HEADLESS": "1",
                                "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"}).start(timeout=60)
        try:
            pid = server.process.pid
            time.sleep(35)  # past the first malloc_trim after start-up
            start = rss(pid)
            print(f"start: {start / MIB:.1f} MiB", flush=True)
            began = shown = time.monotonic()
            total: collections.Counter = collections.Counter()
            while time.monotonic() - began < args.minutes * 60:
                total.update(asyncio.run(refused_upgrades(server, rounds=1, at_once=args.at_once)))
                if time.monotonic() - shown >= args.every:
                    shown = time.monotonic()
                    print(f"{(shown - began) / 60:5.1f} min: {sum(total.values())} upgrades refused, "
                          f"RSS {rss(pid) / MIB:.1f} MiB", flush=True)
            busy = rss(pid)
            time.sleep(35)  # the next malloc_trim
            end = rss(pid)
        finally:
            server.stop()
    print(f"answers: {dict(total)}")
    print(f"RSS start {start / MIB:.1f} MiB, at the last upgrade {busy / MIB:.1f} MiB, 35 s later {end / MIB:.1f} "
          f"MiB: end/start {end / start:.3f} (goal: at most {1 + GOAL:.2f})")
    return 0 if end / start <= 1 + GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
