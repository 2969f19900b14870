"""What a test host's SQLite database costs its build (issue 37): the test kit writes its SQLite
template (the builtin tables as Pony creates them, no rows) into a new data dir, and the host asks
which tables and indexes exist in one query (``svc_host.schema.map_entities``) instead of creating
every table. The baseline, measured in the same run and process, is a host built on an empty data
dir, as the kit did before (Pony creates every table; its per-object checks are gone either way).

    .venv/bin/python benchmarks/host_build.py [--hosts 20]

Each build is ``build_host`` with the installed plugins, closed after; the CPU of this process
(``time.process_time``). Prints one JSON object: CPU seconds per build each way and the ratio.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def per_build(hosts: int, seeded: bool) -> float:
    from svc_display.testing.databases import seed_sqlite_file
    from svc_host.config import load_settings
    from svc_host.host import build_host

    spent = 0.0
    for _ in range(hosts):
        with tempfile.TemporaryDirectory() as tmp:
            settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(Path(tmp) / "data"), "SVC_DISPLAY_HEADLESS": "1"})
            started = time.process_time()
            if seeded:
                seed_sqlite_file(settings.sqlite_path)
            build_host(settings).close()
            spent += time.process_time() - started
    return spent / hosts


def main() -> None:
    import logging

    from svc_display.testing.databases import sqlite_template

    logging.disable(logging.INFO)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=20)
    args = parser.parse_args()
    sqlite_template()  # made once per process
    per_build(3, True), per_build(3, False)  # warm: imports, caches
    empty = min(per_build(args.hosts, False), per_build(args.hosts, False))
    seeded = min(per_build(args.hosts, True), per_build(args.hosts, True))
    print(json.dumps({"hosts": args.hosts, "empty_file_cpu_s_per_build": round(empty, 4),
                      "template_cpu_s_per_build": round(seeded, 4), "ratio": round(seeded / empty, 3)}))


if __name__ == "__main__":
    main()
