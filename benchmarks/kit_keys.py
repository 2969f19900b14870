"""What a test server's API key costs the suite (issue 37): the test kit's ``ServerProcess.key()``
issues the first admin key with ``svc-display keys create`` (a Python process) and the later keys
over ``POST /v1/adoption/clients`` with it (a request); the baseline, measured in the same run on
the same server, is every key by the command, as the kit did before.

    .venv/bin/python benchmarks/kit_keys.py [--keys 10]

One real ``svc-display serve`` (headless, TLS on) in a temporary data dir. Prints one JSON object:
seconds per key each way and the ratio request / command.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    from svc_display.testing import ServerProcess

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(Path(tmp) / "data"), "SVC_DISPLAY_HEADLESS": "1"})
        server.start(timeout=120)
        try:
            started = time.perf_counter()
            server.key("admin")  # by the command: the kit's first admin key
            first = time.perf_counter() - started
            started = time.perf_counter()
            for _ in range(args.keys):
                server.key("operator")
            by_request = (time.perf_counter() - started) / args.keys
            started = time.perf_counter()
            for i in range(args.keys):
                out = server.cli("keys", "create", "--identifier", f"baseline-{i}", "--role", "operator")
                assert out.returncode == 0, out.stderr
            by_command = (time.perf_counter() - started) / args.keys
        finally:
            server.stop()
    print(json.dumps({"keys": args.keys, "load_average": os.getloadavg()[0], "first_admin_key_s": round(first, 3),
                      "later_key_by_request_s": round(by_request, 4), "key_by_command_s": round(by_command, 3),
                      "ratio_request_over_command": round(by_request / by_command, 4)}, indent=1))


if __name__ == "__main__":
    main()
