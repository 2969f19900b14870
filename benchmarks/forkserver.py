"""CPU time of the suite's server processes forked from the kit's preloaded zygote
(svc_display/testing/forkserver.py) against the same processes started as plain subprocesses,
measured in the same run.

A round starts ``--servers`` headless ``svc-display serve`` processes one after the other, as the
kit's ``ServerProcess`` does, issues each its first admin key (``svc-display keys create``) and a
viewer key, and stops it; once with ``SVC_TEST_FORKSERVER=0`` and once with the zygote (whose own
start is counted). The CPU of each round is its whole process tree's (user + system, from
``os.wait4``: a process's reaped descendants are included). Prints the medians and the ratio
zygote / plain.

    .venv/bin/python benchmarks/forkserver.py [--rounds 3] [--servers 6]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def scenario(servers: int) -> None:
    from svc_display.testing import ServerProcess

    with tempfile.TemporaryDirectory() as tmp:
        for index in range(servers):
            server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(Path(tmp) / f"s{index}" / "data"),
                                    "SVC_DISPLAY_HEADLESS": "1"}).start(timeout=60)
            try:
                server.key()
                server.key("viewer")
            finally:
                if server.stop() != 0:
                    raise SystemExit(f"the server exited with an error:\n{server.log[-2000:]}")


def measure(servers: int, forked: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one round in a process tree of its own."""
    env = {**os.environ, "SVC_TEST_FORKSERVER": "1" if forked else "0"}
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, __file__, "--scenario", str(servers)], env=env)
    _pid, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("a round failed")
    return usage.ru_utime + usage.ru_stime, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--servers", type=int, default=6)
    parser.add_argument("--scenario", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.scenario:
        scenario(options.scenario)
        return 0
    plain, forked = [], []
    for _ in range(options.rounds):
        plain.append(measure(options.servers, False))
        forked.append(measure(options.servers, True))
    cpu_plain, cpu_forked = (statistics.median(cpu for cpu, _ in runs) for runs in (plain, forked))
    wall_plain, wall_forked = (statistics.median(wall for _, wall in runs) for runs in (plain, forked))
    print(f"{options.rounds} rounds of {options.servers} servers (start, two keys, stop), "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"plain subprocesses: {cpu_plain:.2f} s of CPU, {wall_plain:.2f} s wall per round (median)")
    print(f"forked from zygote: {cpu_forked:.2f} s of CPU, {wall_forked:.2f} s wall per round (median)")
    print(f"ratio zygote/plain: CPU {cpu_forked / cpu_plain:.3f}, wall {wall_forked / wall_plain:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
