"""The cloud feed end to end: the reference feed server on 127.0.0.1 and a real display process."""

from __future__ import annotations

import json

import pytest
import requests

from tests.cloud_feed.conftest import KEY, write
from svc_display.testing import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]



def joke(ident: str, setup: str) -> dict:
    return {"kind": "joke", "id": ident, "setup": setup, "punchline": "p-" + ident, "category_id": "general"}


def setups(server, key) -> set[str]:
    answer = server.get("/v1/catalog/jokes?limit=100", key=key)
    assert answer.status_code == 200, answer.text
    return {item["setup"] for item in answer.json()["items"]}


def test_feed_lands_in_catalog_resumes_after_drop_skips_bad_events_and_survives_restart(
        feed, env, start_server):
    script, base = feed
    write(script,
          {"event": "snapshot", "data": {"kinds": ["joke"], "items": [joke("j1", "one"), joke("j2", "two")]}},  # 1
          {"event": "upsert", "data": joke("j3", "three")},  # 2
          {"event": "upsert", "raw": "{not json"},  # 3: malformed
          {"event": "upsert", "data": {"kind": "horoscope", "id": "h1", "text": "x"}},  # 4: unknown kind
          {"event": "delete", "data": {"kind": "joke", "id": "j2"}},  # 5
          {"event": "upsert", "data": {"kind": "stock_quote", "id": "acme", "symbol": "ACME", "price": 10.5}},  # 6
          {"drop": True},  # 7: the server drops the stream here once
          {"event": "upsert", "data": joke("j4", "four")},  # 8
          {"event": "upsert", "data": {"kind": "joke", "id": "j5"}})  # 9: no setup: malformed
    saas = {"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": base, "SVC_SAAS_DISPLAY_ID": "lobby",
            "SVC_SAAS_API_KEY": KEY, "SVC_SAAS_RECONNECT_MIN_MS": "50"}
    server = start_server(saas)
    key = server.key("admin")

    wait_for(lambda: setups(server, key) == {"one", "three", "four"})
    quotes = server.get("/v1/catalog/stock-quotes", key=key).json()["items"]
    assert [(q["symbol"], q["integration_type"]) for q in quotes] == [("ACME", "saas_feed")]
    jokes = server.get("/v1/catalog/jokes?limit=100", key=key).json()["items"]
    assert {j["integration_type"] for j in jokes} == {"saas_feed"}

    # The drop: the display reconnected with the id of the last event it applied, and got the rest.
    log = requests.get(base + "/requests", timeout=5).json()
    assert log[0]["last_event_id"] is None and log[0]["accept"] == "text/event-stream"
    assert all(entry["authorized"] for entry in log)
    assert log[1]["last_event_id"] == "6"

    # Bad events were skipped and logged to integration telemetry.
    lines = wait_for(lambda: [line for line in server.get("/v1/telemetry/integrations?limit=2000", key=key)
                              .json()["items"] if "skipped event" in line["message"]])
    skipped = {line["message"].split()[2].rstrip(":"): line for line in lines}
    assert set(skipped) >= {"3", "4", "9"}
    assert all(line["integration_type"] == "saas_feed" for line in lines)
    assert "horoscope" in skipped["4"]["message"] and "not JSON" in skipped["3"]["message"]
    assert KEY not in json.dumps(lines)

    health = wait_for(lambda: server.get("/v1/health").json().get("saas", {}).get("connected")
                      and server.get("/v1/health").json())
    assert isinstance(health["saas"]["last_event_at_ms"], int) and health["saas"]["last_event_at_ms"] > 0

    # A restart keeps the rows and resumes after the last event (nothing replayed, nothing lost).
    assert server.stop() is not None
    requests_before = len(requests.get(base + "/requests", timeout=5).json())
    server.start()
    assert setups(server, key) == {"one", "three", "four"}
    wait_for(lambda: len(requests.get(base + "/requests", timeout=5).json()) > requests_before)
    assert requests.get(base + "/requests", timeout=5).json()[requests_before]["last_event_id"] == "9"
    write(script, {"event": "upsert", "data": joke("j1", "one, edited")},
          {"event": "snapshot", "data": {"kinds": ["stock_quote"], "items": []}})
    wait_for(lambda: setups(server, key) == {"one, edited", "three", "four"})
    wait_for(lambda: server.get("/v1/catalog/stock-quotes", key=key).json()["items"] == [])
