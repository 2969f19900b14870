"""Backup targets and snapshots (spec 4.13, CONTRACT "The controller").

A target is a display the controller pulls backups from on a cron schedule. Its API key
is Fernet-encrypted at rest (the display's :class:`SecretBox`, key file
``controller-secrets.key`` mode 0600 or the OS keyring) and never leaves this module
except in the ``Authorization`` header sent to that display.

A pull creates a job on the display (``POST /v1/display/backup/jobs?format=tgz``), polls
it, streams the archive to ``<data dir>/backups/<target>/`` while hashing it, checks it
with the display's own restore checks (``svc_controller/archive.py``), keeps a snapshot
row, then deletes the oldest snapshots beyond ``retentionCount``. One lock per target: pulls of one target never
overlap; at most ``SVC_CONTROLLER_BACKUP_CONCURRENCY`` pulls (scheduled and manual) run at once.

The download of a pull and the whole of a restore get the proxy's total deadline
(:class:`svc_controller.deadline.Deadline`: ``SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS`` plus the
time the bytes moved so far need at ``MIN_BODY_RATE``), so a display trickling its archive
holds a pull thread no longer than that: the pull is recorded failed in ``lastRun``, a restore
answers 504 ``upstream_timeout``.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import queue
import uuid
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable
from zoneinfo import ZoneInfo

import httpx
from croniter import croniter
from pony import orm

from svc_host.secrets import SecretBox
from svc_controller.archive import ArchiveError, ScratchFailed, archive_kind, verify_archive
from svc_controller.deadline import Deadline
from svc_controller.storage import row, valid_display_id
from svc_controller.targets import TargetPolicy, parse_display_url, pinned_url
from svc_host.http.connection.bodies import MIN_BODY_RATE
from svc_host.http.errors import ApiError, validation_failed
from svc_host.periodic import Periodic

log = logging.getLogger("svc_controller.backups")

DEFAULT_CRON_MINUTES = 2 * 60  # Sunday 02:00
STAGGER_MINUTES = 5
DEFAULT_RETENTION = 7
MAX_ARCHIVE_BYTES = 2 * 1024 ** 3
CHUNK = 1024 * 1024
JOB_POLL_S = 0.5
JOB_WAIT_S = 60 * 60
SECRETS_KEY_FILE = "controller-secrets.key"


class PullError(Exception):
    """A pull that failed; ``str()`` is the message recorded in ``lastRun.error``."""


def valid_cron(expr: str) -> bool:
    return isinstance(expr, str) and len(expr.split()) == 5 and croniter.is_valid(expr)


def default_cron(existing: int) -> str:
    """``0 2 * * 0`` plus 5 minutes for each of ``existing`` targets already in the scope."""
    total = DEFAULT_CRON_MINUTES + STAGGER_MINUTES * existing
    day, minutes = divmod(total, 24 * 60)
    return f"{minutes % 60} {minutes // 60} * * {day % 7}"


def next_run_ms(cron_expr: str, zone: str, after_ms: int) -> int:
    start = dt.datetime.fromtimestamp(after_ms / 1000, ZoneInfo(zone))
    return int(croniter(cron_expr, start).get_next(dt.datetime).timestamp() * 1000)


def iso(ms: int | None, zone: str = "UTC") -> str | None:
    if ms is None:
        return None
    moment = dt.datetime.fromtimestamp(ms / 1000, ZoneInfo(zone))
    text = moment.isoformat(timespec="seconds")
    return text.replace("+00:00", "Z") if zone == "UTC" else text


class Backups:
    def __init__(self, settings: Any, db: orm.Database, clock: Any, policy: TargetPolicy):
        self.settings = settings
        self.db = db
        self.clock = clock
        self.policy = policy
        self.timeout_s = settings.proxy_upstream_timeout_ms / 1000
        self.secrets = SecretBox(settings.data_dir, key_file=SECRETS_KEY_FILE)
        self.root = settings.backups_dir
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        # scheduled and manual pulls together: at most this many at once, the rest wait their turn
        self.slots = threading.BoundedSemaphore(getattr(settings, "backup_concurrency", 4))
        self.running = 0  # pulls under way now (logged at debug, read by tests through the log)
        self._running_guard = threading.Lock()
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)

    # -- rows -------------------------------------------------------------------------
    def target_json(self, target: Any) -> dict:
        last = json.loads(target.last_run_json) if target.last_run_json else None
        base_url, key_configured = target.base_url, bool(target.api_key_encrypted)
        if target.fleet_display_id:
            display = self.db.FleetDisplay.get(id=target.fleet_display_id)
            base_url = display.base_url if display is not None else ""
            key_configured = display is not None and bool(display.api_key_encrypted)
        return {
            "id": target.id,
            "displayId": target.display_id,
            "baseUrl": base_url,
            "cronExpr": target.cron_expr,
            "timezone": target.timezone,
            "retentionCount": target.retention_count,
            "enabled": target.enabled,
            "apiKeyConfigured": key_configured,
            "nextRunAt": iso(target.next_run_at_ms, target.timezone) if target.enabled else None,
            "lastRun": last,
            "fleetDisplayId": target.fleet_display_id or None,
        }

    @staticmethod
    def snapshot_json(snapshot: Any) -> dict:
        return {
            "id": snapshot.id,
            "targetId": snapshot.target.id,
            "createdAt": iso(snapshot.created_at_ms),
            "bytes": snapshot.bytes,
            "sha256": snapshot.sha256,
            "source": snapshot.source,
            "schemaVersion": snapshot.schema_version,
        }

    def targets_in(self, scope: str) -> Iterable[Any]:
        """Targets of ``scope`` (``""``: the one global scope of auth-off; ``user:<id>``)."""
        query = self.db.BackupTarget.select(lambda t: t.scope == scope)
        return query.order_by(lambda t: (t.created_at_ms, t.id))

    def get_target(self, scope: str, target_id: str) -> Any:
        target = row(self.db.BackupTarget, target_id)
        if target is None or target.scope != scope:
            raise ApiError(404, "not_found", "backup target not found")
        return target

    def get_snapshot(self, scope: str, snapshot_id: str) -> Any:
        snapshot = row(self.db.BackupSnapshot, snapshot_id)
        if snapshot is None or snapshot.target.scope != scope:
            raise ApiError(404, "not_found", "backup snapshot not found")
        return snapshot

    def upsert(self, scope: str, body: dict) -> tuple[dict, bool]:
        """Create or update the target of ``body["displayId"]`` in ``scope``; (target, created).
        An absent or null optional field takes its default on a new target and keeps the stored
        value on an update (``apiKey`` excepted: null clears it). ``fleetDisplayId`` makes the
        target follow a display of the fleet registry: its baseUrl and apiKey are read at each pull."""
        fleet_id = body.get("fleetDisplayId")
        body = {**body, "displayId": body.get("displayId") or fleet_id}
        if not body["displayId"]:
            raise validation_failed({"displayId": ["required unless fleetDisplayId is given"]})
        if fleet_id is not None:
            if self.db.FleetDisplay.get(id=fleet_id) is None if valid_display_id(fleet_id) else True:
                raise validation_failed({"fleetDisplayId": ["no display of the fleet has this id"]})
            given = [f for f in ("baseUrl", "apiKey") if body.get(f) is not None]
            if given:
                raise validation_failed({f: ["not with fleetDisplayId (the fleet display's is used)"] for f in given})
        target = self.db.BackupTarget.get(scope=scope, display_id=body["displayId"])
        following = fleet_id is not None or (target is not None and target.fleet_display_id
                                              and "fleetDisplayId" not in body)
        if not following and not body.get("baseUrl") and (target is None or not target.base_url):
            raise validation_failed({"baseUrl": ["required unless fleetDisplayId is given"]})
        now = self.clock.now_ms()
        created = target is None
        if created:
            existing = self.targets_in(scope).count()
            enabled = body.get("enabled")
            target = self.db.BackupTarget(
                id=uuid.uuid4().hex, scope=scope, display_id=body["displayId"], base_url=body.get("baseUrl") or "",
                cron_expr=body.get("cronExpr") or default_cron(existing),
                timezone=body.get("timezone") or self.settings.timezone,
                retention_count=body.get("retentionCount") or DEFAULT_RETENTION,
                enabled=True if enabled is None else enabled, created_at_ms=now)
        else:
            for field, attr in (("baseUrl", "base_url"), ("cronExpr", "cron_expr"), ("timezone", "timezone"),
                                ("retentionCount", "retention_count"), ("enabled", "enabled")):
                if body.get(field) is not None:
                    setattr(target, attr, body[field])
        if "apiKey" in body:
            key = body["apiKey"]
            target.api_key_encrypted = self.secrets.encrypt(key) if key else None
        if "fleetDisplayId" in body:
            target.fleet_display_id = fleet_id
            if fleet_id is not None:
                target.base_url, target.api_key_encrypted = "", None
        target.next_run_at_ms = next_run_ms(target.cron_expr, target.timezone, now) if target.enabled else None
        orm.flush()
        if not created:
            self.prune(target)
        return self.target_json(target), created

    def delete_target(self, scope: str, target_id: str) -> None:
        target = self.get_target(scope, target_id)
        folder = self.root / target.id
        target.delete()
        orm.commit()
        shutil.rmtree(folder, ignore_errors=True)

    def delete_snapshot(self, scope: str, snapshot_id: str) -> None:
        snapshot = self.get_snapshot(scope, snapshot_id)
        path = self.snapshot_path(snapshot)
        snapshot.delete()
        orm.commit()
        path.unlink(missing_ok=True)

    def snapshot_path(self, snapshot: Any) -> Path:
        return self.root / snapshot.target.id / snapshot.file_name

    # -- storing archives -----------------------------------------------------------
    def _lock(self, target_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(target_id, threading.Lock())

    def _store(self, target_id: str, chunks: Iterable[bytes], source: str) -> dict:
        """Write ``chunks`` to a temporary file, verify, keep as a snapshot, apply retention."""
        folder = self.root / target_id
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=".incoming-")
        tmp = Path(tmp_name)
        try:
            digest, size = hashlib.sha256(), 0
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    size += len(chunk)
                    if size > MAX_ARCHIVE_BYTES:
                        raise ArchiveError(f"the archive exceeds {MAX_ARCHIVE_BYTES} bytes", "too_large")
                    digest.update(chunk)
                    handle.write(chunk)
            info = verify_archive(tmp)
            snapshot_id = uuid.uuid4().hex
            file_name = f"{snapshot_id}.{'tar.gz' if info.kind == 'tgz' else 'zip'}"
            os.replace(tmp, folder / file_name)
            try:
                with orm.db_session:
                    target = self.db.BackupTarget.get(id=target_id)
                    if target is None:
                        raise ArchiveError("the backup target was deleted meanwhile", "target_deleted")
                    snapshot = self.db.BackupSnapshot(
                        id=snapshot_id, target=target, created_at_ms=self.clock.now_ms(), bytes=size,
                        sha256=digest.hexdigest(), source=source, schema_version=info.schema_version,
                        file_name=file_name)
                    orm.flush()
                    out = self.snapshot_json(snapshot)
                    self.prune(target)
            except BaseException:
                (folder / file_name).unlink(missing_ok=True)
                raise
            return out
        finally:
            tmp.unlink(missing_ok=True)

    def prune(self, target: Any) -> None:
        """Delete the oldest snapshots beyond ``retentionCount`` (rows, then files)."""
        ordered = target.snapshots.select().order_by(lambda s: (orm.desc(s.created_at_ms), orm.desc(s.id)))[:]
        for old in ordered[target.retention_count:]:
            path = self.snapshot_path(old)
            old.delete()
            path.unlink(missing_ok=True)

    def upload(self, scope: str, target_id: str, stream: BinaryIO, length: int | None) -> dict:
        with orm.db_session:
            self.get_target(scope, target_id)
        if length is not None and length > MAX_ARCHIVE_BYTES:
            raise ApiError(413, "payload_too_large", f"the archive exceeds {MAX_ARCHIVE_BYTES} bytes")

        def chunks() -> Iterable[bytes]:
            while chunk := stream.read(CHUNK):
                yield chunk

        try:
            return self._store(target_id, chunks(), "upload")
        except ArchiveError as exc:
            raise ApiError(400, "invalid_backup_archive", f"the archive does not verify: {exc}", exc.details) from None
        except ScratchFailed as exc:
            raise ApiError(507, "insufficient_storage", str(exc)) from None

    # -- pulls ------------------------------------------------------------------------
    def _display(self, target_id: str) -> tuple[str, str | None, Any]:
        with orm.db_session:
            target = self.db.BackupTarget.get(id=target_id)
            if target is None:
                raise PullError("the backup target was deleted")
            holder = target
            if target.fleet_display_id:
                holder = self.db.FleetDisplay.get(id=target.fleet_display_id)
                if holder is None:
                    raise PullError(f"the fleet display {target.fleet_display_id!r} it follows was removed")
            key = self.secrets.decrypt(holder.api_key_encrypted) if holder.api_key_encrypted else None
            return holder.base_url, key, parse_display_url(holder.base_url, "baseUrl")

    def _client(self, target_id: str) -> tuple[httpx.Client, str]:
        """An httpx client pinned to the target's checked address, and the display's base URL
        (the host name stays in ``Host`` and, through a request hook, in TLS SNI)."""
        _base, key, url = self._display(target_id)
        if key is None:
            raise PullError("no API key is configured for this display")
        address = self.policy.address_for(url.host)
        headers = {"Authorization": f"Bearer {key}", "Host": url.netloc}
        timeout = httpx.Timeout(self.timeout_s)

        def sni(request: httpx.Request) -> None:
            if url.scheme == "https" and address != url.host:
                request.extensions["sni_hostname"] = url.host

        client = httpx.Client(verify=False, timeout=timeout, headers=headers, trust_env=False,
                              follow_redirects=False, event_hooks={"request": [sni]})
        return client, pinned_url(url, address, "")

    def pull(self, target_id: str, source: str = "manual") -> dict:
        """Pull one backup now; the snapshot, or :class:`PullError`. Records ``lastRun`` either way."""
        lock = self._lock(target_id)
        if not lock.acquire(blocking=False):
            raise ApiError(409, "pull_in_progress", "a pull of this target is already running")
        try:
            with self.slots:  # waits for a free slot (SVC_CONTROLLER_BACKUP_CONCURRENCY)
                with self._running_guard:
                    self.running += 1
                    log.info("backup target %s: %s pull starts; %d running", target_id, source, self.running)
                try:
                    return self._pull_recorded(target_id, source)
                finally:
                    with self._running_guard:
                        self.running -= 1
        finally:
            lock.release()

    def _pull_recorded(self, target_id: str, source: str) -> dict:
        started = self.clock.now_ms()
        try:
            snapshot = self._pull_converted(target_id, source)
        except PullError as exc:
            self._record(target_id, started, source, None, str(exc))
            log.warning("backup pull of target %s failed: %s", target_id, exc)
            raise
        self._record(target_id, started, source, snapshot["id"], None)
        log.info("backup pull of target %s: snapshot %s (%d bytes)", target_id, snapshot["id"], snapshot["bytes"])
        return snapshot

    def _pull_converted(self, target_id: str, source: str) -> dict:
        """:meth:`_pull`, every failure a :class:`PullError` saying why."""
        try:
            return self._pull(target_id, source)
        except ApiError as exc:  # the SSRF rule refused the target
            raise PullError(exc.message) from None
        except ArchiveError as exc:
            raise PullError(f"the archive does not verify ({exc.reason}): {exc}") from None
        except ScratchFailed as exc:
            raise PullError(str(exc)) from None
        except TimeoutError:
            raise PullError(f"the display did not send the archive within its deadline ({self.timeout_s:g} s, "
                            f"plus the time its bytes need at {MIN_BODY_RATE // 1024} KiB/s)") from None
        except httpx.TimeoutException:
            raise PullError("the display did not answer in time") from None
        except httpx.HTTPError as exc:
            raise PullError(f"the display is unreachable ({type(exc).__name__})") from None

    def _pull(self, target_id: str, source: str) -> dict:
        client, base = self._client(target_id)
        with client:
            created = client.post(f"{base}/v1/display/backup/jobs", params={"format": "tgz"})
            _expect(created, 202, "creating a backup job")
            job_id = created.json().get("job_id") if _is_json(created) else None
            if not isinstance(job_id, str) or not job_id:
                raise PullError("the display answered without a job_id")
            job_url = f"{base}/v1/display/backup/jobs/{job_id}"
            try:
                deadline = time.monotonic() + JOB_WAIT_S
                while True:
                    status = client.get(job_url)
                    _expect(status, 200, "reading the backup job")
                    state = status.json().get("status") if _is_json(status) else None
                    if state == "ready":
                        break
                    if state == "failed":
                        raise PullError(f"the display's backup job failed: {status.json().get('error')}")
                    if state not in ("pending", "running") or time.monotonic() > deadline:
                        raise PullError(f"the display's backup job is {state!r}")
                    time.sleep(JOB_POLL_S)
                deadline = Deadline(self.timeout_s)
                with client.stream("GET", f"{job_url}/download", timeout=deadline.left()) as download:
                    _expect(download, 200, "downloading the archive")
                    # as they arrive: a chunk size would gather bytes until it is full, and the
                    # deadline would be looked at only then
                    return self._store(target_id, deadline.counted(download.iter_raw()), source)
            finally:
                try:
                    client.delete(job_url)
                except httpx.HTTPError:
                    pass

    def _record(self, target_id: str, started: int, source: str, snapshot_id: str | None,
                error: str | None) -> None:
        with orm.db_session:
            target = self.db.BackupTarget.get(id=target_id)
            if target is None:
                return
            target.last_run_json = json.dumps({
                "startedAt": iso(started), "finishedAt": iso(self.clock.now_ms()), "source": source,
                "status": "failed" if error else "succeeded", "snapshotId": snapshot_id, "error": error,
            })

    # -- restore ------------------------------------------------------------------------
    def restore(self, scope: str, snapshot_id: str) -> tuple[int, bytes, str]:
        """Send the stored archive to the display; (status, body, content type) of its answer."""
        with orm.db_session:
            snapshot = self.get_snapshot(scope, snapshot_id)
            path, target_id = self.snapshot_path(snapshot), snapshot.target.id
        if not path.is_file():
            raise ApiError(404, "not_found", "the stored archive file is missing")
        try:
            client, base = self._client(target_id)
        except PullError as exc:
            raise ApiError(409, "api_key_missing", str(exc)) from None

        deadline = Deadline(self.timeout_s)

        def body() -> Iterable[bytes]:
            with open(path, "rb") as handle:
                while chunk := handle.read(CHUNK):
                    yield chunk

        kind = archive_kind(path)
        headers = {"Content-Type": "application/zip" if kind == "zip" else "application/gzip",
                   "Content-Length": str(path.stat().st_size)}
        try:
            with client, client.stream("POST", f"{base}/v1/display/backup/restore", params={"confirm": "yes"},
                                       content=deadline.counted(body()), headers=headers,
                                       timeout=deadline.left()) as answer:
                content = b"".join(deadline.counted(answer.iter_bytes()))
        except (TimeoutError, httpx.TimeoutException):
            raise ApiError(504, "upstream_timeout", "the display did not answer within the restore's deadline") from None
        except httpx.HTTPError:
            raise ApiError(502, "upstream_unreachable", "the display is unreachable") from None
        return answer.status_code, content, answer.headers.get("content-type", "application/json")

    # -- schedule -------------------------------------------------------------------------
    def due(self, now_ms: int) -> list[str]:
        """Targets whose next run has come: their next run moves on first (so a restart never
        repeats one and a missed run is pulled once), then their ids are returned."""
        ids = []
        with orm.db_session:
            # Several controllers may share one PostgreSQL database: the rows are claimed
            # (SELECT ... FOR UPDATE SKIP LOCKED), so each due run is taken by exactly one; the
            # others skip the locked rows, or see the next run already moved on once committed.
            due = self.db.BackupTarget.select(
                lambda t: t.enabled and t.next_run_at_ms is not None and t.next_run_at_ms <= now_ms)
            for target in due.without_distinct().for_update(skip_locked=True):
                target.next_run_at_ms = next_run_ms(target.cron_expr, target.timezone, now_ms)
                ids.append(target.id)
        return ids


def _is_json(response: httpx.Response) -> bool:
    try:
        return isinstance(response.json(), dict)
    except ValueError:
        return False


def _expect(response: httpx.Response, status: int, doing: str) -> None:
    if response.status_code == status:
        return
    response.read()
    code = response.json().get("code") if _is_json(response) else None
    raise PullError(f"the display answered {response.status_code}{' ' + code if code else ''} when {doing}")


class Scheduler:
    """Claims due runs on a background thread and queues their pulls on
    ``SVC_CONTROLLER_BACKUP_CONCURRENCY`` worker threads (a queued pull is a callable, not a
    thread: 200 due targets are 4 threads and a queue); never two pulls of one target."""

    def __init__(self, backups: Backups, tick_ms: int, now_ms: Callable[[], int]):
        self.backups = backups
        self.tick_s = tick_ms / 1000
        self.now_ms = now_ms
        self._running: set[str] = set()
        self._guard = threading.Lock()
        self._ticks = Periodic("backup-scheduler", self.tick_s, self.run_due, join_timeout=5)
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._workers = [threading.Thread(target=self._work, name=f"backup-pull-{n}", daemon=True)
                         for n in range(getattr(backups.settings, "backup_concurrency", 4))]

    def start(self) -> None:
        for worker in self._workers:
            worker.start()
        self._ticks.start()

    def stop(self) -> None:
        self._ticks.stop()
        for _ in self._workers:
            self._queue.put(None)

    def _work(self) -> None:
        while (target_id := self._queue.get()) is not None:
            self._pull(target_id)

    def run_due(self) -> None:
        for target_id in self.backups.due(self.now_ms()):
            with self._guard:
                if target_id in self._running:
                    log.info("backup of target %s still running; this run is skipped", target_id)
                    continue
                self._running.add(target_id)
            self._queue.put(target_id)

    def _pull(self, target_id: str) -> None:
        try:
            self.backups.pull(target_id, "scheduled")
        except (PullError, ApiError):
            pass  # recorded in lastRun; tried again at the next scheduled time
        except Exception:
            log.exception("backup pull of target %s crashed", target_id)
        finally:
            with self._guard:
                self._running.discard(target_id)
