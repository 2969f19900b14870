"""Loading and time: the compositor's one loader thread, its timers on frame time and the layers'
due reloads.

A mixin of :class:`svc_host.display.compositor.Compositor`. Layers are **loaded** on the loader
thread (a layer asks its owners' services there, never the UI thread) and what they loaded is
**applied** on the UI thread together with the display preferences; when those change every
layer is loaded again and applied with ``restyle=True``. A layer is reloaded when a change event
it follows comes (:meth:`Loading.changed`), when its state goes stale (``Layer.due_ms``) and on
the periodic refresh. The layers' timers (``Stage.after``) run on the frame time (the sum of the
frames' ``dt``)."""
from __future__ import annotations

import heapq
import logging
from typing import Any, Callable, Iterable

from hookspecs.render import Preferences
from svc_host.kit.services import preferences
from svc_host.display.compositor.stage import LayerEntry, Loaded

log = logging.getLogger("svc_host.display")

MAX_DUE_SECONDS = 86400.0


class Loading:
    """The compositor's loading, due reloads and timers (see the module doc)."""

    def refresh(self, layer_ids: Iterable[str] | None = None) -> None:
        """Load the preferences and the given layers (all when None) again, then apply them."""
        self._pending = True
        self._wanted |= {entry.spec.id for entry in self.live()} if layer_ids is None else set(layer_ids)
        self._start_load()

    def changed(self, topic: str) -> None:
        """A change event (UI thread): reload the layers that follow ``topic`` (and the preferences)."""
        self.refresh([entry.spec.id for entry in self.live() if topic in entry.spec.topics])

    def load(self, layer_ids: Iterable[str] | None = None) -> tuple[Preferences, list[Loaded]]:
        """One load (loader thread, or a test's thread): the preferences and ``(entry, state, error)``
        of each wanted layer; every layer when the preferences changed."""
        known = self.preferences
        try:
            prefs = preferences(self.host)
        except Exception:  # noqa: BLE001  keep drawing with what we have
            log.exception("display: reading the display preferences failed")
            prefs = known
        wanted = set(layer_ids) if layer_ids is not None else {entry.spec.id for entry in self.live()}
        if prefs != known:
            wanted = {entry.spec.id for entry in self.live()}
        results = []
        for entry in self.live():
            if entry.spec.id not in wanted:
                continue
            try:
                results.append((entry, entry.layer.load(), None))
            except Exception as exc:  # noqa: BLE001  reported on the UI thread
                results.append((entry, None, exc))
        return prefs, results

    def _start_load(self) -> None:
        if self._loading or not self._pending or self._loader is None or self.paused:
            return
        wanted, self._wanted, self._pending = self._wanted, set(), False
        self._loading = True
        self.submit(lambda: self.load(wanted), self._loaded)

    def _loaded(self, result: Any, error: BaseException | None) -> None:
        self._loading = False
        try:
            if error is not None or result is None:
                log.warning("display: loading the layers failed: %s: %s", type(error).__name__, error)
                return
            prefs, results = result
            restyle = prefs != self.preferences
            self.preferences = prefs
            for entry, state, exc in results:
                if entry.failed:
                    continue
                if exc is not None:
                    log.error("display: layer %r of plugin %r failed to load: %s: %s; it keeps what it shows",
                              entry.spec.id, entry.plugin, type(exc).__name__, exc,
                              exc_info=(type(exc), exc, exc.__traceback__))
                    continue
                self.apply(entry, state, restyle)
            self.relayout()
        finally:
            self._start_load()  # what was asked for meanwhile

    def apply(self, entry: LayerEntry, state: Any, restyle: bool) -> None:
        """UI thread: hand ``state`` to the layer; schedule its reload when the state goes stale."""
        try:
            entry.layer.apply(state, restyle)
        except Exception as exc:  # noqa: BLE001
            self.fail(entry, "apply", exc)
            return
        entry.state = state
        self._schedule_due(entry, state)

    def _schedule_due(self, entry: LayerEntry, state: Any) -> None:
        from kivy.clock import Clock

        if entry.due_event is not None:
            entry.due_event.cancel()
            entry.due_event = None
        if self.paused:  # a load finished after dark: resume loads every layer again
            return
        due = self._call(entry, "due_ms", state)
        if due is None:
            return
        delay = min(MAX_DUE_SECONDS, max(0.05, (due - self.host.clock.now_ms()) / 1000.0))
        layer_id = entry.spec.id
        entry.due_event = Clock.schedule_once(lambda _dt: self.refresh([layer_id]), delay)

    def submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        """Run ``job`` on the loader thread, then ``done(result, error)`` on the UI thread."""
        from kivy.clock import Clock

        def run() -> None:
            try:
                result, error = job(), None
            except Exception as exc:  # contained: handed back to the UI thread
                result, error = None, exc
            Clock.schedule_once(lambda _dt: finished(result, error), 0)

        def finished(result: Any, error: BaseException | None) -> None:
            self.in_flight -= 1
            done(result, error)

        if self._loader is None:
            return
        try:
            self._loader.submit(run)
            self.in_flight += 1
        except RuntimeError:  # shut down
            pass

    def after(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` on the first frame ``seconds`` of frame time from now; returns its cancel."""
        self._sequence += 1
        timer = [self.elapsed + max(0.0, seconds), self._sequence, callback]
        heapq.heappush(self._timers, timer)

        def cancel() -> None:
            timer[2] = None

        return cancel

    def _run_timers(self) -> None:
        while self._timers and self._timers[0][0] <= self.elapsed:
            callback = heapq.heappop(self._timers)[2]
            if callback is not None:
                callback()

