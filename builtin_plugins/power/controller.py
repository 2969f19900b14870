"""The ``DISPLAY_POWER`` service: the display's power state and the worker that switches the panel.

The schedule and the manual override are settings (``power_schedule``, ``power_override``):
they are in backups and survive restarts. The state is computed from them and the host clock
on every read (:meth:`PowerService.status`), so a read is never stale. A worker thread
(``display-power``) looks once a second (and at once after a change event ``display_power``)
whether the state changed; when it did, it publishes ``canvas_blank`` (the canvas goes dark or
redraws) and runs the backend's command. Commands run only on that thread, with a timeout:
a hung ``cec-client`` delays the next command, never the canvas or a request.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from pony import orm

from builtin_plugins.power import schedule as sched
from builtin_plugins.power.backends import Backend, BackendError
from hookspecs.services import BLANK_TOPIC, EVENTS, SETTINGS, require, service
from svc_host.kit.services import display_zone, publish

log = logging.getLogger(__name__)

SCHEDULE_KEY = "power_schedule"
OVERRIDE_KEY = "power_override"
TOPIC = "display_power"  # published by the routes after their commit
POLL_SECONDS = 1.0


def effective(schedule: list[dict[str, Any]], override: dict[str, Any] | None, now_ms: int,
              zone: Any) -> dict[str, Any]:
    """``{state, reason, next_change_at_ms, override}`` at ``now_ms`` (an expired override is gone)."""
    if override is not None and override.get("until_ms") is not None and override["until_ms"] <= now_ms:
        override = None
    scheduled = "on" if sched.scheduled_on(schedule, now_ms, zone) else "off"
    if override is None:
        return {"state": scheduled, "reason": "schedule" if schedule else "default",
                "next_change_at_ms": sched.next_change_ms(schedule, now_ms, zone), "override": None}
    until = override.get("until_ms")
    if until is None:
        change = None
    elif ("on" if sched.scheduled_on(schedule, until, zone) else "off") != override["state"]:
        change = until
    else:
        change = sched.next_change_ms(schedule, until, zone)
    return {"state": override["state"], "reason": "manual", "next_change_at_ms": change,
            "override": {"state": override["state"], "until_ms": until}}


class PowerService:
    """``host.services[DISPLAY_POWER]`` and ``host.services[CANVAS_BLANK]``."""

    def __init__(self, host: Any, backend: Backend, available: bool):
        self.host = host
        self.backend = backend
        self.backend_available = available
        self.panel_state = "unknown"
        self._applied: str | None = None  # the state the backend was last asked for
        self._blank = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsubscribe: Any = None

    # ------------------------------------------------------------------ stored state
    def stored(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The stored schedule and override (none without the settings plugin: always on)."""
        settings = service(self.host, SETTINGS)
        if settings is None:
            return [], None
        with orm.db_session:
            return list(settings.get(SCHEDULE_KEY) or []), settings.get(OVERRIDE_KEY) or None

    def now(self) -> int:
        return self.host.clock.now_ms()

    def status(self, schedule: list[dict[str, Any]] | None = None,
               override: dict[str, Any] | None = None, *, stored: bool = True) -> dict[str, Any]:
        """The ``GET /v1/display/power`` body (from the stored settings unless given)."""
        if stored:
            schedule, override = self.stored()
        body = effective(schedule or [], override, self.now(), display_zone(self.host))
        return {**body, "backend": self.backend.name, "backend_available": self.backend_available,
                "panel_state": self.panel_state, "schedule": schedule or []}

    def save_schedule(self, schedule: list[dict[str, Any]]) -> dict[str, Any]:
        """Store a validated schedule (inside the caller's ``db_session``); the new status."""
        settings = require(self.host, SETTINGS)
        settings.set(SCHEDULE_KEY, schedule)
        override = settings.get(OVERRIDE_KEY) or None
        return self.status(schedule, override, stored=False)

    def save_override(self, state: str, until_ms: int | None, explicit: bool) -> dict[str, Any]:
        """Store an override (``auto`` drops it) inside the caller's ``db_session``; the new status.

        Without ``until_ms`` it lasts until the schedule's next change (indefinitely without one)."""
        settings = require(self.host, SETTINGS)
        schedule = list(settings.get(SCHEDULE_KEY) or [])
        if state == "auto":
            settings.delete(OVERRIDE_KEY)
            return self.status(schedule, None, stored=False)
        if not explicit:
            until_ms = sched.next_change_ms(schedule, self.now(), display_zone(self.host))
        override = {"state": state, "until_ms": until_ms}
        settings.set(OVERRIDE_KEY, override)
        return self.status(schedule, override, stored=False)

    # ------------------------------------------------------------------ the canvas
    def blank(self) -> bool:
        """True while the canvas must be dark (the ``CANVAS_BLANK`` service). Before the worker's
        first look (the canvas starting) it reads the state once, so that a display started
        outside its opening hours never draws a frame."""
        if self._applied is None:
            try:
                return self.state() == "off"
            except Exception:  # noqa: BLE001  the worker decides a moment later
                log.exception("display power: reading the state failed")
        return self._blank

    def state(self) -> str:
        """``on`` or ``off`` now (the health field)."""
        return self.status()["state"]

    # ------------------------------------------------------------------ the worker
    def start(self) -> None:
        events = service(self.host, EVENTS)
        if events is not None:
            self._unsubscribe = events.subscribe(lambda topic: self._wake.set() if topic == TOPIC else None)
        self._thread = threading.Thread(target=self._run, name="display-power", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception:  # noqa: BLE001  the worker must outlive a bad read (a closing database)
                log.exception("display power: checking the state failed")
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    def step(self) -> None:
        """Compare the state with what was applied; on a change blank or redraw the canvas, then switch."""
        state = self.state()
        if state == self._applied:
            return
        self._applied = state
        if self._blank != (state == "off"):
            self._blank = state == "off"
            publish(self.host, BLANK_TOPIC)
        if self.backend.name == "none":
            return
        try:
            self.panel_state = self.backend.apply(state == "on")
        except BackendError as exc:
            self.panel_state = "unknown"
            log.warning("display power: backend %s could not switch the panel %s: %s", self.backend.name,
                        state, exc)
