"""A wrong key: the feed answers 401; the display logs it (without the key) and keeps retrying."""

from __future__ import annotations

import json
import time

import requests

from tests.cloud_feed.conftest import write
from hookspecs.services import CLOUD_FEED, INTEGRATION_TELEMETRY


def test_a_rejected_key_is_logged_without_the_key_and_health_says_disconnected(feed, make_host):
    script, base = feed
    write(script, {"event": "upsert", "data": {"kind": "joke", "id": "j", "setup": "never stored"}})
    wrong = "wrong-key-456"
    host = make_host({"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": base, "SVC_SAAS_DISPLAY_ID": "lobby",
                      "SVC_SAAS_API_KEY": wrong, "SVC_SAAS_RECONNECT_MIN_MS": "50"})
    telemetry = host.services[INTEGRATION_TELEMETRY]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("HTTP 401" in l["message"] for l in telemetry.lines()):
        time.sleep(0.1)
    lines = telemetry.lines()
    assert any("HTTP 401" in line["message"] and line["integration_type"] == "saas_feed" for line in lines)
    assert wrong not in json.dumps(lines)
    assert host.services[CLOUD_FEED].health() == {"connected": False, "last_event_at_ms": None,
                                                    "media_cached": 0, "media_failed": 0}
    # retried with backoff (50 ms floor here), never with an id it did not get
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(requests.get(base + "/requests", timeout=5).json()) < 2:
        time.sleep(0.1)
    log = requests.get(base + "/requests", timeout=5).json()
    assert len(log) >= 2 and not any(e["authorized"] or e["last_event_id"] for e in log)
    from pony import orm

    with orm.db_session:
        assert host.db.Joke.select().count() == 0
