"""The slides layer (Kivy-only, loaded when a canvas starts): the slide program.

``load`` (loader thread) asks the screens service for the enabled slides and the curator
for its members and program controls (``hookspecs.services.curated``); ``apply`` (UI
thread) keeps the program going:

- eligible: enabled, ``frequency_weight`` of at least one appearance, a type with a
  renderer, ``screens_enabled``;
- the next slide is the pick of a weighted round-robin spread around each cycle (:mod:`hookspecs.weights`,
  the one meaning of ``frequency_weight``, shared with the ticker): each cycle shows every
  eligible slide as many times as its weight (rounded, 1 to 10), spread over the cycle;
  ``dwell_seconds`` (default 15, 1 s to a day) on screen, counted in frame time
  (``Stage.after``);
- a slide's renderer ``prepare`` runs on the loader thread; no content or a failure skips
  it at once (the next pick is tried; none left: the slide on screen stays, or the stage is
  cleared when that one left the program, and the program tries again after 5 s or at the
  next change);
- the new slide crossfades in under the old one (0.6 s), so no frame shows an empty stage;
  the slide on screen picked again (a one-slide program, or a heavy slide's turn) with the
  same content stays as it is: no crossfade into itself, only its dwell starts again;
- a change to the slide on screen, or to the display preferences, re-renders it; a
  removed or disabled slide is replaced at once (its change event reloads this layer);
- navigation: ``forward`` to the next slide of the history (after a ``back``) or the next
  pick, ``back`` to the previous one (50 entries).

Program telemetry lines go to ``PROGRAM_TELEMETRY`` when its plugin runs.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from hookspecs.render import Stage
from hookspecs.services import CURATOR, PROGRAM_TELEMETRY, SCREENS, curated, service
from hookspecs.weights import SmoothRoundRobin, appearances
from svc_host.display.kit import layer_box

log = logging.getLogger("builtin_plugins.screens")

RETRY_SECONDS = 5.0
CROSSFADE_SECONDS = 0.6
HISTORY = 50
DEFAULT_DWELL = 15.0


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)


@dataclass
class SlidesState:
    rows: list[dict] = field(default_factory=list)
    due_ms: int | None = None


def _lift_background(widget: Any) -> tuple | None:
    """Take the slide's backdrop (the kit's ``themed_slide`` names it ``background``) out of the
    slide; its colours, or None for a slide that draws its own picture edge to edge. Decoration
    falls between the two (docs/display.md, "Composition: the rule")."""
    backdrop = getattr(widget, "background", None)
    colors = getattr(backdrop, "colors", None)
    if not colors:
        return None
    if backdrop.parent is widget:
        widget.remove_widget(backdrop)
    return tuple(colors)


class SlidesLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.rows: list[dict] = []
        self.current: dict | None = None  # {"row", "widget", "data"}
        self.robin = SmoothRoundRobin()
        self.history: list[str] = []
        self.history_pos = -1
        self._generation = 0
        self._loading = False
        self._program: list[dict] | None = None
        self._cancel_dwell: Callable[[], None] | None = None
        self._cancel_retry: Callable[[], None] | None = None
        self._fading: list[Any] = []  # slides fading out over the one on screen, oldest first

    @cached_property
    def widget(self) -> Any:
        return layer_box(self._follow_size, fill=True)

    def _follow_size(self, *_args: Any) -> None:
        """The free area changed size with a slide on screen (an overlay came or went, the window
        resized): the slide is built again at its new size from the content it shows (no prepare,
        no crossfade, no telemetry line; its dwell goes on), so it lays out in the area it has."""
        current = self.current
        size = (int(self.widget.width), int(self.widget.height))
        if current is None or current.get("size") in (None, size) or min(size) <= 0:
            return
        current["size"] = size
        row = current["row"]
        type_id = row.get("screen_type", "")
        try:
            widget = self.stage.renderer("screen", type_id)(self.stage.context("screen", row).with_data(current["data"]))
        except Exception as exc:  # noqa: BLE001  the slide on screen stays as it was built
            self.stage.report_failure("screen", type_id, row.get("id"), "build", exc)
            return
        if widget is None:
            return
        old, box = current["widget"], self.widget
        current["background"] = _lift_background(widget)
        widget.size_hint = (None, None)
        widget.pos, widget.size = box.pos, box.size
        index = box.children.index(old) if old.parent is box else 0
        if old.parent is not None:
            old.parent.remove_widget(old)
        self._dispose(old)
        box.add_widget(widget, index=index)
        current["widget"] = widget
        self.stage.content_changed()

    @property
    def opaque(self) -> bool:
        """A slide that draws its own picture edge to edge (no background the compositor paints)."""
        return self.current is not None and self.current.get("background") is None

    @property
    def background(self) -> tuple | None:
        """The colours of the slide's background (lifted out of it, :func:`_lift_background`): the
        compositor paints them under the decoration layer, the slide draws only its content."""
        return self.current.get("background") if self.current is not None else None

    # ------------------------------------------------------------------ loader thread
    def load(self) -> SlidesState:
        screens = service(self.host, SCREENS)
        rows, controls = curated(self.host, "screens", screens.enabled() if screens is not None else [])
        curator = service(self.host, CURATOR)
        return SlidesState(rows=[dict(r) for r in rows] if controls["screens_enabled"] else [],
                           due_ms=curator.next_change_ms() if curator is not None else None)

    def due_ms(self, state: SlidesState) -> int | None:
        return state.due_ms

    # ------------------------------------------------------------------ UI thread
    def apply(self, state: SlidesState, restyle: bool) -> None:
        self.rows = state.rows
        eligible = self.eligible()
        changed = eligible != self._program
        self._program = eligible
        if changed:
            self.robin.forget([r.get("id") for r in eligible])
        if changed and eligible:
            self._record([self._line(r) for r in eligible], "program_changed")
        if self.current is None:
            if eligible and not self._loading:
                self._cancel_timers()
                self.advance("start")
            return
        current = next((r for r in eligible if r.get("id") == self.current["row"].get("id")), None)
        if current is None:
            self.advance("content_changed") if eligible else self._clear_slide()
        elif current != self.current["row"]:
            self.show(current, "content_changed")
        elif restyle:
            self.show(current, "settings_changed", redraw=True)

    def eligible(self) -> list[dict]:
        return [row for row in self.rows
                if row.get("enabled", True) and self._weight(row) > 0
                and self.stage.renderer("screen", row.get("screen_type", "")) is not None]

    def _dwell(self, row: dict) -> float:
        return min(86400.0, max(1.0, _number(row.get("dwell_seconds"), DEFAULT_DWELL)))

    def _line(self, row: dict) -> dict:
        return {"id": row.get("id"), "screen_type": row.get("screen_type"), "dwell_seconds": self._dwell(row)}

    @staticmethod
    def _weight(row: dict) -> int:
        return appearances(row.get("frequency_weight", 1))

    def _choose(self, exclude: set[str]) -> dict | None:
        """The next slide of the round-robin among the eligible ones not in ``exclude``."""
        candidates = {r.get("id"): r for r in self.eligible() if r.get("id") not in exclude}
        last = self.current["row"].get("id") if self.current else None
        picked = self.robin.pick([(row_id, self._weight(row)) for row_id, row in candidates.items()], last)
        return candidates.get(picked)

    def advance(self, reason: str, direction: str = "forward") -> None:
        """Move the slide program (dwell elapsed, navigation, content change); while the slides
        have no room (a full-screen alert), the program waits."""
        if self.stage.area.area <= 0:
            self._cancel_timers()
            self._cancel_retry = self.stage.after(RETRY_SECONDS, lambda: self.advance(reason, direction))
            return
        by_id = {r.get("id"): r for r in self.eligible()}
        if direction == "back":
            pos = self.history_pos - 1
            while pos >= 0 and self.history[pos] not in by_id:
                pos -= 1
            if pos >= 0:
                self.history_pos = pos
                self.show(by_id[self.history[pos]], reason, from_history=True)
            return
        if reason.startswith("navigation") and self.history_pos < len(self.history) - 1:
            pos = self.history_pos + 1
            if self.history[pos] in by_id:
                self.history_pos = pos
                self.show(by_id[self.history[pos]], reason, from_history=True)
                return
        # navigating forward asks for another slide; the dwell takes the round-robin's pick
        navigating = self.current is not None and reason.startswith("navigation") and len(by_id) > 1
        row = self._choose({self.current["row"].get("id")} if navigating else set())
        if row is None:
            self._clear_slide()
            return
        self.show(row, reason)

    def navigate(self, direction: str) -> None:
        self.advance(f"navigation_{direction}", direction)

    def show(self, row: dict, reason: str, from_history: bool = False, tried: set[str] | None = None,
             redraw: bool = False) -> None:
        """Prepare ``row`` on the loader thread, then crossfade it in; skip it without content.
        ``redraw``: build it again even when it is on screen with the same content (new settings)."""
        tried = set(tried or ()) | {row.get("id")}
        self._generation += 1
        generation = self._generation
        self._cancel_timers()
        type_id = row.get("screen_type", "")
        renderer = self.stage.renderer("screen", type_id)
        context = self.stage.context("screen", row)
        self._loading = True

        def done(data: Any, error: BaseException | None) -> None:
            if generation != self._generation:
                return
            self._loading = False
            if all(r.get("id") != row.get("id") for r in self.eligible()):
                self._skip(reason, tried)  # left the program while it was prepared
                return
            if error is not None:
                self.stage.report_failure("screen", type_id, row.get("id"), "prepare", error)
            elif data is None:
                log.info("display: screen %r has no content; skipped", row.get("id"))
            elif not redraw and self._same(row, data):
                self._keep(row, reason, from_history)
                return
            else:
                try:
                    widget = renderer(context.with_data(data))
                except Exception as exc:  # noqa: BLE001  contained: the next slide is tried
                    self.stage.report_failure("screen", type_id, row.get("id"), "build", exc)
                else:
                    if widget is not None:
                        self._put_slide(row, widget, data, reason, from_history, context.size)
                        return
            self._skip(reason, tried)

        self.stage.submit(lambda: self.stage.prepare(renderer, context), done)

    def _same(self, row: dict, data: Any) -> bool:
        """True when ``row`` with ``data`` is exactly what is on screen (no crossfade into itself)."""
        current = self.current
        if current is None or current["row"] != row:
            return False
        try:
            return bool(current.get("data") == data)
        except Exception:  # noqa: BLE001  data that cannot be compared is new content
            return False

    def _skip(self, reason: str, tried: set[str]) -> None:
        """The slide just tried cannot be shown: the next pick at once; none left: keep the
        slide on screen (cleared when it left the program) and try again later."""
        following = self._choose(tried)
        if following is not None:
            self.show(following, reason, tried=tried)
            return
        if self.current is not None and \
                all(r.get("id") != self.current["row"].get("id") for r in self.eligible()):
            self._clear_slide()
        self._schedule_retry()

    def _keep(self, row: dict, reason: str, from_history: bool) -> None:
        """The slide on screen was picked again with the same content: it stays, its dwell restarts."""
        self.current["row"] = row
        self._shown(row, reason, from_history)

    def _put_slide(self, row: dict, widget: Any, data: Any, reason: str, from_history: bool,
                   size: tuple[int, int] | None = None) -> None:
        box = self.widget
        widget.size_hint = (None, None)
        widget.pos, widget.size = box.pos, box.size
        old = self.current["widget"] if self.current else None
        # The new slide goes underneath the old one at full opacity; the old one fades out
        # on top of it, so no frame shows an empty stage between the two.
        box.add_widget(widget, index=len(box.children))
        if old is not None and old not in self._fading:
            self._fading.append(old)  # faded out by tick, in frame time
        self.current = {"row": row, "widget": widget, "data": data, "size": size,  # size: built at
                        "background": _lift_background(widget)}
        self._shown(row, reason, from_history)
        self._follow_size()  # the area changed while it was prepared
        self.stage.content_changed()  # decoration leaves the new slide's text and images alone

    def _shown(self, row: dict, reason: str, from_history: bool) -> None:
        again = self.history[-1:] == [row.get("id")] and self.history_pos == len(self.history) - 1
        if not from_history and not again:
            del self.history[self.history_pos + 1:]
            self.history.append(row.get("id"))
            del self.history[:-HISTORY]
            self.history_pos = len(self.history) - 1
        self._record([self._line(row)], reason)
        self._cancel_dwell = self.stage.after(self._dwell(row), lambda: self.advance("dwell"))

    def _clear_slide(self) -> None:
        self._cancel_timers()
        if self.current is not None:
            widget = self.current["widget"]
            if widget.parent is not None:
                widget.parent.remove_widget(widget)
            self._dispose(widget)
            self.current = None
            self._record([], "idle")
            self.stage.content_changed()  # no slide: no ground of its own, the backdrop shows

    def _schedule_retry(self) -> None:
        self._cancel_timers()
        if self.current is None:
            self._record([], "idle")

        def retry() -> None:
            self._cancel_retry = None
            self.advance("dwell")

        self._cancel_retry = self.stage.after(RETRY_SECONDS, retry)

    def _cancel_timers(self) -> None:
        for name in ("_cancel_dwell", "_cancel_retry"):
            cancel = getattr(self, name)
            if cancel is not None:
                cancel()
                setattr(self, name, None)

    def _record(self, slides: list[dict], reason: str) -> None:
        telemetry = service(self.host, PROGRAM_TELEMETRY)
        if telemetry is not None:
            telemetry.record_program(reason, slides)

    # ------------------------------------------------------------------ per frame, shutdown
    def tick(self, dt: float) -> None:
        for old in list(self._fading):
            old.opacity = max(0.0, old.opacity - max(0.0, dt) / CROSSFADE_SECONDS)
            if old.opacity <= 0:
                self._fading.remove(old)
                if old.parent is not None:
                    old.parent.remove_widget(old)
                self._dispose(old)
        if self.current is None:
            return
        widget = self.current["widget"]
        tick = getattr(widget, "tick", None)
        if tick is None:
            return
        try:
            tick(dt)
        except Exception as exc:  # noqa: BLE001  a slide that fails is replaced, the program goes on
            row = self.current["row"]
            self.stage.report_failure("screen", row.get("screen_type", ""), row.get("id"), "tick", exc)
            widget.tick = None
            self.current["data"] = object()  # never the same content: picked again, it is built again
            self.advance("renderer_error")

    @staticmethod
    def _dispose(widget: Any) -> None:
        dispose = getattr(widget, "dispose", None)
        if dispose is not None:
            try:
                dispose()
            except Exception:  # noqa: BLE001
                log.exception("display: dispose failed")

    def dispose(self) -> None:
        self._cancel_timers()
        self._generation += 1
        widgets = list(self.widget.children) if "widget" in self.__dict__ else []
        self.current = None
        self._fading = []
        for widget in widgets:
            self._dispose(widget)
