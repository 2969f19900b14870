"""The running consumer's backoff: the reference server stopped (connection refused), then
started again on the same port (in-process host, real database, real server process)."""

from __future__ import annotations

import re

import requests
from pony import orm

from tests.cloud_feed.conftest import KEY, write
from svc_display.testing import wait_for
from hookspecs.services import CLOUD_FEED, INTEGRATION_TELEMETRY

RECONNECT = re.compile(r"^reconnecting in (\d+\.\d+) s \(attempt (\d+)\)$")


def joke(ident: str) -> dict:
    return {"event": "upsert", "data": {"kind": "joke", "id": ident, "setup": f"setup {ident}",
                                        "punchline": "p", "category_id": "general"}}


def test_a_server_down_is_retried_with_growing_jittered_delays_and_resumed_without_a_loss(feed_server,
                                                                                          make_host):
    write(feed_server.script, joke("j1"), joke("j2"))
    saas = {"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": feed_server.base, "SVC_SAAS_DISPLAY_ID": "lobby",
            "SVC_SAAS_API_KEY": KEY, "SVC_SAAS_RECONNECT_MIN_MS": "50"}
    host = make_host(saas)
    telemetry = host.services[INTEGRATION_TELEMETRY]

    def jokes() -> set[str]:
        with orm.db_session:
            return {j.setup.removeprefix("setup ") for j in host.db.Joke.select()}

    wait_for(lambda: jokes() == {"j1", "j2"}, what="the first events")
    down_since = host.clock.now_ms()
    feed_server.stop()  # the stream drops, then every connection is refused
    write(feed_server.script, joke("j3"), joke("j4"))  # published while the display cannot reach it

    def delays() -> list[tuple[int, float]]:
        lines = telemetry.lines(limit=2000, since_ms=down_since)
        found = [RECONNECT.match(line["message"]) for line in lines]
        return [(int(m.group(2)), float(m.group(1))) for m in found if m]

    waits = wait_for(lambda: len(delays()) >= 5 and delays(), what="five reconnect attempts")[:5]
    refused = [line for line in telemetry.lines(limit=2000, since_ms=down_since)
               if "feed connection failed: ConnectError" in line["message"]]
    assert len(refused) >= 4 and all(line["integration_type"] == "saas_feed" for line in refused)
    # attempt 0 follows the dropped stream; each refusal doubles the range [50 ms * 2^n, 2 * that]
    assert [attempt for attempt, _ in waits] == [0, 1, 2, 3, 4], waits
    for attempt, delay in waits:
        assert 0.05 * 2 ** attempt <= delay <= 0.05 * 2 ** (attempt + 1) + 0.005, waits
    assert [d for _, d in waits] == sorted(d for _, d in waits) and waits[-1][1] > 4 * waits[0][1]
    assert host.services[CLOUD_FEED].health()["connected"] is False

    feed_server.start()  # the same port again
    wait_for(lambda: jokes() == {"j1", "j2", "j3", "j4"}, what="the events published while the server was down")
    log = requests.get(feed_server.base + "/requests", timeout=5).json()
    assert log[0]["authorized"] and log[0]["last_event_id"] == "2"  # resumed after the last event it applied
    wait_for(lambda: host.services[CLOUD_FEED].health()["connected"], what="the consumer to report connected")
    assert KEY not in str(telemetry.lines(limit=2000))
