"""Shared pieces of the trust tests: an in-memory alerts plugin and small helpers."""
from __future__ import annotations

import itertools
import re
import threading
import time
from typing import Any

from pony import orm

from hookspecs import AUTHENTICATED, Operation, Route, hookimpl
from hookspecs.services import ADOPTION, ALERTS

CODE = re.compile(r"\b([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4})\b")
CROCKFORD = set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")


class MemoryAlerts:
    """The ``host.services[ALERTS]`` contract of the alerts plugin, in memory."""

    def __init__(self, host: Any):
        self.host = host
        self.alerts: dict[str, dict] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def raise_alert(self, *, title, body, severity="info", priority=0, source, expires_at_ms=None, icon=None,
                    qr_payload=None, display_only=None):
        with self._lock:
            alert_id = f"alert-{next(self._ids)}"
            self.alerts[alert_id] = {
                "id": alert_id, "title": title, "body": body, "severity": severity, "priority": priority,
                "source": source, "expires_at": expires_at_ms, "icon": icon, "qr_payload": qr_payload,
                "dismissed_at": None, "display_only": display_only,
            }
        return alert_id

    def dismiss(self, alert_id):
        with self._lock:
            alert = self.alerts.get(alert_id)
            if alert is None or alert["dismissed_at"] is not None:
                return False
            alert["dismissed_at"] = self.host.clock.now_ms()
            return True

    def by_source(self, source: str) -> list[dict]:
        return [a for a in self.alerts.values() if a["source"] == source]

    def active(self, source: str = "adoption") -> list[dict]:
        return [a for a in self.by_source(source) if a["dismissed_at"] is None]


class AlertsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req, resp):
        alerts = self.host.services[ALERTS].alerts.values()
        resp.media = {"items": [{k: v for k, v in a.items() if k != "display_only"} for a in alerts]}


class MemoryAlertsPlugin:
    """A throwaway alerts plugin: the service plus ``GET /v1/alerts`` without ``display_only``."""

    @hookimpl
    def register_routes(self, host):
        host.services[ALERTS] = MemoryAlerts(host)
        return [Route("/v1/alerts", AlertsResource(host), {"GET": Operation(AUTHENTICATED, "alerts")})]


def pending(host: Any, identifier: str) -> dict | None:
    for item in host.services[ADOPTION].pending_challenges():
        if item["identifier"] == identifier:
            return item
    return None


def challenge_for(host: Any, identifier: str) -> str:
    item = pending(host, identifier)
    assert item is not None, f"no pending challenge for {identifier!r}"
    return item["challenge"]


def wrong_code(code: str) -> str:
    """A well-formed code that differs from ``code``."""
    first = "0" if code[0] != "0" else "1"
    return first + code[1:]


def count(host: Any, entity: str) -> int:
    with orm.db_session:
        return getattr(host.db, entity).select().count()


def assert_error(result: Any, status: int, code: str) -> dict:
    body = result.json() if callable(getattr(result, "json", None)) else result.json
    assert result.status_code == status, (result.status_code, body)
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    assert set(body) <= {"code", "message", "details"}
    return body


# Loaded by real server processes as a third-party entry point (see fake_alerts_site).
ALERTS_PLUGIN = MemoryAlertsPlugin()


def fake_alerts_site(tmp_path) -> str:
    """A folder for PYTHONPATH holding a distribution whose entry point is :data:`ALERTS_PLUGIN`."""
    site = tmp_path / "fake-alerts-site"
    info = site / "fake_alerts-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-alerts\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[svc_display.plugins]\nmemory_alerts = tests.trust.helpers:ALERTS_PLUGIN\n")
    return str(site)


def challenge_lines(server, identifier: str) -> list[str]:
    """The console lines for ``identifier``: on stderr (stdout is captured apart)."""
    return [line for line in server.stderr.splitlines()
            if "adoption challenge" in line and f'"{identifier}"' in line]


def wait_for_code(server, identifier: str, count: int = 1) -> str:
    """The code of the ``count``-th headless console line for ``identifier``."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = challenge_lines(server, identifier)
        if len(lines) >= count:
            match = CODE.search(lines[count - 1])
            assert match, lines[count - 1]
            return match.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no console line for {identifier!r}:\n{server.log}")
