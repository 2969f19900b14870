"""The slides layer (Kivy-only, loaded when a canvas starts): the slide program.

``load`` (loader thread) asks the screens service for the enabled slides and the curator
for its members and program controls (``hookspecs.services.curated``); ``apply`` (UI
thread) keeps the program going:

- eligible: enabled, ``frequency_weight > 0``, a type with a renderer, ``screens_enabled``;
  the next slide is a weighted random choice, never the one on screen while another is
  eligible; ``dwell_seconds`` (default 15, 1 s to a day) on screen;
- a slide's renderer ``prepare`` runs on the loader thread; no content or a failure skips
  it (the next candidate is tried; none left: retry after 5 s, or at the next change);
- the new slide crossfades in under the old one (0.6 s), so no frame shows an empty stage;
- a change to the slide on screen, or to the display preferences, re-renders it; a
  removed or disabled slide is replaced at once;
- navigation: ``forward`` to the next slide of the history (after a ``back``) or a new
  choice, ``back`` to the previous one (50 entries).

Program telemetry lines go to ``PROGRAM_TELEMETRY`` when its plugin runs.
"""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from hookspecs.render import Stage
from hookspecs.services import CURATOR, PROGRAM_TELEMETRY, SCREENS, curated, service

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


class SlidesLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.rows: list[dict] = []
        self.current: dict | None = None  # {"row", "widget"}
        self.history: list[str] = []
        self.history_pos = -1
        self._generation = 0
        self._loading = False
        self._program: list[dict] | None = None
        self._cancel_dwell: Callable[[], None] | None = None
        self._cancel_retry: Callable[[], None] | None = None

    @cached_property
    def widget(self) -> Any:
        from kivy.uix.floatlayout import FloatLayout

        box = FloatLayout(size_hint=(None, None))
        box.bind(pos=self._fit, size=self._fit)
        return box

    def _fit(self, *_args: Any) -> None:
        for child in self.widget.children:
            child.pos, child.size = self.widget.pos, self.widget.size

    @property
    def opaque(self) -> bool:
        return self.current is not None

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
            self.show(current, "settings_changed")

    def eligible(self) -> list[dict]:
        return [row for row in self.rows
                if row.get("enabled", True) and _number(row.get("frequency_weight", 1), 1.0) > 0
                and self.stage.renderer("screen", row.get("screen_type", "")) is not None]

    def _dwell(self, row: dict) -> float:
        return min(86400.0, max(1.0, _number(row.get("dwell_seconds"), DEFAULT_DWELL)))

    def _line(self, row: dict) -> dict:
        return {"id": row.get("id"), "screen_type": row.get("screen_type"), "dwell_seconds": self._dwell(row)}

    def _choose(self, exclude: set[str]) -> dict | None:
        candidates = [r for r in self.eligible() if r.get("id") not in exclude]
        if not candidates:
            return None
        current_id = self.current["row"].get("id") if self.current else None
        if len(candidates) > 1:
            candidates = [r for r in candidates if r.get("id") != current_id] or candidates
        weights = [max(0.0, _number(r.get("frequency_weight", 1), 1.0)) for r in candidates]
        return random.choices(candidates, weights=weights, k=1)[0]

    def advance(self, reason: str, direction: str = "forward") -> None:
        """Move the slide program (dwell elapsed, navigation, content change)."""
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
        row = self._choose(set())
        if row is None:
            self._clear_slide()
            return
        self.show(row, reason)

    def navigate(self, direction: str) -> None:
        self.advance(f"navigation_{direction}", direction)

    def show(self, row: dict, reason: str, from_history: bool = False, tried: set[str] | None = None) -> None:
        """Prepare ``row`` on the loader thread, then crossfade it in; skip it without content."""
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
            widget = None
            if error is not None:
                self.stage.report_failure("screen", type_id, row.get("id"), "prepare", error)
            elif data is None:
                log.info("display: screen %r has no content; skipped", row.get("id"))
            else:
                try:
                    widget = renderer(context.with_data(data))
                except Exception as exc:  # noqa: BLE001  contained: the next slide is tried
                    self.stage.report_failure("screen", type_id, row.get("id"), "build", exc)
            if widget is None:
                following = self._choose(tried)
                if following is not None:
                    self.show(following, reason, tried=tried)
                else:
                    self._schedule_retry()
                return
            self._put_slide(row, widget, reason, from_history)

        self.stage.submit(lambda: self.stage.prepare(renderer, context), done)

    def _put_slide(self, row: dict, widget: Any, reason: str, from_history: bool) -> None:
        from kivy.animation import Animation

        box = self.widget
        widget.size_hint = (None, None)
        widget.pos, widget.size = box.pos, box.size
        old = self.current["widget"] if self.current else None
        # The new slide goes underneath the old one at full opacity; the old one fades out
        # on top of it, so no frame shows an empty stage between the two.
        box.add_widget(widget, index=len(box.children))
        if old is not None:
            def finished(*_args: Any) -> None:
                if old.parent is not None:
                    old.parent.remove_widget(old)
                self._dispose(old)

            animation = Animation(opacity=0.0, duration=CROSSFADE_SECONDS)
            animation.bind(on_complete=finished)
            animation.start(old)
        self.current = {"row": row, "widget": widget}
        if not from_history:
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
        for widget in widgets:
            self._dispose(widget)
