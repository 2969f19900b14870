"""The command bus: any thread posts, the UI thread runs the handlers."""
from __future__ import annotations

import logging
import queue
from typing import Any, Callable

log = logging.getLogger("svc_host.display")


class DisplayBus:
    """Thread-safe commands from any thread to handlers on the UI thread.

    ``post(kind, **payload)`` may be called from any thread and never blocks. Handlers
    registered with ``subscribe(kind, handler)`` run on the UI thread, in order; a
    handler that raises is logged and the next command still runs.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[str, dict]] = queue.SimpleQueue()
        self._handlers: dict[str, list[Callable[..., Any]]] = {}
        self._trigger: Callable[[], Any] | None = None

    def post(self, kind: str, **payload: Any) -> None:
        self._queue.put((kind, payload))
        trigger = self._trigger
        if trigger is not None:
            trigger()

    def subscribe(self, kind: str, handler: Callable[..., Any]) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def subscriptions(self) -> dict[str, list[Callable[..., Any]]]:
        """A copy of every subscription now (UI thread), for :meth:`restore`."""
        return {kind: list(handlers) for kind, handlers in self._handlers.items()}

    def restore(self, saved: dict[str, list[Callable[..., Any]]]) -> None:
        """Go back to the subscriptions of :meth:`subscriptions` (UI thread): what was subscribed
        since (a compositor taken down) no longer runs."""
        self._handlers = {kind: list(handlers) for kind, handlers in saved.items()}

    def bind(self, trigger: Callable[[], Any]) -> None:
        """Called on the UI thread with a Kivy ``Clock`` trigger that calls :meth:`drain`."""
        self._trigger = trigger
        if not self._queue.empty():
            trigger()

    def drain(self, *_args: Any) -> int:
        """Run every queued command (UI thread). Returns how many ran."""
        count = 0
        while True:
            try:
                kind, payload = self._queue.get_nowait()
            except queue.Empty:
                return count
            count += 1
            for handler in list(self._handlers.get(kind, ())):
                try:
                    handler(**payload)
                except Exception:  # a bad command must not stop the canvas
                    log.exception("display bus: handler for %r failed", kind)
