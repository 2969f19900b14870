"""``home_assistant``: entity states (``GET {baseUrl}/api/states``, long-lived ``token`` secret).

Config ``entities``: ``[{entityId, label?, ticker (default true), alertWhen?: [states],
severity?, alertTitle?}]``. Entities with ``ticker`` become one line of ticker text in the
key-value ``ticker.marquee.home_assistant`` (``Label: state unit`` joined by `` · ``, written
through the settings service).
Entities whose state is in ``alertWhen`` become alerts with source ``home_assistant``
through the alerts service (``host.services[ALERTS]``, see docs/integrations.md);
alerts of entities that left the alert states are cleared.
"""

from __future__ import annotations

from typing import Any

from svc_host.kit.collecting import CollectorError, clip, plain_text
from hookspecs.services import ALERTS, SETTINGS, service

TYPE_ID = "home_assistant"
TICKER_KEY = "ticker.marquee.home_assistant"


def collect(ctx: Any) -> str:
    token = ctx.secret("token")
    base = ctx.setting("baseUrl", "the Home Assistant URL")
    states = ctx.http.get_json(base.rstrip("/") + "/api/states", headers={"Authorization": f"Bearer {token}"})
    if not isinstance(states, list):
        raise CollectorError("/api/states did not answer a list")
    by_id = {s["entity_id"]: s for s in states if isinstance(s, dict) and isinstance(s.get("entity_id"), str)}
    parts, alerts, missing = [], {}, []
    for entity in ctx.config.get("entities") or []:
        state = by_id.get(entity["entityId"])
        if state is None:
            missing.append(entity["entityId"])
            continue
        attributes = state.get("attributes") if isinstance(state.get("attributes"), dict) else {}
        label = entity.get("label") or attributes.get("friendly_name") or entity["entityId"]
        value = str(state.get("state", ""))
        unit = attributes.get("unit_of_measurement") or ""
        if entity.get("ticker", True):
            parts.append(plain_text(f"{label}: {value}{(' ' + unit) if unit else ''}", 300))
        if value in (entity.get("alertWhen") or []):
            alerts[entity["entityId"]] = {
                "title": clip(entity.get("alertTitle") or f"{label}: {value}", 200),
                "body": clip(f"{label} is {value}{(' ' + unit) if unit else ''}", 2000),
                "severity": entity.get("severity") or "warning",
            }
    ticker = clip(" · ".join(parts), 8000)
    settings = service(ctx.host, SETTINGS)
    if settings is None:
        if ticker:
            ctx.log("ticker line not stored: the settings plugin (key-values) is not loaded", "warning")
    elif ticker:
        settings.put_key_value(TICKER_KEY, ticker)
    else:
        settings.delete_key_value(TICKER_KEY)
    _publish_alerts(ctx, alerts)
    for entity_id in missing:
        ctx.log(f"entity {entity_id} is not in /api/states", "warning")
    ctx.summary = f"{len(parts)} ticker entities, {len(alerts)} alerts"
    return ctx.summary


def _publish_alerts(ctx: Any, alerts: dict[str, dict[str, Any]]) -> None:
    owner = service(ctx.host, ALERTS)
    if owner is None:
        if alerts:
            ctx.log(f"{len(alerts)} alert(s) not raised: no alerts service is loaded", "warning")
        return
    for key, alert in alerts.items():
        owner.upsert_source_alert(source=TYPE_ID, key=key, **alert)
    owner.clear_source_alerts(source=TYPE_ID, keep_keys=list(alerts))
