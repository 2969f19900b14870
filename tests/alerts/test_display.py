"""The ``alerts`` slide (``builtin_plugins/alerts/display.py``): it asks the alerts service, the one
owner of what is active, and nothing else (it works with ``display_program`` disabled)."""
from __future__ import annotations

from pony import orm

from tests.conftest import advance_clock
from tests.display.layers import prepare
from hookspecs.services import ALERTS


def test_the_alerts_slide_shows_what_the_alerts_service_calls_active(make_host, env):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "display_program"})
    alerts = host.services[ALERTS]
    assert prepare(host, "screen", "alerts", {"id": "a", "config_json": {}}) is None  # nothing active: skipped
    with orm.db_session:
        alerts.raise_alert(title="low", body="", severity="info", source="api")
        alerts.raise_alert(title="high", body="now", severity="critical", source="ops", priority=5)
        alerts.raise_alert(title="higher", body="", severity="critical", source="ops", priority=9)
        gone = alerts.raise_alert(title="dismissed", body="", severity="critical", source="ops", priority=99)
        alerts.raise_alert(title="expiring", body="", severity="warning", source="api",
                           expires_at_ms=host.clock.now_ms() + 1000)
        alerts.dismiss(gone)
    shown = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"minSeverity": "warning"}})
    assert [a["title"] for a in shown] == ["higher", "high", "expiring"]  # most severe, then by priority
    assert shown[1] == {"title": "high", "body": "now", "severity": "critical"}
    only_ops = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"sources": ["ops"], "maxAlerts": 1}})
    assert [a["title"] for a in only_ops] == ["higher"]
    assert prepare(host, "screen", "alerts", {"id": "a", "config_json": {"sources": ["nobody"]}}) is None
    advance_clock(env, 2000)
    shown = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"minSeverity": "warning"}})
    assert "expiring" not in [a["title"] for a in shown]  # the service's expiry, not a copy of it
