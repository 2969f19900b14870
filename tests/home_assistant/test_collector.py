"""home_assistant: entity states into plugin ticker lines and alerts."""
from __future__ import annotations

from pony import orm

from tests.integrations.fault_setups import configure
from hookspecs.services import ALERTS, INTEGRATIONS, INTEGRATION_TELEMETRY


def test_home_assistant_states_into_ticker_and_alerts(host, api, upstream):
    upstream.json(
        "/api/states",
        [
            {
                "entity_id": "sensor.office_temperature",
                "state": "21.5",
                "last_changed": "2024-06-01T10:00:00+00:00",
                "attributes": {"unit_of_measurement": "°C", "friendly_name": "Office temperature"},
            },
            {
                "entity_id": "binary_sensor.front_door",
                "state": "on",
                "attributes": {"friendly_name": "Front door"},
            },
        ],
    )
    raised = []

    class Alerts:
        def upsert_source_alert(self, **alert):
            raised.append(alert)

        def clear_source_alerts(self, source, keep_keys):
            raised.append({"cleared_except": keep_keys, "source": source})

    host.services[ALERTS] = Alerts()
    configure(
        host,
        "home_assistant",
        baseUrl=upstream.url,
        entities=[
            {"entityId": "sensor.office_temperature", "label": "Office"},
            {
                "entityId": "binary_sensor.front_door",
                "ticker": False,
                "alertWhen": ["on"],
                "alertTitle": "Door open",
            },
            {"entityId": "sensor.gone"},
        ],
    )
    assert host.services[INTEGRATIONS].run_now("home_assistant").status == "failed"  # no token yet
    api.patch("/v1/integrations/home_assistant", json={"secrets": {"token": "ha-long-lived-token"}})
    result = host.services[INTEGRATIONS].run_now("home_assistant")
    assert result.status == "ok", result
    assert upstream.requests_to("/api/states")[0].headers["Authorization"] == "Bearer ha-long-lived-token"
    with orm.db_session:
        assert host.db.KeyValue["ticker.marquee.home_assistant"].value == "Office: 21.5 °C"
    assert raised[0] == {
        "source": "home_assistant",
        "key": "binary_sensor.front_door",
        "title": "Door open",
        "body": "Front door is on",
        "severity": "warning",
    }
    assert raised[1] == {"cleared_except": ["binary_sensor.front_door"], "source": "home_assistant"}
    assert any("sensor.gone" in line["message"] for line in host.services[INTEGRATION_TELEMETRY].lines())
