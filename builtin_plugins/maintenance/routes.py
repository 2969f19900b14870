"""The maintenance routes of spec 4.13 with the CONTRACT's shapes; all need ``display.maintenance``."""
from __future__ import annotations

import datetime
import logging
import shutil
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema
from pony import orm

from builtin_plugins.maintenance import swap
from builtin_plugins.maintenance.archive import FORMATS
from svc_host.backup_archive.format import BackupTooNew, InvalidArchive, StagingFailed
from builtin_plugins.maintenance.jobs import jobs_of, valid_job_id
from builtin_plugins.maintenance.restore import EXIT_RESTART, MAX_UPLOAD, RestoreGate, UploadTooLarge, \
    save_upload, stage_and_commit
from builtin_plugins.maintenance.upgrade import Upgrades, upgrade_capable
from hookspecs import Operation, Route
from hookspecs.records import record
from svc_host.kit.rest import ApiError, not_found, validation_failed

log = logging.getLogger("builtin_plugins.maintenance")
TAGS = ("maintenance",)

DISPLAY_MAINTENANCE = "display.maintenance"


class JobQuery(Schema):
    format = fields.String(required=True, validate=validate.OneOf(sorted(FORMATS)))
    include_database = fields.Boolean(load_default=True)
    include_blobs = fields.Boolean(load_default=True)

    @validates_schema
    def _something(self, data: dict, **_kwargs: Any) -> None:
        if not data.get("include_database", True) and not data.get("include_blobs", True):
            raise ValidationError("include_database and include_blobs cannot both be false", "include_blobs")


class BackupJobSchema(Schema):
    job_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["pending", "running", "ready", "failed"]})
    format = fields.String(required=True, metadata={"enum": sorted(FORMATS)})
    include_database = fields.Boolean(required=True)
    include_blobs = fields.Boolean(required=True)
    created_at_ms = fields.Integer(required=True)
    started_at_ms = fields.Integer(allow_none=True)
    finished_at_ms = fields.Integer(allow_none=True)
    size_bytes = fields.Integer(allow_none=True)
    progress = fields.Float(required=True)
    error = fields.String(allow_none=True)


JobCreated = record("JobCreated", job_id=fields.String)


class StatusSchema(Schema):
    database_path = fields.String(required=True)
    jobs_dir = fields.String(required=True)
    database_bytes = fields.Integer(required=True)
    media_bytes = fields.Integer(required=True)
    last_job = fields.Nested(BackupJobSchema, allow_none=True)


class RestoreQuery(Schema):
    confirm = fields.String()


RestoreResponse = record("RestoreResponse", restarting=fields.Boolean)


class UpgradeBody(Schema):
    download_url = fields.String(required=True, validate=validate.Length(min=1, max=2048))


class UpgradeJobSchema(Schema):
    job_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["pending", "downloading", "verifying", "installing",
                                                             "succeeded", "failed"]})
    download_url = fields.String(required=True)
    bytes_downloaded = fields.Integer(required=True)
    bytes_total = fields.Integer(allow_none=True)
    started_at_ms = fields.Integer(allow_none=True)
    finished_at_ms = fields.Integer(allow_none=True)
    error = fields.String(allow_none=True)
    log_tail = fields.String(required=True)


def _job(host: Any, job_id: str) -> Any:
    job = jobs_of(host).get(job_id) if valid_job_id(job_id) else None
    if job is None:
        raise not_found("backup job")
    return job


class StatusResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = jobs_of(self.host).status()


class JobsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any) -> None:
        query = req.context.query
        job = jobs_of(self.host).create(query["format"], query["include_database"], query["include_blobs"])
        resp.status = 202
        resp.media = {"job_id": job.job_id}


class JobResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        resp.media = _job(self.host, id).to_json()

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        if not (valid_job_id(id) and jobs_of(self.host).delete(id)):
            raise not_found("backup job")
        resp.status = 204


class DownloadResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        jobs = jobs_of(self.host)
        job = _job(self.host, id)
        if job.status != "ready":
            raise ApiError(409, "job_not_ready", f"the backup job is {job.status}, not ready", {"status": job.status})
        try:
            handle = open(jobs.archive_path(job), "rb")
        except FileNotFoundError:
            raise not_found("backup archive") from None
        extension, content_type = FORMATS[job.format]
        stamp = datetime.datetime.fromtimestamp((job.started_at_ms or job.created_at_ms) / 1000,
                                                datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        resp.content_type = content_type
        resp.set_header("Content-Disposition", f'attachment; filename="svc-display-backup-{stamp}{extension}"')
        resp.set_header("Cache-Control", "no-store")
        resp.set_stream(handle, job.size_bytes)


class RestoreResource:
    def __init__(self, host: Any, gate: RestoreGate):
        self.host = host
        self.gate = gate

    def on_post(self, req: Any, resp: Any) -> None:
        if req.context.query.get("confirm") != "yes":
            raise ApiError(400, "confirmation_required",
                           "a restore overwrites the database and media: repeat the request with ?confirm=yes")
        if req.content_length is not None and req.content_length > MAX_UPLOAD:
            raise ApiError(413, "payload_too_large", f"the archive exceeds {MAX_UPLOAD} bytes")
        if self.gate.committed or not self.gate.lock.acquire(blocking=False):
            raise ApiError(409, "restore_in_progress", "a restore is already under way; the display restarts soon")
        try:
            if self.gate.committed:
                raise ApiError(409, "restore_in_progress", "a restore is committed; the display restarts soon")
            self._restore(req)
            self.gate.committed = True
        finally:
            self.gate.lock.release()
        log.warning("restore: archive checked and committed; exiting with status %d for the supervisor to start "
                    "the display on the restored data", EXIT_RESTART)
        self.host.request_exit(EXIT_RESTART)
        resp.set_header("Connection", "close")  # no idle keep-alive connection to wait for at exit
        resp.status = 202
        resp.media = {"restarting": True}

    def _restore(self, req: Any) -> None:
        settings = self.host.settings
        stream = req.bounded_stream if req.content_length is not None else req.stream
        upload = None
        try:
            upload = save_upload(stream, settings.data_dir)
            with orm.db_session:
                applied = {(m.plugin, m.migration_id) for m in self.host.db.AppliedMigration.select()}
            known = applied | {(plugin, m.id) for plugin, m in self.host.registries.migrations}
            stage_and_commit(upload, settings.data_dir, known, self.host.schema_version(), settings.sqlite_path)
        except UploadTooLarge as exc:
            raise ApiError(413, "payload_too_large", str(exc)) from None
        except InvalidArchive as exc:
            log.warning("restore refused (%s): %s", exc.reason, exc.message)
            raise ApiError(400, "invalid_backup_archive", exc.message, exc.details) from None
        except BackupTooNew as exc:
            raise ApiError(409, "backup_too_new", exc.message, exc.details) from None
        except StagingFailed as exc:
            log.warning("restore refused: the disk failed while staging (%s)", exc.details["errno"])
            raise ApiError(507, "insufficient_storage", exc.message, exc.details) from None
        finally:
            if upload is not None:
                upload.unlink(missing_ok=True)
            shutil.rmtree(settings.data_dir / swap.UPLOADS, ignore_errors=True)


class UpgradeResource:
    def __init__(self, host: Any, upgrades: Upgrades):
        self.host = host
        self.upgrades = upgrades

    def on_post(self, req: Any, resp: Any) -> None:
        url = req.context.body["download_url"]
        if not url.lower().startswith("https://") or len(url) <= len("https://"):
            raise validation_failed({"download_url": ["must be an https:// URL"]})
        if not upgrade_capable(self.host.settings):
            raise ApiError(409, "upgrade_unavailable", "in-band upgrade is not available on this display "
                                                       "(upgrade_capable is false)")
        job = self.upgrades.start(url)
        if job is None:
            raise ApiError(409, "upgrade_in_progress", "an upgrade is already running")
        resp.status = 202
        resp.media = {"job_id": job.job_id}


class UpgradeJobResource:
    def __init__(self, upgrades: Upgrades):
        self.upgrades = upgrades

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        job = self.upgrades.get(id)
        if job is None:
            raise not_found("upgrade job")
        resp.media = job.to_json()


def backup_routes(host: Any) -> list[Route]:
    gate = RestoreGate()
    perm = DISPLAY_MAINTENANCE
    return [
        Route("/v1/display/backup/status", StatusResource(host), {
            "GET": Operation(perm, "database path, jobs folder, sizes and the last backup job",
                             response=StatusSchema, tags=TAGS)}, db_session=False),
        Route("/v1/display/backup/jobs", JobsResource(host), {
            "POST": Operation(perm, "start a backup job (one runs at a time, others wait as pending)",
                              query=JobQuery, response=JobCreated, status=202, tags=TAGS)}, db_session=False),
        Route("/v1/display/backup/jobs/{id}", JobResource(host), {
            "GET": Operation(perm, "a backup job", response=BackupJobSchema, tags=TAGS),
            "DELETE": Operation(perm, "remove a backup job and its file", status=204, tags=TAGS)},
            db_session=False),
        Route("/v1/display/backup/jobs/{id}/download", DownloadResource(host), {
            "GET": Operation(perm, "the archive of a ready job (409 job_not_ready before)",
                             response_content_type="application/octet-stream", tags=TAGS)}, db_session=False),
        Route("/v1/display/backup/restore", RestoreResource(host, gate), {
            "POST": Operation(perm, "restore an archive (raw body, zip or tgz, at most 2 GiB); the display exits "
                                    "with status 75 to restart on the restored data",
                              query=RestoreQuery, response=RestoreResponse, status=202,
                              raw_body="application/octet-stream", max_body=MAX_UPLOAD, tags=TAGS)},
            db_session=False),
    ]


def upgrade_routes(host: Any) -> list[Route]:
    upgrades = Upgrades(host)
    perm = DISPLAY_MAINTENANCE
    return [
        Route("/v1/display/ops/upgrade", UpgradeResource(host, upgrades), {
            "POST": Operation(perm, "download, verify and install an upgrade (only when upgrade_capable)",
                              body=UpgradeBody, response=JobCreated, status=202, tags=TAGS)}, db_session=False),
        Route("/v1/display/ops/upgrade/{id}", UpgradeJobResource(upgrades), {
            "GET": Operation(perm, "an upgrade job", response=UpgradeJobSchema, tags=TAGS)}, db_session=False),
    ]
