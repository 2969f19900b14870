"""The play recorder (``host.services[PLAYS]``): the open plays, and the thread that writes them.

The layers call :meth:`PlayRecorder.replace` / :meth:`PlayRecorder.show` on the UI thread; a
play that ends is put on a queue (never a database call on the UI thread) and the writer thread
takes what is queued, waits :data:`FLUSH_SECONDS` for more, and inserts the batch in one
transaction; a batch that fails (the database locked or unreachable) is kept and tried again with
the next one, up to :data:`MAX_PENDING` plays (past that the oldest are dropped, counted in
``lost``). The same thread keeps the table bounded: rows that started more than
:data:`KEEP_DAYS` ago go (at start and every :data:`PRUNE_SECONDS`), and past the row cap the
oldest rows go first (after each batch that took the table over it).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from pony import orm

from svc_host.kit.collecting import bulk_insert

log = logging.getLogger("builtin_plugins.plays")

TABLE = "svc_play"
COLUMNS = ["kind", "screen_id", "screen_type", "label", "started_ms", "ended_ms", "complete"]
KINDS = ("slide", "alert", "overlay")
KEEP_DAYS = 90
DAY_MS = 86_400_000
FLUSH_SECONDS = 0.5
BATCH = 1000
PRUNE_SECONDS = 600.0
MAX_PENDING = 50_000
RETRY_SECONDS = 1.0
ID_MAX, TYPE_MAX, LABEL_MAX = 100, 100, 200
_STOP = object()


def insert_plays(db: Any, rows: list[tuple]) -> None:
    """Insert ``rows`` (tuples in :data:`COLUMNS` order) in one transaction (a ``db_session`` of
    its own): the first through Pony, which opens the transaction it commits, the rest in one
    statement batch (:func:`svc_host.kit.collecting.bulk_insert`)."""
    if not rows:
        return
    with orm.db_session:
        db.insert(TABLE, **dict(zip(COLUMNS, rows[0])))
        bulk_insert(db, TABLE, COLUMNS, rows[1:])


def prune(db: Any, now_ms: int, max_rows: int) -> int:
    """Drop the rows that started more than :data:`KEEP_DAYS` ago, then the oldest beyond
    ``max_rows``; the rows left."""
    with orm.db_session:
        db.execute(f"DELETE FROM {TABLE} WHERE started_ms < $cutoff", {"cutoff": now_ms - KEEP_DAYS * DAY_MS})
        count = db.select(f"SELECT COUNT(*) FROM {TABLE}")[0]
        if count > max_rows:
            _drop_oldest(db, count - max_rows)
            count = max_rows
        return int(count)


def _drop_oldest(db: Any, excess: int) -> None:
    """Delete the ``excess`` oldest rows (by when they started, then insertion), inside a db_session."""
    rows = db.select(f"SELECT started_ms, id FROM {TABLE} ORDER BY started_ms, id LIMIT $n OFFSET $skip",
                     {"n": 1, "skip": excess - 1})
    if rows:
        started, last = rows[0]
        db.execute(f"DELETE FROM {TABLE} WHERE started_ms < $s OR (started_ms = $s AND id <= $i)",
                   {"s": started, "i": last})


def _text(value: Any, limit: int) -> str:
    return "" if value is None else str(value)[:limit]


class PlayRecorder:
    """The open plays per ``(kind, id)`` and the writer thread (see the module doc)."""

    def __init__(self, host: Any, max_rows: int, flush_seconds: float = FLUSH_SECONDS):
        self.host = host
        self.max_rows = max_rows
        self.flush_seconds = flush_seconds
        self._open: dict[tuple[str, str], tuple] = {}  # (kind, id) -> (kind, id, type, label, started_ms)
        self._dark = False  # suspended: what is open is not on screen
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._count = 0  # rows in the table (as this process knows it)
        self._pending: list[tuple] = []  # plays of batches that failed, tried again with the next
        self.failures = 0
        self.lost = 0

    # ------------------------------------------------------------------ the layers (UI thread)
    def _now(self) -> int:
        return int(self.host.clock.now_ms())  # looked up each time: a driven canvas replaces the clock

    def replace(self, kind: str, items: list[dict[str, Any]], complete: bool, at_ms: int | None = None) -> None:
        now = self._now() if at_ms is None else int(at_ms)  # at_ms: a change scheduled for its instant
        with self._lock:
            for key in [key for key in self._open if key[0] == kind]:
                self._end(key, now, complete)
            for item in items:
                self._begin(kind, item, now)

    def show(self, kind: str, items: list[dict[str, Any]], complete: bool = True) -> None:
        now = self._now()
        wanted = {_text(item.get("id"), ID_MAX): item for item in items}
        with self._lock:
            for key in [key for key in self._open if key[0] == kind and key[1] not in wanted]:
                self._end(key, now, complete)
            for item_id, item in wanted.items():
                if (kind, item_id) not in self._open:
                    self._begin(kind, item, now)

    def suspend(self) -> None:
        """Dark: every open play ends now, cut short. The layers' changes while dark (a navigation,
        an alert that came) still change what is open, but nothing plays: no play ends or is written
        until :meth:`resume` starts again what is open then."""
        now = self._now()
        with self._lock:
            if self._dark:
                return
            for kind, item_id, item_type, label, started in self._open.values():
                self._queue.put((kind, item_id, item_type, label, started, max(started, now), False))
            self._dark = True

    def resume(self) -> None:
        now = self._now()
        with self._lock:
            if not self._dark:
                return
            self._dark = False
            self._open = {key: (*play[:4], now) for key, play in self._open.items()}

    def open_plays(self) -> list[dict[str, Any]]:
        """What is on screen now (plays not ended yet), oldest first; nothing while dark."""
        with self._lock:
            plays = [] if self._dark else sorted(self._open.values(), key=lambda p: p[4])
        return [{"kind": p[0], "screen_id": p[1], "screen_type": p[2], "label": p[3], "started_ms": p[4]}
                for p in plays]

    def _begin(self, kind: str, item: dict[str, Any], now: int) -> None:
        item_id = _text(item.get("id"), ID_MAX)
        if (kind, item_id) in self._open:
            self._end((kind, item_id), now, False)
        self._open[(kind, item_id)] = (kind, item_id, _text(item.get("type"), TYPE_MAX),
                                       _text(item.get("label"), LABEL_MAX), now)

    def _end(self, key: tuple[str, str], now: int, complete: bool) -> None:
        kind, item_id, item_type, label, started = self._open.pop(key)
        if not self._dark:
            self._queue.put((kind, item_id, item_type, label, started, max(started, now), bool(complete)))

    # ------------------------------------------------------------------ the writer thread
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="plays-writer", daemon=True)
        self._thread.start()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every play ended so far is written (tests, backups); False on timeout."""
        if self._thread is None or not self._thread.is_alive():
            return False
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def stop(self) -> None:
        """Shutdown: the plays on screen end now (cut short), everything queued is written."""
        with self._lock:
            now = self._now()
            for key in list(self._open):
                self._end(key, now, False)
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(30)

    def _run(self) -> None:
        self._guarded(self._prune)  # at start: what aged or passed the cap while the display was off
        last_prune = time.monotonic()
        stopping = False
        waiters: list[threading.Event] = []
        while not stopping:
            try:  # a failed batch is tried again within a second
                first = self._queue.get(timeout=RETRY_SECONDS if self._pending else PRUNE_SECONDS)
            except queue.Empty:
                first = None
            batch = []
            deadline = time.monotonic() + self.flush_seconds
            item = first
            while item is not None:
                if item is _STOP:
                    stopping = True
                elif isinstance(item, threading.Event):
                    waiters.append(item)
                else:
                    batch.append(item)
                if stopping or waiters or len(batch) >= BATCH:
                    item = self._next_now()
                    if item is None:
                        break
                    continue
                try:
                    item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    item = None
            self._write(batch)
            if time.monotonic() - last_prune >= PRUNE_SECONDS:
                last_prune = time.monotonic()
                self._guarded(self._prune)
            if not self._pending:  # a flush returns once what was ended before it is written
                for waiter in waiters:
                    waiter.set()
                waiters = []

    def _prune(self) -> None:
        self._count = prune(self.host.db, self._now(), self.max_rows)

    def _next_now(self) -> Any:
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            return None

    def _write(self, batch: list[tuple]) -> None:
        batch = self._pending + batch
        if not batch:
            return
        self._pending = []

        def write() -> None:
            try:
                insert_plays(self.host.db, batch)
            except Exception:
                self._pending = batch[-MAX_PENDING:]
                self.lost += len(batch) - len(self._pending)
                raise
            self._count += len(batch)
            if self._count > self.max_rows:
                with orm.db_session:
                    _drop_oldest(self.host.db, self._count - self.max_rows)
                self._count = self.max_rows

        self._guarded(write)

    def _guarded(self, step: Any) -> None:
        try:
            step()
        except Exception:  # noqa: BLE001  logged; the canvas never waits on it
            self.failures += 1
            log.exception("plays: writing or pruning the plays failed")

