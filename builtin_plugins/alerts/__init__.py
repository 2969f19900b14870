"""Operator alerts (spec 2.2, 4.2) and ``host.services[ALERTS]`` for other plugins.

Routes: ``GET/POST /v1/alerts``, ``GET/DELETE /v1/alerts/{id}`` (DELETE dismisses: the row
stays with ``dismissed_at`` set). Reads need a valid key, writes ``alerts.write``.

Severity is one of :data:`SEVERITIES`; priority an integer 0-100 (higher first). An
alert is *active* while it is neither dismissed nor past ``expires_at``. ``display_only``
(a dict only plugins can set, for example the adoption challenge) is stored for the
display and never serialized into any HTTP response.

Every change through the service (raise, dismiss, refresh, clear: REST and plugins alike)
publishes the change event ``alerts``; the canvas's alerts layer (:mod:`.display`,
Kivy-only) draws what ``active()`` answers.
"""
from __future__ import annotations

import uuid
from typing import Any

import falcon
from marshmallow import fields, validate
from pony import orm

from hookspecs import (
    AUTHENTICATED,
    ContentList,
    Feature,
    FeedKind,
    LayerSpec,
    Operation,
    Permission,
    Route,
    hookimpl,
)
from hookspecs.permissions import OPERATORS
from hookspecs.catalog import load_types
from hookspecs.services import ALERTS, ALERT_SEVERITIES
from svc_host.kit.services import publish
from hookspecs.records import Nullable, record
from svc_host.kit.rest import BooleanText, StorableSchema, not_blank, stored_row

MS = {"size": 64}
ALERTS_WRITE = "alerts.write"
SEVERITIES = ALERT_SEVERITIES
PRIORITY_MIN, PRIORITY_MAX = 0, 100
TITLE_MAX, BODY_MAX, QR_MAX, SOURCE_MAX, ICON_MAX = 200, 4000, 2048, 100, 64
API_SOURCE = "api"
TOPIC = "alerts"  # the change event every change publishes


TYPES = load_types(__name__)  # the alerts slide (types.json); its minSeverity lists SEVERITIES


@hookimpl
def register_entities(db: Any) -> None:
    class Alert(db.Entity):
        _table_ = "svc_alert"
        id = orm.PrimaryKey(str, 64)
        title = orm.Required(str, TITLE_MAX)
        body = orm.Optional(str, BODY_MAX, default="")
        qr_payload = orm.Optional(str, QR_MAX, nullable=True)
        severity = orm.Required(str, 16, default="info")
        priority = orm.Required(int, default=0)
        source = orm.Required(str, SOURCE_MAX, default=API_SOURCE)
        icon = orm.Optional(str, ICON_MAX, nullable=True)
        expires_at = orm.Optional(int, nullable=True, **MS)
        dismissed_at = orm.Optional(int, nullable=True, **MS)
        display_only = orm.Optional(orm.Json, nullable=True)  # never serialized over HTTP
        created_at_ms = orm.Required(int, **MS)


def catalog_json(row: Any) -> dict[str, Any]:
    """An alert as the content catalog lists it (``integration_type`` is its source)."""
    return {"id": row.id, "title": row.title, "body": row.body, "source": row.source,
            "severity": row.severity,
            "priority": row.priority, "expires_at": row.expires_at, "dismissed_at": row.dismissed_at,
            "integration_type": row.source or "alerts"}


ALERT_FEED = FeedKind("alert", lambda i, now: {
    "title": i.text("title", TITLE_MAX, True), "body": i.text("body", BODY_MAX),
    "severity": i.choice("severity", SEVERITIES, default="info"), "created_at_ms": now}, provenance="source")


def is_active(row: Any, now_ms: int) -> bool:
    return row.dismissed_at is None and (row.expires_at is None or row.expires_at > now_ms)


def serialize(row: Any, now_ms: int) -> dict[str, Any]:
    """The HTTP shape of an alert; ``display_only`` is deliberately absent."""
    return {
        "id": row.id,
        "title": row.title,
        "body": row.body,
        "qr_payload": row.qr_payload,
        "severity": row.severity,
        "priority": row.priority,
        "source": row.source,
        "icon": row.icon,
        "expires_at": row.expires_at,
        "dismissed_at": row.dismissed_at,
        "created_at_ms": row.created_at_ms,
        "active": is_active(row, now_ms),
    }


class AlertService:
    """What other plugins call (inside their ``db_session``) to raise and dismiss alerts."""

    def __init__(self, host: Any):
        self.host = host

    @orm.db_session
    def raise_alert(self, *, title: str, body: str, severity: str = "info", priority: int = 0, source: str,
                    expires_at_ms: int | None = None, icon: str | None = None, qr_payload: str | None = None,
                    display_only: dict | None = None) -> str:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}")
        if not isinstance(priority, int) or not PRIORITY_MIN <= priority <= PRIORITY_MAX:
            raise ValueError(f"priority must be an integer from {PRIORITY_MIN} to {PRIORITY_MAX}")
        if not title or not title.strip() or len(title) > TITLE_MAX or len(body or "") > BODY_MAX:
            raise ValueError(f"title must be 1-{TITLE_MAX} characters, body at most {BODY_MAX}")
        if not source or not source.strip() or len(source) > SOURCE_MAX:
            raise ValueError(f"source must be 1-{SOURCE_MAX} characters")
        if display_only is not None and not isinstance(display_only, dict):
            raise ValueError("display_only must be a dict")
        alert_id = uuid.uuid4().hex
        self.host.db.Alert(id=alert_id, title=title, body=body or "", severity=severity, priority=priority,
                           source=source, expires_at=expires_at_ms, icon=icon, qr_payload=qr_payload,
                           display_only=display_only, created_at_ms=self.host.clock.now_ms())
        publish(self.host, TOPIC)
        return alert_id

    @orm.db_session
    def dismiss(self, alert_id: str) -> bool:
        """True when the alert exists (and is now dismissed), False when there is no such alert."""
        row = self.host.db.Alert.get(id=alert_id) if isinstance(alert_id, str) else None
        if row is None:
            return False
        if row.dismissed_at is None:
            row.dismissed_at = self.host.clock.now_ms()
            publish(self.host, TOPIC)
        return True

    @orm.db_session
    def upsert_source_alert(self, *, source: str, key: str, title: str, body: str = "", severity: str = "warning",
                            priority: int = 0, icon: str | None = None) -> str | None:
        """Keep one alert per (source, key) raised while a condition lasts (collectors use this).

        An active alert with that key is refreshed in place. One an operator dismissed stays
        dismissed until the source clears the condition (``clear_source_alerts``); the next
        occurrence after that raises a new alert. Returns the alert id, or None while dismissed.
        """
        severity = severity if severity in SEVERITIES else "warning"
        latest = self._latest_for_key(source, key)
        if latest is not None and not (latest.display_only or {}).get("cleared"):
            if latest.dismissed_at is not None:
                return None
            wanted = {"title": title[:TITLE_MAX], "body": (body or "")[:BODY_MAX], "severity": severity}
            if any(getattr(latest, name) != value for name, value in wanted.items()):
                latest.set(**wanted)
                publish(self.host, TOPIC)
            return latest.id
        return self.raise_alert(title=title[:TITLE_MAX], body=(body or "")[:BODY_MAX], severity=severity,
                                priority=priority, source=source, icon=icon, display_only={"source_key": key})

    @orm.db_session
    def clear_source_alerts(self, *, source: str, keep_keys: list[str]) -> int:
        """Dismiss the source's alerts whose condition is over; returns how many were cleared."""
        cleared = 0
        keep = set(keep_keys)
        for row in self.host.db.Alert.select(lambda a: a.source == source):
            meta = row.display_only or {}
            if "source_key" not in meta or meta["source_key"] in keep or meta.get("cleared"):
                continue
            row.display_only = {**meta, "cleared": True}
            if row.dismissed_at is None:
                row.dismissed_at = self.host.clock.now_ms()
            cleared += 1
        if cleared:
            publish(self.host, TOPIC)
        return cleared

    def _latest_for_key(self, source: str, key: str) -> Any:
        rows = [r for r in self.host.db.Alert.select(lambda a: a.source == source)
                if (r.display_only or {}).get("source_key") == key]
        return max(rows, key=lambda r: (r.created_at_ms, r.id)) if rows else None

    @orm.db_session
    def active(self, now_ms: int | None = None) -> list[dict[str, Any]]:
        """Active alerts for the display, highest priority first, with ``display_only``."""
        now_ms = self.host.clock.now_ms() if now_ms is None else now_ms
        rows = self.host.db.Alert.select(lambda a: a.dismissed_at is None)
        active = [r for r in rows if is_active(r, now_ms)]
        active.sort(key=lambda r: (-r.priority, -r.created_at_ms, r.id))
        return [{**serialize(r, now_ms), "display_only": r.display_only} for r in active]


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    host.services[ALERTS] = AlertService(host)


class AlertCreate(StorableSchema):
    title = fields.String(required=True, validate=[validate.Length(min=1, max=TITLE_MAX), not_blank])
    body = fields.String(load_default="", validate=validate.Length(max=BODY_MAX))
    qr_payload = fields.String(allow_none=True, validate=validate.Length(max=QR_MAX))
    severity = fields.String(load_default="info", validate=validate.OneOf(SEVERITIES))
    priority = fields.Integer(strict=True, load_default=0, validate=validate.Range(min=PRIORITY_MIN, max=PRIORITY_MAX))
    expires_at = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=0, max=2 ** 53),
                                metadata={"description": "epoch milliseconds"})
    source = fields.String(load_default=API_SOURCE, validate=[validate.Length(min=1, max=SOURCE_MAX), not_blank])
    icon = fields.String(allow_none=True, validate=validate.Regexp(r"^[a-z0-9_]{1,64}$"),
                         metadata={"description": "material icon name"})


AlertSchema = record("AlertSchema", id=fields.String, title=fields.String, body=fields.String,
                     qr_payload=Nullable(fields.String), severity=fields.String(validate=validate.OneOf(SEVERITIES)),
                     priority=fields.Integer, source=fields.String, icon=Nullable(fields.String),
                     expires_at=Nullable(fields.Integer), dismissed_at=Nullable(fields.Integer),
                     created_at_ms=fields.Integer,
                     active=fields.Boolean(metadata={"description": "neither dismissed nor expired"}))


AlertList = record("AlertList", items=fields.List(fields.Nested(AlertSchema)))


class AlertQuery(StorableSchema):
    active = BooleanText(metadata={"description": "true: only active alerts; false: only inactive"})


class AlertCollection:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        now = self.host.clock.now_ms()
        rows = self.host.db.Alert.select().order_by(lambda a: (orm.desc(a.created_at_ms), a.id))
        items = [serialize(r, now) for r in rows]
        wanted = req.context.query.get("active")
        if wanted is not None:
            items = [i for i in items if i["active"] is wanted]
        resp.media = {"items": items}

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = req.context.body
        alert_id = self.host.services[ALERTS].raise_alert(
            title=body["title"], body=body["body"], severity=body["severity"], priority=body["priority"],
            source=body["source"], expires_at_ms=body.get("expires_at"), icon=body.get("icon"),
            qr_payload=body.get("qr_payload"))
        resp.status = falcon.HTTP_201
        resp.media = serialize(self.host.db.Alert[alert_id], self.host.clock.now_ms())


class AlertItem:
    def __init__(self, host: Any):
        self.host = host

    def _row(self, id: str) -> Any:
        return stored_row(self.host.db.Alert, id, "alert")

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        resp.media = serialize(self._row(id), self.host.clock.now_ms())

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        row = self._row(id)
        self.host.services[ALERTS].dismiss(row.id)
        resp.media = serialize(row, self.host.clock.now_ms())


@hookimpl
def register_routes(host: Any) -> list[Route]:
    tags = ["alerts"]
    return [
        Route("/v1/alerts", AlertCollection(host), {
            "GET": Operation(AUTHENTICATED, "all alerts, newest first (active marks the live ones)",
                             query=AlertQuery, response=AlertList, tags=tags),
            "POST": Operation(ALERTS_WRITE, "raise an alert", body=AlertCreate, response=AlertSchema, status=201,
                              tags=tags),
        }),
        Route("/v1/alerts/{id}", AlertItem(host), {
            "GET": Operation(AUTHENTICATED, "one alert", response=AlertSchema, tags=tags),
            "DELETE": Operation(ALERTS_WRITE, "dismiss an alert (dismissed_at set; the row stays)",
                                response=AlertSchema, tags=tags),
        }),
    ]


FEATURE = Feature(
    permissions=[Permission(ALERTS_WRITE, "raise and dismiss alerts", OPERATORS)],
    types=TYPES,
    content_lists=[ContentList("alerts", "Alert", catalog_json, label="alerts",
                               filters={"title": "title", "body": "body", "source": "source",
                                        "severity": "severity"},
                               order=(("id", True),), feed=ALERT_FEED)],
    display_layers=[LayerSpec("alerts", 300, "builtin_plugins.alerts.display:AlertsLayer", area="alert",
                              topics=(TOPIC,), description="the active alerts as cards over the slides and overlays")],
    samples="builtin_plugins.alerts.samples:write",
)
