"""What the serve process imports at start (issue 29, its RSS against a bare Kivy app): the
libraries only a collector, the cloud feed or an upgrade uses are imported when first used."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

ON_FIRST_USE = ("feedparser", "icalendar", "recurring_ical_events", "httpx", "httpx_sse")


def test_the_host_starts_without_the_libraries_of_its_collectors_and_upgrades(env):
    """A host with every builtin plugin and the REST routes, in a fresh interpreter: none of
    :data:`ON_FIRST_USE` is imported (httpx alone brings rich and pygments through its CLI)."""
    code = ("import json, sys\n"
            "from svc_host.config import load_settings\n"
            "from svc_host.host import build_host\n"
            "host = build_host(load_settings(), with_routes=True)\n"
            f"print(json.dumps(sorted(m for m in {ON_FIRST_USE!r} if m in sys.modules)))\n"
            "host.close()\n")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, cwd=str(REPO),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
