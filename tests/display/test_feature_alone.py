"""The done-when check of issue 11 for every feature folder with slide types (``basic`` and
``content`` have their own, with their REST writes: tests/basic, tests/content): with only
``screens`` and that feature enabled (plus what the test needs to reach and watch the display:
API keys, live-preview frames), the feature's own sample content (its ``display_samples`` hook,
written with the same plugins) and a slide of its type created through REST with the type's
example config are drawn by a real ``svc-display serve`` canvas, offscreen."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.display.canvas import (
    CANVAS_SIZE, PREVIEW_WIDTH, WATCHING, ServeCanvas, canvas_env, changed_fraction, only_plugins,
    running_plugins,
)
from tests.integrations.upstream import wait_for

BOX = (0, 0, PREVIEW_WIDTH, PREVIEW_WIDTH * CANVAS_SIZE[1] // CANVAS_SIZE[0])
FEATURE_TYPES = {
    "weather": "weather_forecast",
    "news": "news_headlines",
    "calendar": "calendar_agenda",
    "stocks": "stock_quotes",
    "media": "photo",
    "tasks": "task_board",
    "clock": "clock",
    "alerts": "alerts",
}

# Runs in a child process with the test's plugin set: the feature's samples go into the data
# dir, and the type's example config comes back on stdout.
SEED = """
import json, sys
from pathlib import Path
from svc_host.display.gallery import build_sample_host
host = build_sample_host(Path(sys.argv[1]))
print(json.dumps(host.registries.screen_types.get(sys.argv[2]).example_config))
"""


@pytest.mark.parametrize("feature", sorted(FEATURE_TYPES))
def test_a_feature_alone_draws_its_slide(tmp_path, feature):
    type_id = FEATURE_TYPES[feature]
    env = canvas_env(tmp_path / "data", **only_plugins("screens", feature))
    seeded = subprocess.run([sys.executable, "-c", SEED, env["SVC_DISPLAY_DATA_DIR"], type_id],
                            env=env, capture_output=True, text=True, timeout=120)
    assert seeded.returncode == 0, seeded.stderr[-3000:]
    example = json.loads(seeded.stdout.strip().splitlines()[-1])
    server = ServeCanvas(env).start(timeout=60)
    try:
        admin = server.key("admin")
        assert running_plugins(server) == {"screens", feature, *WATCHING}
        empty = server.frame(admin)
        r = server.request("POST", "/v1/screens", key=admin, json={
            "id": f"{feature}-alone", "screen_type": type_id, "config_json": example})
        assert r.status_code == 201, r.text
        wait_for(lambda: changed_fraction(empty, server.frame(admin), BOX) > 0.02, timeout=30, interval=0.3)
        assert f"renderer '{type_id}'" not in server.log and "Traceback" not in server.log, server.log[-3000:]
    finally:
        server.stop()
