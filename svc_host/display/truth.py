"""What the screen shows, told truthfully (CONTRACT "What the screen shows"): the one owner of
the rule "skip, don't blank" and of the record the REST side reads.

The compositor makes one :class:`ScreenTruth` and every layer reaches it through its stage:

- ``stage.showable(kind, rows)`` (UI thread): the rows a layer may show now. A row whose type no
  loaded plugin provides (its plugin disabled, missing or failed to load: ``type_unavailable``)
  or whose renderer is held back after repeated failures is left out; a renderer that failed
  fewer than :data:`HOLD_AFTER` times in a row is tried again at its row's next turn. The rows
  given are remembered per layer: the ``screen`` ones make ``skipped``.
- ``stage.report_failure(kind, type_id, row_id, step, exc)``: a renderer raised (prepare, build,
  a later frame's ``tick``, a ticker's ``build_items``). Logged once with its traceback, naming the
  plugin; again as one line at the 2nd, the :data:`HOLD_AFTER`-th and every power-of-two failure
  in a row, never once a cycle forever. From the :data:`HOLD_AFTER`-th it is held back for
  :data:`HOLD_SECONDS` of frame time, doubling to :data:`MAX_HOLD_SECONDS`; a change of the row
  (a fix of its config) ends the hold at once.
- ``stage.report_shown(kind, type_id, row_id, whole=False)``: what a renderer built is on screen
  (``whole``: it stayed its whole turn, a slide's dwell). Its failure record is cleared when it
  stayed its turn, or :data:`HEALTHY_SECONDS` of frames went by without another failure.
- ``stage.report_current(row, since_ms=None)``: the slide on screen (None: nothing can be shown),
  since ``since_ms`` (a change scheduled for its instant: displays in step) or now.

:meth:`ScreenTruth.snapshot` (any thread: the REST side) is ``{state, current, skipped, failing}``,
swapped whole under a lock each time it changes; REST never touches a Kivy object and the canvas
never waits for REST. A change of state, skipped or failing publishes the ``display_screen``
change event (the plugin states file follows it: a plugin whose renderer fails is ``degraded``).
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from hookspecs.services import SCREEN_TOPIC as TOPIC

log = logging.getLogger("svc_host.display")

TYPE_FIELDS = {"screen": "screen_type", "overlay": "overlay_type", "ticker": "ticker_type"}
HOLD_AFTER = 3  # failures in a row before the renderer is held back
HOLD_SECONDS = 30.0  # the first hold, frame time; doubles each failure after it
MAX_HOLD_SECONDS = 600.0
HEALTHY_SECONDS = 5.0  # frames on screen without a failure that clear a failure record
MESSAGE_CHARS = 300


@dataclass
class Failure:
    """One row's renderer failing now: consecutive failures, since when, held back until when."""

    kind: str
    type_id: str
    plugin: str
    row_id: Any
    message: str
    count: int
    since_ms: int
    row_key: str | None = None  # the row as it failed: a changed row is tried again at once
    hold_until: float = 0.0  # frame time
    healthy_at: float | None = None  # frame time at which it counts as working again


def row_key(row: dict) -> str:
    try:
        return json.dumps(row, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(row)


def describe_exception(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


class ScreenTruth:
    """The failure record, the skip rule and the published report of one canvas (module doc).

    ``unavailable(kind, type_id)`` says why rows of a type cannot be drawn at all (None: they
    can); ``owner_of(kind, type_id)`` names the plugin of a registered type; ``elapsed()`` is the
    canvas's frame time; ``publish(topic)`` sends a change event."""

    def __init__(self, unavailable: Callable[[str, str], str | None], elapsed: Callable[[], float],
                 now_ms: Callable[[], int], publish: Callable[[str], None] | None = None,
                 owner_of: Callable[[str, str], str | None] = lambda _kind, _type_id: None):
        self.unavailable = unavailable
        self.owner_of = owner_of
        self.elapsed = elapsed
        self.known: dict[str, dict[str, str]] = {}  # kind -> type -> the plugin that registered it once
        self.not_loaded: dict[str, str] = {}  # plugin -> why it is not loaded (disabled, failed)
        self.now_ms = now_ms
        self._publish = publish
        self.failures: dict[tuple[str, Any], Failure] = {}  # (kind, row id) -> its failure
        self.rows: dict[str, tuple[str, list[dict]]] = {}  # layer id -> (kind, the rows it goes through)
        self.current: dict | None = None  # {"screen_id", "screen_type", "since_ms"}
        self.reported = False  # the slides said what they show (else: starting)
        self.off = False  # dark (display power)
        self._lock = threading.Lock()
        self._report: dict[str, Any] = {"state": "starting", "current": None, "skipped": [], "failing": []}
        self._degraded: dict[str, str] = {}

    # ------------------------------------------------------------------ the rule (UI thread)
    def remember(self, path: Path, registered: dict[str, dict[str, str]], not_loaded: dict[str, str]) -> None:
        """Learn which plugin provides which type from ``path`` (the types of earlier runs) and
        ``registered`` (this run's), and write them back (0600), so a type whose plugin is not
        loaded now is named with its plugin; ``not_loaded``: plugin -> why (disabled, failed)."""
        try:
            known = json.loads(path.read_text())
            known = {kind: {str(t): str(p) for t, p in types.items()} for kind, types in known.items()
                     if isinstance(types, dict)} if isinstance(known, dict) else {}
        except (OSError, ValueError, AttributeError):
            known = {}
        for kind, types in registered.items():
            known.setdefault(kind, {}).update(types)
        self.known, self.not_loaded = known, dict(not_loaded)
        try:
            write_private(path, json.dumps(known, sort_keys=True))
        except OSError as exc:
            log.warning("display: %s not written: %s", path, exc)

    def missing(self, kind: str, type_id: str) -> str:
        """Why a type no loaded plugin registers is unavailable, naming its plugin when an earlier
        run knew it."""
        plugin = self.known.get(kind, {}).get(type_id)
        if plugin is None:
            return f"no loaded plugin provides the {kind} type {type_id!r}"
        why = self.not_loaded.get(plugin, "not installed")
        return f"its plugin {plugin!r} is not loaded ({why})"

    def showable(self, layer_id: str, kind: str, rows: Iterable[dict]) -> list[dict]:
        rows = list(rows)
        self.rows[layer_id] = (kind, rows)
        now = self.elapsed()
        field = TYPE_FIELDS.get(kind, "")
        keep = []
        for row in rows:
            if self.unavailable(kind, str(row.get(field, ""))) is not None:
                continue
            failure = self.failures.get((kind, row.get("id")))
            if failure is not None and failure.hold_until > now:
                if failure.row_key == row_key(row):
                    continue
                failure.hold_until = 0.0  # the row changed (a fix?): tried again now
            keep.append(row)
        self._refresh()
        return keep

    def failed(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException,
               row: dict | None = None) -> None:
        plugin = self.owner_of(kind, type_id) or "unknown"
        message = describe_exception(exc)
        key = (kind, row_id)
        failure = self.failures.get(key)
        if failure is None or failure.type_id != type_id:
            failure = self.failures[key] = Failure(kind, type_id, plugin, row_id, message, 0, self.now_ms())
        failure.count += 1
        failure.message = message
        failure.healthy_at = None
        if row is None:
            row = self._row(kind, row_id)
        failure.row_key = row_key(row) if row is not None else None
        hold = 0.0
        if failure.count >= HOLD_AFTER:
            hold = min(MAX_HOLD_SECONDS, HOLD_SECONDS * 2 ** (failure.count - HOLD_AFTER))
            failure.hold_until = self.elapsed() + hold
        count = failure.count
        if count == 1 or count == 2 or count == HOLD_AFTER or count & (count - 1) == 0:
            first = count == 1
            log.error("display: %s renderer %r of plugin %r failed (%s, row %r): %s; skipped%s%s",
                      kind, type_id, plugin, step, row_id, message,
                      "" if first else f" ({count} times in a row)",
                      f"; not tried again for {hold:.0f} s" if hold else "",
                      exc_info=(type(exc), exc, exc.__traceback__) if first else None)
        self._refresh()

    def shown(self, kind: str, type_id: str, row_id: Any, whole: bool = False) -> None:
        failure = self.failures.get((kind, row_id))
        if failure is None:
            return
        if whole:
            self._recovered(failure)
        elif failure.healthy_at is None:
            failure.healthy_at = self.elapsed() + HEALTHY_SECONDS

    def frame(self) -> None:
        """Per frame: the records whose renderer drew :data:`HEALTHY_SECONDS` without failing go."""
        now = self.elapsed()
        for failure in [f for f in self.failures.values() if f.healthy_at is not None and f.healthy_at <= now]:
            self._recovered(failure)

    def _recovered(self, failure: Failure) -> None:
        if self.failures.pop((failure.kind, failure.row_id), None) is not None:
            log.info("display: %s renderer %r of plugin %r works again (row %r)", failure.kind, failure.type_id,
                     failure.plugin, failure.row_id)
            self._refresh()

    def showing(self, row: dict | None, since_ms: int | None = None) -> None:
        """The slide on screen (None: none can be shown); ``since_ms``: the instant its change was
        scheduled for (displays in step), else now."""
        self.reported = True
        if row is None:
            self.current = None
        elif self.current is None or self.current["screen_id"] != row.get("id"):
            self.current = {"screen_id": row.get("id"), "screen_type": row.get("screen_type"),
                            "since_ms": self.now_ms() if since_ms is None else int(since_ms)}
        self._refresh()

    def dark(self, off: bool) -> None:
        self.off = off
        self._refresh()

    def _row(self, kind: str, row_id: Any) -> dict | None:
        for row_kind, rows in self.rows.values():
            if row_kind == kind:
                for row in rows:
                    if row.get("id") == row_id:
                        return row
        return None

    # ------------------------------------------------------------------ the report
    def skipped(self) -> list[dict[str, Any]]:
        """The slides of the program that cannot be shown now, with why."""
        items, seen = [], set()
        for kind, rows in self.rows.values():
            if kind != "screen":
                continue
            for row in rows:
                screen_id, type_id = row.get("id"), str(row.get("screen_type", ""))
                if screen_id in seen or (self.current is not None and self.current["screen_id"] == screen_id):
                    continue  # the slide on screen is not skipped (one that failed before is tried again)
                why = self.unavailable("screen", type_id)
                failure = self.failures.get(("screen", screen_id))
                if why is not None:
                    items.append({"screen_id": screen_id, "screen_type": type_id, "reason": "type_unavailable",
                                  "message": why})
                elif failure is not None:
                    items.append({"screen_id": screen_id, "screen_type": type_id, "reason": "renderer_failed",
                                  "message": failure.message})
                else:
                    continue
                seen.add(screen_id)
        return items

    def failing(self) -> list[dict[str, Any]]:
        """The renderers failing now, one item per (kind, type): the newest message, the most
        failures in a row of its rows, since the first of them."""
        by_type: dict[tuple[str, str], dict[str, Any]] = {}
        for failure in self.failures.values():
            item = by_type.get((failure.kind, failure.type_id))
            if item is None:
                by_type[(failure.kind, failure.type_id)] = {
                    "kind": failure.kind, "type": failure.type_id, "plugin": failure.plugin,
                    "message": failure.message, "count": failure.count, "since_ms": failure.since_ms}
                continue
            item["count"] = max(item["count"], failure.count)
            item["since_ms"] = min(item["since_ms"], failure.since_ms)
        return sorted(by_type.values(), key=lambda i: (i["kind"], i["type"]))

    def _prune(self) -> None:
        """A failing row that left every layer's rows (disabled, deleted) is no longer failing."""
        present: dict[str, set] = {}
        for kind, rows in self.rows.values():
            present.setdefault(kind, set()).update(row.get("id") for row in rows)
        for key in [k for k, f in self.failures.items() if f.kind in present and f.row_id not in present[f.kind]]:
            del self.failures[key]

    def _refresh(self) -> None:
        self._prune()
        if self.off:
            state = "off"
        elif self.current is not None:
            state = "showing"
        elif self.reported:
            state = "nothing_to_show"
        else:
            state = "starting"
        report = {"state": state, "current": dict(self.current) if self.current else None,
                  "skipped": self.skipped(), "failing": self.failing()}
        degraded: dict[str, str] = {}
        for item in report["failing"]:
            degraded.setdefault(item["plugin"], f"its {item['kind']} renderer {item['type']!r} is failing: "
                                                f"{item['message']}")
        with self._lock:
            before, self._report, self._degraded = self._report, report, degraded
        if self._publish is not None and _shape(before) != _shape(report):
            try:
                self._publish(TOPIC)
            except Exception:  # noqa: BLE001  the screen goes on
                log.exception("display: publishing %s failed", TOPIC)

    def explain(self) -> list[str]:
        """What the nothing-to-show card says: why each group of the program's slides is not shown."""
        slides = [row for kind, rows in self.rows.values() if kind == "screen" for row in rows]
        groups: dict[str, int] = {}
        for item in self.skipped():
            if item["reason"] == "type_unavailable":
                why = item["message"]
            else:
                failure = self.failures.get(("screen", item["screen_id"]))
                plugin = failure.plugin if failure is not None else "unknown"
                why = f"the renderer {item['screen_type']!r} of plugin {plugin!r} fails ({item['message']})"
            groups[why] = groups.get(why, 0) + 1
        lines = [f"{count} slide{' is' if count == 1 else 's are'} skipped: "
                 f"{why if count == 1 or not why.startswith('its ') else 'their ' + why[4:]}"
                 for why, count in groups.items()]
        rest = len(slides) - sum(groups.values())
        if rest > 0:
            lines.append(f"{rest} slide{' has' if rest == 1 else 's have'} no content to show yet")
        if not slides:
            lines.append("no slide is enabled")
        return lines

    def snapshot(self) -> dict[str, Any]:
        """``GET /v1/display/screen``'s body (any thread)."""
        with self._lock:
            return json.loads(json.dumps(self._report))

    def degraded(self) -> dict[str, str]:
        """Plugin -> why it is degraded (a renderer of it is failing now) (any thread)."""
        with self._lock:
            return dict(self._degraded)


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``, mode 0600 (through a temporary file in its folder)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _shape(report: dict[str, Any]) -> Any:
    """What a listener cares about: the state, the slide, which rows are skipped, which renderers fail."""
    current = report["current"] or {}
    return (report["state"], current.get("screen_id"),
            tuple((i["screen_id"], i["reason"]) for i in report["skipped"]),
            tuple((i["kind"], i["type"], i["plugin"]) for i in report["failing"]))

