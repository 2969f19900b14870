"""Black-box: a real ``svc-display serve`` process schedules collectors and stays responsive."""

from __future__ import annotations

import threading

import pytest

from tests.integrations.upstream import wait_for

pytestmark = pytest.mark.slow


def test_serve_runs_enabled_collectors_and_a_stuck_upstream_blocks_nothing(start_server, upstream):
    upstream.json("/api/quotes", [{"q": "Serve well.", "a": "Display", "h": ""}])
    server = start_server()
    key = server.key("admin")
    response = server.request(
        "PATCH", "/v1/integrations/quote_zenquotes", key=key, json={"enabled": True, "base_url": upstream.url}
    )
    assert response.status_code == 200, response.text
    wait_for(lambda: upstream.requests_to("/api/quotes"))  # enabling queues a first run
    lines = wait_for(
        lambda: [
            line
            for line in server.get("/v1/telemetry/integrations", key=key).json()["items"]
            if line.get("integration_type") == "quote_zenquotes" and line["message"].startswith("collected")
        ]
    )
    assert "1 quotes, 1 new" in lines[0]["message"]

    # an upstream that never answers in time: the run hangs in its own thread only
    upstream.slow_seconds = 30
    upstream.fault("timeout")
    before = len(upstream.requests)
    outcome = {}
    runner = threading.Thread(
        target=lambda: outcome.update(
            run=server.request("POST", "/v1/integrations/quote_zenquotes/run", key=key, timeout=90)
        )
    )
    runner.start()
    wait_for(lambda: len(upstream.requests) > before)  # the collector is now waiting on the upstream
    for _ in range(5):
        assert server.get("/v1/health").status_code == 200
        assert server.get("/v1/integrations", key=key).status_code == 200
    assert runner.is_alive()  # still stuck upstream while the API answered
    runner.join(90)
    run = outcome["run"]
    assert run.status_code == 200
    assert run.json()["status"] == "failed" and "timed out" in run.json()["message"]
    item = server.get("/v1/integrations/quote_zenquotes", key=key).json()
    assert item["consecutive_failures"] == 1 and item["next_retry_at"] is not None
