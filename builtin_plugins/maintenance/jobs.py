"""Backup jobs: one runs at a time on a worker thread, others wait as ``pending``.

Each job is two files under ``<data dir>/backup-jobs/`` (mode 0600): ``<id>.json`` (the
job as ``GET`` shows it) and the archive ``<id>.zip`` / ``<id>.tar.gz`` (``<id>.part``
while it is written, beside ``<id>.snapshot``, the database snapshot, and ``<id>.media/``,
the media set frozen by hard links). Jobs and their files are removed 24 hours after they
finished (``host.clock``), or by ``DELETE``. A job running when the process stops is saved
as failed ("interrupted by a restart"); one left pending or running by a crash is failed
at the next start.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from builtin_plugins.maintenance.archive import FORMATS, Cancelled, discard, freeze, tree_bytes, write_archive
from hookspecs.services import BACKUP_JOBS

log = logging.getLogger("builtin_plugins.maintenance")

JOBS_DIR = "backup-jobs"
SERVICE = BACKUP_JOBS  # hookspecs.services: this plugin's own
EXPIRY_MS = 24 * 3600 * 1000
_ID_LENGTH = 32
INTERRUPTED = "interrupted by a restart"


@dataclass
class BackupJob:
    job_id: str
    status: str
    format: str
    include_database: bool
    include_blobs: bool
    created_at_ms: int
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    size_bytes: int | None = None
    progress: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class BackupJobs:
    def __init__(self, host: Any):
        self.host = host
        self.dir: Path = host.settings.data_dir / JOBS_DIR
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.dir, 0o700)
        self.jobs: dict[str, BackupJob] = {}
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.cancelled: set[str] = set()
        self.stopping = False
        self._load()
        self.worker = threading.Thread(target=self._run, name="backup-jobs", daemon=True)
        self.worker.start()

    # -- files -------------------------------------------------------------------------
    def archive_path(self, job: BackupJob) -> Path:
        return self.dir / (job.job_id + FORMATS[job.format][0])

    def _save(self, job: BackupJob) -> None:
        tmp = self.dir / f"{job.job_id}.json.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(job.to_json(), handle)
        os.replace(tmp, self.dir / f"{job.job_id}.json")

    def _remove_files(self, job_id: str, keep_json: bool = False) -> None:
        for path in self.dir.glob(job_id + ".*"):
            if not (keep_json and path.name.endswith(".json")):
                discard(path)

    def _load(self) -> None:
        now = self.host.clock.now_ms()
        for path in self.dir.glob("*.json"):
            try:
                job = BackupJob(**json.loads(path.read_text()))
            except (OSError, ValueError, TypeError):
                path.unlink(missing_ok=True)
                continue
            if job.status in ("pending", "running"):
                job.status, job.error, job.finished_at_ms = "failed", INTERRUPTED, now
                self._remove_files(job.job_id)
                self._save(job)
            self.jobs[job.job_id] = job
        known = set(self.jobs)
        for path in self.dir.iterdir():  # archives or parts without a job: left by a crash
            if path.name.split(".", 1)[0] not in known:
                discard(path)
        self.sweep()

    # -- API ---------------------------------------------------------------------------
    def sweep(self) -> None:
        """Remove jobs (and their files) 24 hours after they finished."""
        with self.lock:
            self._expire_locked()

    def _expire_locked(self) -> None:
        now = self.host.clock.now_ms()
        expired = [j.job_id for j in self.jobs.values()
                   if j.finished_at_ms is not None and now - j.finished_at_ms >= EXPIRY_MS]
        for job_id in expired:
            del self.jobs[job_id]
            self._remove_files(job_id)
            log.info("backup job %s expired, its files are removed", job_id)

    def create(self, fmt: str, include_database: bool, include_blobs: bool) -> BackupJob:
        self.sweep()
        job = BackupJob(uuid.uuid4().hex, "pending", fmt, include_database, include_blobs, self.host.clock.now_ms())
        with self.lock:
            self.jobs[job.job_id] = job
            self._save(job)
            self.wake.notify_all()
        return job

    def get(self, job_id: str) -> BackupJob | None:
        self.sweep()
        with self.lock:
            return self.jobs.get(job_id)

    def last(self) -> BackupJob | None:
        self.sweep()
        with self.lock:
            return max(self.jobs.values(), key=lambda j: (j.created_at_ms, j.job_id), default=None)

    def delete(self, job_id: str) -> bool:
        with self.lock:
            job = self.jobs.pop(job_id, None)
            if job is None:
                return False
            if job.status == "running":
                self.cancelled.add(job_id)  # the worker stops and removes its files
            self._remove_files(job_id)
            return True

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            self.cancelled.update(j.job_id for j in self.jobs.values() if j.status == "running")
            self.wake.notify_all()
        self.worker.join(10)

    # -- worker ------------------------------------------------------------------------
    def _next(self) -> BackupJob | None:
        with self.lock:
            while not self.stopping:
                waiting = sorted((j for j in self.jobs.values() if j.status == "pending"),
                                 key=lambda j: (j.created_at_ms, j.job_id))
                if waiting:
                    job = waiting[0]
                    job.status, job.started_at_ms = "running", self.host.clock.now_ms()
                    self._save(job)
                    return job
                self.wake.wait(60)
                self._expire_locked()  # also when nobody asks: old job files never linger
            return None

    def _run(self) -> None:
        while (job := self._next()) is not None:
            try:
                size = self.build(job)
            except Cancelled:
                with self.lock:
                    deleted = job.job_id not in self.jobs
                if deleted:
                    log.info("backup job %s deleted while it ran", job.job_id)
                    self._remove_files(job.job_id)
                else:  # the process is stopping: the job stays, failed, as after a crash
                    log.info("backup job %s interrupted by the shutdown", job.job_id)
                    self._finish(job, "failed", error=INTERRUPTED)
                continue
            except Exception as exc:  # noqa: BLE001 - a failed job reports it, the worker goes on
                log.exception("backup job %s failed", job.job_id)
                self._finish(job, "failed", error=f"{type(exc).__name__}: {exc}")
                continue
            self._finish(job, "ready", size=size)

    def _finish(self, job: BackupJob, status: str, size: int | None = None, error: str | None = None) -> None:
        with self.lock:
            job.status, job.finished_at_ms, job.error = status, self.host.clock.now_ms(), error
            if status == "ready":
                job.size_bytes, job.progress = size, 1.0
            else:
                self._remove_files(job.job_id, keep_json=True)
            if job.job_id in self.jobs:
                self._save(job)
            else:  # deleted meanwhile
                self._remove_files(job.job_id)

    def build(self, job: BackupJob) -> int:
        settings = self.host.settings
        snapshot = self.dir / f"{job.job_id}.snapshot"
        frozen = self.dir / f"{job.job_id}.media"
        part = self.dir / f"{job.job_id}.part"

        def progress(value: float) -> None:
            job.progress = round(value, 4)

        def cancelled() -> bool:
            return job.job_id in self.cancelled

        try:
            freeze(settings.sqlite_path if job.include_database else None, snapshot,
                   settings.media_dir if job.include_blobs else None, frozen)
            if cancelled():
                raise Cancelled()
            size = write_archive(part, job.format, database=snapshot if job.include_database else None,
                                 media_dir=frozen if job.include_blobs else None,
                                 schema_version=self.host.schema_version(), version=_version(),
                                 created_at_ms=job.started_at_ms or self.host.clock.now_ms(),
                                 progress=progress, cancelled=cancelled)
            with self.lock:
                if cancelled():
                    raise Cancelled()
                os.replace(part, self.archive_path(job))
            return size
        finally:
            for path in (snapshot, frozen, part):
                discard(path)
            self.cancelled.discard(job.job_id)

    def status(self) -> dict[str, Any]:
        settings = self.host.settings
        db_bytes = sum(Path(str(settings.sqlite_path) + s).stat().st_size
                       for s in ("", "-wal") if Path(str(settings.sqlite_path) + s).exists())
        last = self.last()
        return {"database_path": str(settings.sqlite_path), "jobs_dir": str(self.dir), "database_bytes": db_bytes,
                "media_bytes": tree_bytes(settings.media_dir), "last_job": last.to_json() if last else None}


_services_lock = threading.Lock()


def jobs_of(host: Any) -> BackupJobs:
    """The host's backup jobs (made, and their worker started, on first use)."""
    with _services_lock:
        jobs = host.services.get(SERVICE)
        if jobs is None:
            jobs = host.services[SERVICE] = BackupJobs(host)
        return jobs


def _version() -> str:
    from svc_host import __version__

    return __version__


def valid_job_id(job_id: str) -> bool:
    return len(job_id) == _ID_LENGTH and all(c in "0123456789abcdef" for c in job_id)
