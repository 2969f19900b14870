"""The ``/bff/v1`` REST routes (spec 4.13, CONTRACT "The controller"), as host-kit Routes.

Every route but health, OpenAPI and login is :data:`AUTHENTICATED`: with auth off every
caller is the global principal; with auth on a session cookie is needed (401
``unauthorized``). Request bodies are validated by the same marshmallow schemas that
feed ``/bff/v1/openapi.json``.
"""
from __future__ import annotations

import time
from typing import Any

import falcon
from marshmallow import Schema, ValidationError, fields, validate, validates, validates_schema

from hookspecs import AUTHENTICATED, PUBLIC, Operation, Route
from hookspecs.records import record
from svc_controller.auth import COOKIE_NAME, SESSION_LIFETIME_MS, scope_of
from svc_controller import bulk, plays
from svc_controller.backups import MAX_ARCHIVE_BYTES, PullError, valid_cron
from svc_controller.bulk import ACTIONS
from svc_controller.config import valid_zone
from svc_controller.targets import parse_display_url
from svc_host.http.errors import ApiError
from svc_host.rest.ratelimit import client_address, rate_limited
from svc_host.rest.schemas import StrictBoolean

TAGS = ["controller"]


# -- schemas ---------------------------------------------------------------------------
GROUP_TEXT = validate.Regexp(r"^[^\x00-\x1f\x7f]{1,64}$", error="1 to 64 characters, no control characters")
def _check_base_url(value: str | None) -> None:
    if value is None:
        return
    try:
        parse_display_url(value, "baseUrl")
    except ApiError as exc:
        raise ValidationError(exc.details["baseUrl"]) from None


class TargetUpsert(Schema):
    displayId = fields.String(validate=validate.Length(1, 200),
                              metadata={"description": "required unless fleetDisplayId is given (it then defaults "
                                                       "to it)"})
    baseUrl = fields.String(allow_none=True, validate=validate.Length(1, 2000),
                            metadata={"description": "required unless fleetDisplayId is given"})
    fleetDisplayId = fields.String(allow_none=True, validate=validate.Length(1, 64), metadata={
        "description": "a display of /bff/v1/displays: pulls use its baseUrl and apiKey, as they are at each "
                       "pull (baseUrl and apiKey are then not given); null stops following it"})
    apiKey = fields.String(allow_none=True, validate=validate.Length(0, 512),
                           metadata={"description": "stored encrypted, never returned; null clears it"})
    cronExpr = fields.String(allow_none=True, metadata={"description": "5-field cron; default 0 2 * * 0 staggered"})
    timezone = fields.String(allow_none=True, metadata={"description": "IANA zone; default the controller's"})
    retentionCount = fields.Integer(allow_none=True, strict=True, validate=validate.Range(1, 365))
    enabled = StrictBoolean(allow_none=True)

    class Meta:
        ordered = True

    @validates("baseUrl")
    def _base_url(self, value: str, **_: Any) -> None:
        _check_base_url(value)

    @validates("cronExpr")
    def _cron(self, value: str | None, **_: Any) -> None:
        if value is not None and not valid_cron(value):
            raise ValidationError("a 5-field cron expression such as '0 2 * * 0'")

    @validates("timezone")
    def _zone(self, value: str | None, **_: Any) -> None:
        if value is not None and not valid_zone(value):
            raise ValidationError("an IANA time zone such as 'Europe/Paris'")


class LastRun(Schema):
    startedAt = fields.String()
    finishedAt = fields.String()
    source = fields.String()
    status = fields.String(metadata={"enum": ["succeeded", "failed"]})
    snapshotId = fields.String(allow_none=True)
    error = fields.String(allow_none=True)


class TargetOut(Schema):
    id = fields.String(required=True)
    displayId = fields.String(required=True)
    baseUrl = fields.String(required=True)
    cronExpr = fields.String(required=True)
    timezone = fields.String(required=True)
    retentionCount = fields.Integer(required=True)
    enabled = fields.Boolean(required=True)
    apiKeyConfigured = fields.Boolean(required=True)
    nextRunAt = fields.String(allow_none=True, metadata={"description": "ISO 8601 in the target's zone"})
    lastRun = fields.Nested(LastRun, allow_none=True)
    fleetDisplayId = fields.String(allow_none=True, metadata={
        "description": "the fleet display it follows (baseUrl and apiKeyConfigured are then that display's)"})


TargetList = record("TargetList", items=fields.List(fields.Nested(TargetOut)))


class SnapshotOut(Schema):
    id = fields.String(required=True)
    targetId = fields.String(required=True)
    createdAt = fields.String(required=True)
    bytes = fields.Integer(required=True)
    sha256 = fields.String(required=True)
    source = fields.String(required=True, metadata={"enum": ["scheduled", "manual", "upload"]})
    schemaVersion = fields.Integer(allow_none=True)


SnapshotList = record("SnapshotList", items=fields.List(fields.Nested(SnapshotOut)))


class DisplayUpsert(Schema):
    name = fields.String(required=True, validate=validate.Length(1, 200))
    baseUrl = fields.String(required=True, validate=validate.Length(1, 2000),
                            metadata={"description": "must pass the proxy's target rule (403 proxy_target_forbidden)"})
    apiKey = fields.String(allow_none=True, validate=validate.Length(1, 512),
                           metadata={"description": "stored encrypted, never returned; absent keeps it, null clears it"})
    group = fields.String(allow_none=True, validate=GROUP_TEXT)

    class Meta:
        ordered = True

    @validates("baseUrl")
    def _base_url(self, value: str, **_: Any) -> None:
        _check_base_url(value)


class Problem(Schema):
    code = fields.String(required=True, metadata={"enum": [
        "unreachable", "bad_answer", "screen_degraded", "panel_off", "clock_off", "version_behind",
        "backup_failed", "api_key_rejected"]})
    message = fields.String(required=True)


class DisplayStatus(Schema):
    state = fields.String(required=True, metadata={"enum": ["online", "off", "degraded", "unreachable", "unknown"]})
    since_ms = fields.Integer(required=True)
    checked_at_ms = fields.Integer(allow_none=True)
    version = fields.String(allow_none=True)
    power = fields.Dict(allow_none=True, metadata={"description": "{state, reason, next_change_at_ms}"})
    screen = fields.Dict(allow_none=True, metadata={"description": "{state, current, skipped, failing} "
                                                                   "(counts of skipped and failing)"})
    problems = fields.List(fields.Nested(Problem), required=True)
    sync = fields.Dict(allow_none=True, metadata={
        "description": "the display's {group, program_hash, cycle_ms} (CONTRACT \"Displays in step\"); null when "
                       "it reports none"})
    clock = fields.Dict(allow_none=True, metadata={
        "description": "{offset_ms, error_ms}: the display's clock minus the controller's, read from the "
                       "X-Svc-Clock-Ms header of its health answer (error_ms: half the round trip), or from "
                       "its Date (whole seconds: error_ms about a second)"})


class DisplayOut(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    baseUrl = fields.String(required=True)
    group = fields.String(allow_none=True)
    apiKeyConfigured = fields.Boolean(required=True)
    status = fields.Nested(DisplayStatus, required=True)


class SyncProgram(Schema):
    programHash = fields.String(allow_none=True)
    displayIds = fields.List(fields.String(), required=True)


class SyncGroup(Schema):
    group = fields.String(required=True, metadata={"description": "the displays' sync_group"})
    displayIds = fields.List(fields.String(), required=True, metadata={"description": "the members answering"})
    programsDiffer = fields.Boolean(required=True, metadata={
        "description": "its members run different programs (each then has a programs_differ problem)"})
    programs = fields.List(fields.Nested(SyncProgram), required=True, metadata={"description": "most shared first"})


DisplayList = record("DisplayList", items=fields.List(fields.Nested(DisplayOut)),
                     syncGroups=fields.List(fields.Nested(SyncGroup), metadata={
                         "description": "the fleet's sync groups, whatever ?group= lists"}))


class BulkAction(Schema):
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    group = fields.String(allow_none=True, validate=validate.Length(1, 64),
                          metadata={"description": "every display of this group"})
    displayIds = fields.List(fields.String(validate=validate.Length(1, 64)), allow_none=True,
                             validate=validate.Length(max=1000), metadata={"description": "and/or these displays"})
    alert = fields.Dict(allow_none=True, metadata={
        "description": "raise_alert: the display's POST /v1/alerts body {title, body, severity, priority, expires_at}"})
    schedule = fields.List(fields.Dict(), allow_none=True, validate=validate.Length(max=64), metadata={
        "description": "set_power_schedule: the display's [{days, on, off}] (empty: always on)"})

    class Meta:
        ordered = True

    @validates_schema
    def _complete(self, data: dict, **_: Any) -> None:
        if data.get("group") is None and not data.get("displayIds"):
            raise ValidationError("name a group or displayIds", "group")
        if data["action"] == "raise_alert" and not data.get("alert"):
            raise ValidationError("raise_alert needs the alert to raise", "alert")
        if data["action"] == "set_power_schedule" and data.get("schedule") is None:
            raise ValidationError("set_power_schedule needs the schedule", "schedule")


class BulkItem(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    result = fields.String(required=True, metadata={"enum": ["done", "failed", "timed_out"]})
    reason = fields.String(metadata={"description": "failed or timed_out: why (the display's own words)"})


EPOCH_MS = validate.Range(0, plays.MAX_MS, error="epoch milliseconds from 0 to {max} (the year 9999)")


class PlaysQuery(Schema):
    group = fields.String(required=True, validate=GROUP_TEXT, metadata={"description": "every display of this group"})
    from_ms = fields.Integer(required=True, validate=EPOCH_MS,
                             metadata={"description": "plays that started at or after (epoch ms)"})
    to_ms = fields.Integer(required=True, validate=EPOCH_MS,
                           metadata={"description": "plays that started before (epoch ms)"})
    kind = fields.String(load_default=None, validate=validate.OneOf(plays.KINDS),
                         metadata={"description": "only plays of this kind (all kinds without it)"})

    class Meta:
        ordered = True

    @validates_schema
    def _window(self, data: dict, **_: Any) -> None:
        if data["to_ms"] <= data["from_ms"]:
            raise ValidationError("must be after from_ms", "to_ms")


BulkResult = record("BulkResult", action=fields.String, items=fields.List(fields.Nested(BulkItem)),
                    done=fields.Integer, failed=fields.Integer, timed_out=fields.Integer)


class Login(Schema):
    username = fields.String(required=True, validate=validate.Length(1, 200))
    password = fields.String(required=True, validate=validate.Length(1, 1024))


class SessionOut(Schema):
    authEnabled = fields.Boolean(required=True)
    username = fields.String(allow_none=True)


ReleaseOut = record("ReleaseOut", product=fields.String, version=fields.String, published_at=fields.String,
                    download_url=fields.String)


HealthOut = record("HealthOut", status=fields.String, app=fields.String, version=fields.String,
                   schema_version=fields.Integer, auth_enabled=fields.Boolean, uptime_seconds=fields.Integer)


# -- resources ---------------------------------------------------------------------------
def _scope(ctl: Any, req: falcon.Request) -> str:
    """The caller's scope: ``""`` (the one global scope) with auth off, the user's with auth on.
    Targets a user made while auth was on stay theirs: auth off neither lists nor touches them."""
    return scope_of(req.context.principal)


class Health:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        from svc_host import __version__

        resp.media = {"status": "ok", "app": "svc-controller", "version": __version__,
                      "schema_version": self.ctl.schema_version, "auth_enabled": self.ctl.settings.auth_enabled,
                      "uptime_seconds": int(time.monotonic() - self.ctl.started_at)}


class OpenApi:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self.ctl.openapi


class LoginResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        gate = self.ctl.gate
        if not gate.enabled:
            raise ApiError(409, "auth_disabled", "sign-in is off (SVC_CONTROLLER_AUTH_ENABLED=0)")
        retry = gate.login_limiter.check_and_hit(client_address(req))
        if retry is not None:
            raise rate_limited(retry, "too many sign-in attempts from this address; retry later")
        body = req.context.body
        cookie = gate.login(body["username"], body["password"])
        if cookie is None:
            raise ApiError(401, "invalid_credentials", "wrong username or password")
        resp.set_cookie(COOKIE_NAME, cookie, max_age=SESSION_LIFETIME_MS // 1000, path="/", secure=True,
                        http_only=True, same_site="Strict")
        resp.media = {"authEnabled": True, "username": body["username"].strip().lower()}


class LogoutResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self.ctl.gate.logout(req.cookies.get(COOKIE_NAME))
        resp.unset_cookie(COOKIE_NAME, path="/")
        resp.status = falcon.HTTP_204


class SessionResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        principal = req.context.principal
        resp.media = {"authEnabled": self.ctl.settings.auth_enabled,
                      "username": principal.identifier if principal.kind == "session" else None}


class TargetsResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        backups = self.ctl.backups
        resp.media = {"items": [backups.target_json(t) for t in backups.targets_in(_scope(self.ctl, req))]}

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        target, created = self.ctl.backups.upsert(_scope(self.ctl, req), req.context.body)
        resp.media = target
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200


class TargetResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        backups = self.ctl.backups
        resp.media = backups.target_json(backups.get_target(_scope(self.ctl, req), id))

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        self.ctl.backups.delete_target(_scope(self.ctl, req), id)
        resp.status = falcon.HTTP_204


class SnapshotsResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        backups = self.ctl.backups
        target = backups.get_target(_scope(self.ctl, req), id)
        rows = target.snapshots.select().order_by(lambda s: (s.created_at_ms, s.id))
        resp.media = {"items": [backups.snapshot_json(s) for s in rows]}


class PullNowResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        from pony import orm

        with orm.db_session:
            self.ctl.backups.get_target(_scope(self.ctl, req), id)
        try:
            resp.media = self.ctl.backups.pull(id, "manual")
        except PullError as exc:
            raise ApiError(502, "backup_pull_failed", str(exc)) from None
        resp.status = falcon.HTTP_201


class UploadResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        resp.media = self.ctl.backups.upload(_scope(self.ctl, req), id, req.bounded_stream, req.content_length)
        resp.status = falcon.HTTP_201


class SnapshotResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        backups = self.ctl.backups
        resp.media = backups.snapshot_json(backups.get_snapshot(_scope(self.ctl, req), id))

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        self.ctl.backups.delete_snapshot(_scope(self.ctl, req), id)
        resp.status = falcon.HTTP_204


class DownloadResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        from pony import orm

        backups = self.ctl.backups
        with orm.db_session:
            snapshot = backups.get_snapshot(_scope(self.ctl, req), id)
            path = backups.snapshot_path(snapshot)
            name = f"svc-display-backup-{snapshot.target.display_id}-{snapshot.id[:8]}"
        try:
            handle = open(path, "rb")
        except OSError:
            raise ApiError(404, "not_found", "the stored archive file is missing") from None
        zip_file = path.name.endswith(".zip")
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        resp.content_type = "application/zip" if zip_file else "application/gzip"
        resp.set_header("Content-Disposition",
                        f'attachment; filename="{safe}{".zip" if zip_file else ".tar.gz"}"')
        resp.set_stream(handle, path.stat().st_size)


class RestoreResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        status, body, content_type = self.ctl.backups.restore(_scope(self.ctl, req), id)
        resp.status = status
        resp.content_type = content_type
        resp.data = body


class DisplaysResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self.ctl.fleet.listing(req.get_param("group"))


class DisplayResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        resp.media = self.ctl.fleet.item(self.ctl.fleet.get(id))

    def on_put(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        item, created = self.ctl.fleet.upsert(id, req.context.body)
        resp.media = item
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        self.ctl.fleet.delete(id)
        resp.status = falcon.HTTP_204


class BulkResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = bulk.run(self.ctl.fleet, req.context.body, self.ctl.settings.fleet_concurrency)


class PlaysResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = req.context.query
        out = plays.export(self.ctl.fleet, query["group"], query["from_ms"], query["to_ms"], query["kind"],
                           self.ctl.settings.fleet_concurrency, self.ctl.settings.data_dir)
        resp.content_type = "text/csv; charset=utf-8"
        resp.set_header("Content-Disposition", f'attachment; filename="{out.filename}"')
        resp.set_header("X-Svc-Plays-Rows", str(out.rows))
        resp.set_header("X-Svc-Plays-Incomplete", ",".join(out.incomplete))
        resp.set_header("Cache-Control", "no-store")
        resp.stream = out.chunks()
        resp.content_length = out.size


class ReleaseResource:
    def __init__(self, ctl: Any):
        self.ctl = ctl

    def on_get(self, req: falcon.Request, resp: falcon.Response, product: str) -> None:
        resp.media = self.ctl.releases.latest(product)


def routes(ctl: Any) -> list[Route]:
    op = Operation
    auth = AUTHENTICATED
    return [
        Route("/bff/v1/health", Health(ctl), {"GET": op(PUBLIC, "controller health", response=HealthOut,
                                                          tags=TAGS)}),
        Route("/bff/v1/openapi.json", OpenApi(ctl), {"GET": op(PUBLIC, "this OpenAPI 3.1 document", tags=TAGS)},
              db_session=False),
        Route("/bff/v1/auth/login", LoginResource(ctl), {
            "POST": op(PUBLIC, "sign in; sets the session cookie", body=Login, response=SessionOut, tags=TAGS)},
              db_session=False),
        Route("/bff/v1/auth/logout", LogoutResource(ctl), {"POST": op(PUBLIC, "sign out", status=204, tags=TAGS)},
              db_session=False),
        Route("/bff/v1/auth/session", SessionResource(ctl), {
            "GET": op(auth, "who is signed in", response=SessionOut, tags=TAGS)}, db_session=False),
        Route("/bff/v1/backup-targets", TargetsResource(ctl), {
            "GET": op(auth, "backup targets of this scope", response=TargetList, tags=TAGS),
            "PUT": op(auth, "create or update the target of displayId", body=TargetUpsert, response=TargetOut,
                      tags=TAGS)}),
        Route("/bff/v1/backup-targets/{id}", TargetResource(ctl), {
            "GET": op(auth, "one backup target", response=TargetOut, tags=TAGS),
            "DELETE": op(auth, "remove a target and its snapshots", status=204, tags=TAGS)}),
        Route("/bff/v1/backup-targets/{id}/snapshots", SnapshotsResource(ctl), {
            "GET": op(auth, "stored backups of a target, oldest first", response=SnapshotList, tags=TAGS)}),
        Route("/bff/v1/backup-targets/{id}/pull-now", PullNowResource(ctl), {
            "POST": op(auth, "pull a backup from the display now", response=SnapshotOut, status=201,
                       tags=TAGS)}, db_session=False),
        Route("/bff/v1/backup-targets/{id}/upload", UploadResource(ctl), {
            "POST": op(auth, "store an archive without pulling", response=SnapshotOut, status=201,
                       raw_body="application/octet-stream", max_body=MAX_ARCHIVE_BYTES, tags=TAGS)},
              db_session=False),
        Route("/bff/v1/backup-snapshots/{id}", SnapshotResource(ctl), {
            "GET": op(auth, "one stored backup", response=SnapshotOut, tags=TAGS),
            "DELETE": op(auth, "delete a stored backup and its file", status=204, tags=TAGS)}),
        Route("/bff/v1/backup-snapshots/{id}/download", DownloadResource(ctl), {
            "GET": op(auth, "the stored archive", response_content_type="application/octet-stream", tags=TAGS)},
              db_session=False),
        Route("/bff/v1/backup-snapshots/{id}/restore", RestoreResource(ctl), {
            "POST": op(auth, "send the archive to the display's restore route (confirm=yes); the display's "
                             "answer", status=202, tags=TAGS)}, db_session=False),
        Route("/bff/v1/displays", DisplaysResource(ctl), {
            "GET": op(auth, "the fleet: every display with its last polled status (never waits on a display); "
                            "?group= filters", response=DisplayList, tags=TAGS)}),
        Route("/bff/v1/displays/{id}", DisplayResource(ctl), {
            "GET": op(auth, "one display of the fleet", response=DisplayOut, tags=TAGS),
            "PUT": op(auth, "create or update a display of the fleet", body=DisplayUpsert, response=DisplayOut,
                      tags=TAGS),
            "DELETE": op(auth, "remove a display from the fleet", status=204, tags=TAGS)}),
        Route("/bff/v1/fleet/actions", BulkResource(ctl), {
            "POST": op(auth, "apply an action to a group of displays (their stored keys); every display's result",
                       body=BulkAction, response=BulkResult, tags=TAGS)}, db_session=False),
        Route("/bff/v1/fleet/plays", PlaysResource(ctl), {
            "GET": op(auth, "proof of play of a group: every display's plays in [from_ms, to_ms) as one CSV, then a "
                            "summary naming each display's result (docs/controller.md)", query=PlaysQuery,
                      response_content_type="text/csv", tags=TAGS)}, db_session=False),
        Route("/bff/v1/releases/{product}", ReleaseResource(ctl), {
            "GET": op(auth, "the latest published release of a product", response=ReleaseOut, tags=TAGS)},
              db_session=False),
    ]
