"""Change events: write paths say what changed, after it is committed; the canvas listens.

:class:`ChangeBus` is ``host.services[EVENTS]`` (:class:`hookspecs.services.ChangeEvents`).
``publish(topic)`` may be called from any thread. Events published while the calling thread
is inside a *batch* wait for the batch to end: delivered when it ends without an error,
dropped when it fails. :class:`PublishAfterCommit`, a WSGI middleware the host installs
first, opens a batch around every request and adds the topics the route's
``Operation(publishes=...)`` names; the request's ``db_session`` commits when its responder
returns, before the middleware's ``process_response`` runs, so a subscriber that reads the
database then sees the change (Pony has no after-commit hook to do this with). A rolled-back
request (an error answer) publishes nothing.

Elsewhere (collector runs, background sweeps) wrap the ``db_session`` in ``bus.batch()`` or
publish after it ended. Handlers run on the publishing thread and must not block: the
canvas's handler only queues a command for its UI thread.
"""
from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Callable, Iterator

log = logging.getLogger(__name__)


class ChangeBus:
    """Thread-safe publish/subscribe of change topics, with per-thread batches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handlers: list[Callable[[str], None]] = []
        self._local = threading.local()

    def subscribe(self, handler: Callable[[str], None]) -> Callable[[], None]:
        """Call ``handler(topic)`` for every delivered event; returns the unsubscribe function."""
        with self._lock:
            self._handlers.append(handler)

        def unsubscribe() -> None:
            with self._lock:
                if handler in self._handlers:
                    self._handlers.remove(handler)

        return unsubscribe

    def publish(self, topic: str) -> None:
        pending = self._pending()
        if pending is not None:
            if topic not in pending:
                pending.append(topic)
            return
        self._deliver([topic])

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Hold this thread's events until the block ends; deliver them if it raised nothing."""
        outer = self._pending()
        if outer is not None:  # nested: the outermost batch decides
            yield
            return
        self.open()
        ok = False
        try:
            yield
            ok = True
        finally:
            self.close(ok)

    # -- batches driven from outside (the request middleware) ----------------------------------
    def open(self) -> None:
        self._local.pending = []

    def close(self, deliver: bool, extra: tuple[str, ...] | list[str] = ()) -> None:
        pending = self._pending() or []
        self._local.pending = None
        if deliver:
            self._deliver(list(dict.fromkeys([*pending, *extra])))

    def _pending(self) -> list[str] | None:
        return getattr(self._local, "pending", None)

    def _deliver(self, topics: list[str]) -> None:
        with self._lock:
            handlers = list(self._handlers)
        for topic in topics:
            for handler in handlers:
                try:
                    handler(topic)
                except Exception:  # a subscriber's bug must not fail the write that published
                    log.exception("change event %r: a subscriber failed", topic)


class PublishAfterCommit:
    """Falcon middleware: a batch per request, plus the topics of the route's ``Operation``.

    ``process_response`` runs after the responder (and the ``db_session`` around it) returned,
    so everything it delivers is committed; on a failed request nothing is delivered.
    """

    def __init__(self, host: Any, bus: ChangeBus):
        self.host = host
        self.bus = bus

    def process_request(self, req: Any, resp: Any) -> None:
        self.bus.open()

    def process_response(self, req: Any, resp: Any, resource: Any, req_succeeded: bool) -> None:
        operation = self.host.operations.get((req.uri_template, req.method)) if req.uri_template else None
        topics = tuple(getattr(operation, "publishes", ()) or ())
        self.bus.close(req_succeeded and resp.status_code < 400, topics)
