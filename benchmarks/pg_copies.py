"""What a test's PostgreSQL database costs the suite (issue 37): the test kit hands a PostgreSQL
run's test a copy of the schema template (the builtin tables, no rows); a copy a test used is
emptied and handed to the next test when its schema is still the template's
(``svc_display.testing.databases.throwaway_pg_database``). The baseline, measured in the same run
on the same server, is a new copy for every test (``CREATE DATABASE ... TEMPLATE``), as the kit
did before.

    .venv/bin/python benchmarks/pg_copies.py [--tests 20]

Each simulated test builds a host on its database (migrations and first-start seeding, as the
kit's ``host`` fixture does), writes a slide and closes the host. Needs the local PostgreSQL
(``SVC_TEST_PG_URL``). Prints one JSON object: seconds per test each way and the ratio.
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


def one_test(url: str) -> None:
    from pony import orm

    from svc_host.config import load_settings
    from svc_host.host import build_host

    with tempfile.TemporaryDirectory() as tmp:
        host = build_host(load_settings({"SVC_DISPLAY_DATA_DIR": tmp, "SVC_DISPLAY_HEADLESS": "1",
                                         "SVC_DISPLAY_DATABASE_URL": url}))
        try:
            with orm.db_session:
                host.db.Screen(id="bench", screen_type="message", config_json={"title": "t"},
                               created_at_ms=0, updated_at_ms=0)
        finally:
            host.close()


def per_test(tests: int, reuse: bool) -> float:
    from svc_display.testing import databases

    started = time.perf_counter()
    for _ in range(tests):
        with databases.throwaway_pg_database(template=True) as url:
            one_test(url)
        if not reuse:
            databases.drop_empty_copies()  # the next test makes its own copy
    databases.drop_empty_copies()
    return (time.perf_counter() - started) / tests


def main() -> None:
    import logging

    from svc_display.testing import databases

    logging.disable(logging.INFO)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=20)
    args = parser.parse_args()
    databases.schema_template()  # made once per process either way
    try:
        per_test(2, True)  # warm: imports, the server's caches
        fresh = per_test(args.tests, reuse=False)
        emptied = per_test(args.tests, reuse=True)
    finally:
        databases.drop_templates()
    print(json.dumps({"tests": args.tests, "new_copy_s_per_test": round(fresh, 4),
                      "emptied_copy_s_per_test": round(emptied, 4), "ratio": round(emptied / fresh, 3)}))


if __name__ == "__main__":
    main()
