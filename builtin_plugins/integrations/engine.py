"""The collector engine: integration rows, the schedule, isolated runs, backoff, telemetry.

- Every registered integration type has one integration row (id = type id), created
  disabled at startup.
- A loop thread drives a ``schedule.Scheduler``: each enabled integration is due every
  ``poll_seconds``; due runs wait in a pending set and start when one of
  ``pool_size`` worker slots is free.
- Each run happens in its own daemon thread with a deadline (``run_timeout``). A run past
  its deadline is *abandoned*: its cancellation flag is set (its HTTP client stops at the
  next network step), the failure is recorded and backed off, and its slot is given back,
  so a stuck collector can block only itself. The integration is not started again until
  the abandoned thread has ended.
- A failure increments ``consecutive_failures`` and sets ``next_retry_at`` (exponential
  backoff with jitter, :func:`backoff_ms`); scheduled runs before that time are skipped.
- :meth:`Engine.run_now` runs one collection synchronously (tests, ``POST .../run``).
"""

from __future__ import annotations

import logging
import random
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import schedule
from pony import orm

from hookspecs.collect import Cancelled, CollectorError, HttpFailure
from svc_host.kit.network import HttpClient
from svc_host.kit.security import SecretBox
from builtin_plugins.integrations.telemetry import IntegrationTelemetry
from hookspecs import collect
from hookspecs.services import ACCOUNTS
from svc_host.kit.services import events_batch, publish

CATALOG_TOPIC = "catalog"  # the change event of a successful collection (content rows changed)
log = logging.getLogger(__name__)

DEFAULT_POLL_SECONDS = 900
MIN_POLL_SECONDS = 10
MAX_POLL_SECONDS = 7 * 24 * 3600
BACKOFF_FLOOR_SECONDS = 30
BACKOFF_CAP_SECONDS = 6 * 3600
LOOP_INTERVAL = 0.5


def backoff_ms(
    failures: int, base_seconds: float = BACKOFF_FLOOR_SECONDS, rng: random.Random | None = None
) -> int:
    """Delay before retrying after ``failures`` consecutive failures, in milliseconds.

    ``max(30 s, base) * 2**failures``, capped at 6 h, with "equal jitter": a uniform draw
    between half the delay and the full delay, so displays that fail together do not retry
    together.
    """
    failures = max(1, int(failures))
    delay = min(BACKOFF_CAP_SECONDS, max(BACKOFF_FLOOR_SECONDS, base_seconds) * (2 ** min(failures, 20)))
    draw = (rng or random).uniform(delay / 2, delay)
    return int(draw * 1000)


@dataclass
class RunResult:
    integration_id: str
    status: str  # ok, failed, timeout, skipped, busy, unknown
    message: str = ""
    duration_ms: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "integration_id": self.integration_id,
            "status": self.status,
            "message": self.message,
            "duration_ms": self.duration_ms,
        }


@dataclass
class _Run:
    integration_id: str
    integration_type: str
    force: bool
    uses_slot: bool
    started: float = field(default_factory=time.monotonic)
    deadline: float = 0.0
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    abandoned: bool = False
    slot_released: bool = False
    result: RunResult | None = None
    thread: threading.Thread | None = None


class CollectorContext(collect.CollectorContext):
    """The engine's implementation of :class:`hookspecs.collect.CollectorContext`.

    - ``host``, ``db``, ``blobs``: the host and its storage (open ``orm.db_session`` blocks
      only around writes, never around network calls);
    - ``integration_id``, ``integration_type``, ``config`` (decoded ``config_json``),
      ``secrets`` (decrypted, by name), ``accounts`` (linked accounts), ``force`` (a manual
      run: per-row schedules such as RSS feed poll times are ignored);
    - ``http``: the shared :class:`HttpClient`, bound to this run's cancellation;
    - ``base_url(default)``, ``log(message, channel)``, ``now_ms()``, ``backoff_ms(n, base)``,
      ``checkpoint()`` (raises when the run was abandoned).
    """

    def __init__(
        self,
        engine: "Engine",
        run: _Run,
        config: dict,
        secrets: dict[str, str],
        accounts: list[dict[str, Any]],
    ):
        self.engine = engine
        self.host = engine.host
        self.db = engine.host.db
        self.blobs = engine.host.blobs
        self.integration_id = run.integration_id
        self.integration_type = run.integration_type
        self.config = config
        self.secrets = secrets
        self.accounts = accounts
        self.force = run.force
        self._run = run
        self.http = engine.http.bound(run.cancel.is_set)
        self.summary = ""

    def base_url(self, default: str) -> str:
        value = self.config.get("baseUrl")
        return (value if isinstance(value, str) and value else default).rstrip("/")

    def secret(self, name: str) -> str:
        value = self.secrets.get(name)
        if not value:
            raise CollectorError(f"the {name} secret is not configured")
        return value

    def setting(self, key: str, what: str = "") -> Any:
        value = self.config.get(key)
        if value is None or value == "":
            raise CollectorError(f"config_json.{key}{f' ({what})' if what else ''} is not set")
        return value

    def log(self, message: str, channel: str = "info") -> None:
        self.engine.telemetry.add(channel, self.engine.scrub(message, self.secrets), self.integration_type)

    def now_ms(self) -> int:
        return self.host.clock.now_ms()

    def backoff_ms(self, failures: int, base_seconds: float = BACKOFF_FLOOR_SECONDS) -> int:
        return backoff_ms(failures, base_seconds)

    def checkpoint(self) -> None:
        if self._run.cancel.is_set():
            raise Cancelled("run abandoned")

    def account_token(self, account_id: str) -> dict[str, Any] | None:
        accounts = self.host.services.get(ACCOUNTS)
        return accounts.access_token(account_id) if accounts is not None else None


class Engine:
    """Schedules and runs collectors; ``host.services[INTEGRATIONS]``."""

    def __init__(self, host: Any, pool_size: int = 4, run_timeout: float = 60.0):
        self.host = host
        self.pool_size = pool_size
        self.run_timeout = run_timeout
        self.telemetry = IntegrationTelemetry(host.clock.now_ms)
        self._undecryptable_reported: set[tuple[str, str]] = set()
        self.secret_box = SecretBox(host.settings.data_dir)
        version = getattr(host.plugins.info.get("integrations"), "version", "") or "dev"
        self.http = HttpClient(
            user_agent=f"svc-display/{version} (signage display; collectors)"
        )
        self.scheduler = schedule.Scheduler()
        self._schedule_lock = threading.Lock()  # schedule.Scheduler is not thread-safe
        self._lock = threading.RLock()
        self._runs: dict[str, _Run] = {}
        self._pending: list[str] = []
        self._slots_used = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- types and rows ------------------------------------------------------------------
    def types(self) -> dict[str, Any]:
        return dict(self.host.registries.integration_types.types)

    def type_of(self, integration_type: str) -> Any:
        return self.host.registries.integration_types.get(integration_type)

    def ensure_rows(self) -> None:
        """One disabled row per registered type that has none yet (one transaction for all: a
        host starts with a row per type, ~25). The rows there are read in one query: a ``get``
        per type flushed the previous insert first, one statement after the other."""
        with orm.db_session:
            types = self.types()
            have = set(orm.select(row.id for row in self.host.db.Integration if row.id in list(types)))
            for type_id, itype in types.items():
                if type_id not in have:
                    self._add_row(type_id, type_id, itype, dict(itype.example_config), enabled=False)

    def ensure_row(self, integration_id: str, integration_type: str, config: dict[str, Any],
                   enabled: bool = False) -> bool:
        """Add the row ``integration_id`` of ``integration_type`` unless it exists (True when
        added); scheduled at once when enabled and the engine runs. An existing row is left
        as the operator made it."""
        itype = self.type_of(integration_type)
        if itype is None:
            raise ValueError(f"integration type {integration_type!r} is not registered")
        with orm.db_session:
            if self.host.db.Integration.get(id=integration_id) is not None:
                return False
            self._add_row(integration_id, integration_type, itype, config, enabled)
        if enabled and self.running:
            self.reschedule(integration_id)
        return True

    def _add_row(self, integration_id: str, integration_type: str, itype: Any, config: dict[str, Any],
                 enabled: bool) -> None:
        default = itype.config_schema.get("properties", {}).get("pollSeconds", {}) or {}
        self.host.db.Integration(
            id=integration_id,
            integration_type=integration_type,
            enabled=enabled,
            poll_seconds=int(default.get("default", DEFAULT_POLL_SECONDS)),
            config_json=dict(config),
            created_at_ms=self.host.clock.now_ms(),
        )

    def run_soon(self, integration_id: str) -> None:
        """Queue a run of an enabled integration now (nothing when the engine does not run)."""
        if self.running:
            self.reschedule(integration_id, run_soon=True)

    # ---- secrets ---------------------------------------------------------------------------
    def secret_names(self, integration_id: str) -> set[str]:
        """Names of stored secrets that decrypt with this display's key (needs a db_session).

        A secret encrypted with another display's key (a backup restored here) reads as not
        configured; one telemetry line per secret says so (CONTRACT "Maintenance").
        """
        names = set()
        for row in self.host.db.IntegrationSecret.select(lambda s: s.integration_id == integration_id):
            if self.secret_box.decrypt(row.ciphertext) is not None:
                names.add(row.name)
            elif (integration_id, row.name) not in self._undecryptable_reported:
                self._undecryptable_reported.add((integration_id, row.name))
                self.telemetry.add("warning", f"secret {row.name!r} of integration {integration_id!r} cannot be "
                                              "decrypted with this display's key (restored from another display?): "
                                              "enter it again", integration_id)
        return names

    def set_secret(self, integration_id: str, name: str, value: str | None) -> None:
        """Store (or with ``None``/empty, delete) one secret; needs a db_session."""
        db = self.host.db
        row = db.IntegrationSecret.get(integration_id=integration_id, name=name)
        if not value:
            if row is not None:
                row.delete()
            return
        cipher = self.secret_box.encrypt(value)
        now = self.host.clock.now_ms()
        if row is None:
            db.IntegrationSecret(
                integration_id=integration_id, name=name, ciphertext=cipher, updated_at_ms=now
            )
        else:
            row.set(ciphertext=cipher, updated_at_ms=now)

    def load_secrets(self, integration_id: str) -> dict[str, str]:
        with orm.db_session:
            rows = [
                (r.name, r.ciphertext)
                for r in self.host.db.IntegrationSecret.select(lambda s: s.integration_id == integration_id)
            ]
        values = {}
        for name, cipher in rows:
            plain = self.secret_box.decrypt(cipher)
            if plain is not None:
                values[name] = plain
        return values

    @staticmethod
    def scrub(message: str, secrets: dict[str, str]) -> str:
        text = str(message)
        for value in secrets.values():
            if value and len(value) >= 4:
                text = text.replace(value, "***")
        return text

    # ---- the loop --------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        with orm.db_session:
            ids = [row.id for row in self.host.db.Integration.select(lambda i: i.enabled)]
        for integration_id in ids:
            self.reschedule(integration_id, run_soon=True)
        self._thread = threading.Thread(target=self._loop, name="integrations-scheduler", daemon=True)
        self._thread.start()
        self.telemetry.add(
            "info", f"engine started ({self.pool_size} workers, {len(ids)} enabled integrations)"
        )

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            run.cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        for run in runs:
            if run.thread is not None:
                run.thread.join(max(0.0, timeout / max(1, len(runs))))
        with self._schedule_lock:
            self.scheduler.clear()
        self.http.close()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with self._schedule_lock:
                    due = [job for job in self.scheduler.jobs if job.should_run]
                for job in due:  # job.run() only queues a run (submit) and reschedules the job
                    with self._schedule_lock:
                        job.run()
                self._watchdog()
                self._dispatch_pending()
            except Exception:  # noqa: BLE001 - the loop must survive anything
                log.exception("integrations scheduler loop error")
            self._stop.wait(LOOP_INTERVAL)

    def reschedule(self, integration_id: str, run_soon: bool = False) -> None:
        """(Re)create the schedule job of one integration from its row."""
        with self._schedule_lock:
            self.scheduler.clear(integration_id)
        with orm.db_session:
            row = self.host.db.Integration.get(id=integration_id)
            if row is None or not row.enabled or self.type_of(row.integration_type) is None:
                return
            poll = max(1, row.poll_seconds)  # the API enforces MIN_POLL_SECONDS; tests may store less
        with self._schedule_lock:
            self.scheduler.every(poll).seconds.do(self.submit, integration_id).tag(integration_id)
        if run_soon:
            self.submit(integration_id)

    def submit(self, integration_id: str) -> None:
        """Queue a scheduled run; it starts when a worker slot is free."""
        with self._lock:
            if integration_id not in self._pending:
                self._pending.append(integration_id)
        if not self.running:
            self._dispatch_pending()

    def _dispatch_pending(self) -> None:
        with self._lock:
            while self._pending and self._slots_used < self.pool_size:
                integration_id = self._pending.pop(0)
                if integration_id in self._runs:
                    continue  # still running (or abandoned and not yet ended): skip this turn
                self._start(integration_id, force=False, uses_slot=True)

    def _watchdog(self) -> None:
        now = time.monotonic()
        with self._lock:
            late = [
                run
                for run in self._runs.values()
                if not run.abandoned and run.deadline and now > run.deadline
            ]
        for run in late:
            self._abandon(run)

    # ---- runs ------------------------------------------------------------------------------
    def run_now(self, integration_id: str, force: bool = True, timeout: float | None = None) -> RunResult:
        """Run one collection and wait for it (at most the run timeout). Never raises.

        A run of the same integration already under way (the schedule's, or another operator's)
        is joined: its result is the answer, since it fetches just now what a new run would (a
        forced run starts anew only when the joined one was skipped). Only a run already
        abandoned (timed out, its thread not yet ended) answers ``busy``.
        """
        with self._lock:
            current = self._runs.get(integration_id)
        if current is not None and not current.abandoned:
            joined = self._wait(current)
            if not (force and joined.status == "skipped"):
                return joined
        with self._lock:
            if integration_id in self._runs:
                return RunResult(integration_id, "busy", "a run of this integration is in progress")
            run = self._start(integration_id, force=force, uses_slot=False, timeout=timeout)
        if run is None:
            return RunResult(integration_id, "unknown", "no such integration")
        return self._wait(run)

    def _wait(self, run: _Run) -> RunResult:
        if not run.done.wait(max(0.0, run.deadline - time.monotonic()) + 1.0):
            self._abandon(run)
        run.done.wait(5.0)
        return run.result or RunResult(run.integration_id, "timeout", "the run did not finish")

    def _start(
        self, integration_id: str, force: bool, uses_slot: bool, timeout: float | None = None
    ) -> _Run | None:
        with orm.db_session:
            row = self.host.db.Integration.get(id=integration_id)
            if row is None or self.type_of(row.integration_type) is None:
                return None
            integration_type = row.integration_type
        run = _Run(integration_id, integration_type, force, uses_slot)
        run.deadline = run.started + (timeout or self.run_timeout)
        with self._lock:
            self._runs[integration_id] = run
            if uses_slot:
                self._slots_used += 1
        run.thread = threading.Thread(
            target=self._execute, args=(run,), name=f"collector-{integration_id}", daemon=True
        )
        run.thread.start()
        return run

    def _release(self, run: _Run) -> None:
        with self._lock:
            if run.uses_slot and not run.slot_released:
                run.slot_released = True
                self._slots_used -= 1

    def _abandon(self, run: _Run) -> None:
        with self._lock:
            if run.abandoned or run.done.is_set():
                return
            run.abandoned = True
        run.cancel.set()
        seconds = run.deadline - run.started
        result = RunResult(
            run.integration_id,
            "timeout",
            f"timed out after {seconds:g} s",
            int((time.monotonic() - run.started) * 1000),
        )
        self._record(run, result)
        run.result = result
        self._release(run)
        run.done.set()

    def _execute(self, run: _Run) -> None:
        result: RunResult
        secrets: dict[str, str] = {}
        try:
            skip = self._should_skip(run)
            if skip is not None:
                result = RunResult(run.integration_id, "skipped", skip)
            else:
                itype = self.type_of(run.integration_type)
                config, accounts = self._load_row(run.integration_id)
                secrets = self.load_secrets(run.integration_id)
                context = CollectorContext(self, run, config, secrets, accounts)
                # what the collector wrote shows on the canvas once its run succeeded (its
                # own db_sessions committed by then); a failed run publishes nothing
                with events_batch(self.host):
                    outcome = itype.collect(context) if itype.collect is not None else None
                    publish(self.host, CATALOG_TOPIC)
                summary = context.summary or (
                    f"{outcome} rows" if isinstance(outcome, int) else str(outcome or "done")
                )
                result = RunResult(run.integration_id, "ok", self.scrub(summary, secrets))
        except Cancelled:
            result = RunResult(run.integration_id, "timeout", "cancelled")
        except (CollectorError, HttpFailure) as exc:
            result = RunResult(run.integration_id, "failed", self.scrub(str(exc), secrets))
        except Exception as exc:  # noqa: BLE001 - a collector bug must never escape its run
            trace = "".join(traceback.format_exception(exc))
            log.warning("collector %s raised: %s", run.integration_type, self.scrub(trace, secrets))
            result = RunResult(
                run.integration_id, "failed", self.scrub(f"{type(exc).__name__}: {exc}", secrets)
            )
        result.duration_ms = int((time.monotonic() - run.started) * 1000)
        try:
            with self._lock:
                abandoned = run.abandoned
            if abandoned:
                self.telemetry.add(
                    "warning",
                    f"abandoned run ended ({result.status}: {result.message})",
                    run.integration_type,
                )
            else:
                if result.status != "skipped":
                    self._record(run, result)
                run.result = result
        finally:
            with self._lock:
                self._runs.pop(run.integration_id, None)
            self._release(run)
            run.done.set()

    def _should_skip(self, run: _Run) -> str | None:
        with orm.db_session:
            row = self.host.db.Integration.get(id=run.integration_id)
            if row is None:
                return "integration removed"
            if run.force:
                return None
            if not row.enabled:
                return "integration disabled"
            if row.next_retry_at and row.next_retry_at > self.host.clock.now_ms():
                return "backing off until next_retry_at"
        return None

    def _load_row(self, integration_id: str) -> tuple[dict, list[dict[str, Any]]]:
        with orm.db_session:
            row = self.host.db.Integration[integration_id]
            config = dict(row.config_json or {})
            accounts = [
                {"id": a.id, "account_type": a.account_type, "label": a.label}
                for a in self.host.db.IntegrationAccount.select(lambda a: a.integration_id == integration_id)
            ]
        return config, accounts

    def _record(self, run: _Run, result: RunResult) -> None:
        now = self.host.clock.now_ms()
        try:
            with orm.db_session:
                row = self.host.db.Integration.get(id=run.integration_id)
                if row is None:
                    return
                row.last_run_at_ms = now
                if result.status == "ok":
                    row.set(
                        consecutive_failures=0, next_retry_at=None, last_error=None, last_success_at_ms=now
                    )
                    self.telemetry.add(
                        "info", f"collected: {result.message} ({result.duration_ms} ms)", run.integration_type
                    )
                    return
                failures = row.consecutive_failures + 1
                delay = backoff_ms(failures, row.poll_seconds)
                row.set(
                    consecutive_failures=failures, next_retry_at=now + delay, last_error=result.message[:2000]
                )
            line = f"{result.status}: {result.message}; failure {failures}, retry in {delay // 1000} s"
            self.telemetry.add("error", line, run.integration_type)
            # and on the console, where whoever runs the display looks first (the message is scrubbed)
            log.warning("collector %s (%s) %s", run.integration_id, run.integration_type, line)
        except Exception:  # noqa: BLE001 - e.g. the database closed during shutdown
            log.warning("could not record the run of %s", run.integration_id, exc_info=True)
