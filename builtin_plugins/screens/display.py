"""The slides layer (Kivy-only, loaded when a canvas starts): the slide program.

``load`` (loader thread) asks the screens service for the program (``program()``: the enabled
slides the curator keeps, ``svc_host.kit.services.curated``, with a weight) and the ``sync_group``
setting; ``apply`` (UI thread) keeps the program going:

- eligible: enabled, ``frequency_weight`` of at least one appearance, a type with a
  renderer, ``screens_enabled``;
- the next slide is the pick of a weighted round-robin spread around each cycle (:mod:`svc_host.kit.weights`,
  the one meaning of ``frequency_weight``, shared with the ticker): each cycle shows every
  eligible slide as many times as its weight (rounded, 1 to 10), spread over the cycle;
  ``dwell_seconds`` (default 15, 1 s to a day) on screen, counted in frame time
  (``Stage.after``);
- a slide's renderer ``prepare`` runs on the loader thread; no content or a failure skips
  it at once (the next pick is tried; none left: the slide on screen stays, or the stage
  shows the nothing-to-show card when that one left the program, and the program tries again
  after 5 s or at the next change);
- which slides may be shown is the compositor's rule (``stage.showable``: a type no loaded
  plugin provides, or a renderer held back after repeated failures, is skipped; docs/display.md
  "Skip, don't blank"); the layer tells it what is on screen (``stage.report_current``), what a
  renderer drew (``stage.report_shown``) and, when nothing can be shown, shows the card that
  says why (``stage.nothing_to_show``), never an empty background;
- a change never lays text on text (:class:`Change`): by default the old slide fades out to the
  ground, the ground turns to the new slide's, and the new slide fades in (0.3 s each); a theme
  may push instead (``Theme.transition == "push"``: the old slide leaves to the left as the new
  one comes in from the right, side by side). The ground (the slide's background) is on screen
  throughout, so no frame shows an empty stage; the slide on screen picked again (a one-slide
  program, or a heavy slide's turn) with the same content stays as it is: no change into itself,
  only its dwell starts again;
- a change to the slide on screen, or to the display preferences, re-renders it; a
  removed or disabled slide is replaced at once (its change event reloads this layer);
- navigation: ``forward`` to the next slide of the history (after a ``back``) or the next
  pick, ``back`` to the previous one (50 entries);
- displays in step (the ``sync_group`` setting non-empty; docs/display.md "Displays in step"): the
  pick and the change instants come from the wall clock (:mod:`.timetable`): the slide of the cycle's
  slot now. The slot's slide is prepared :data:`PREPARE_AHEAD_MS` before its instant, and the first
  frame at or after the instant starts the change, recorded (telemetry, play, ``since_ms``) at the
  instant; its transition is as far on as the frame is late. A slot's slide this display cannot show
  (skipped by the compositor's rule, no content, a failure) leaves the latest slide of the cycle it can
  show on screen until the next instant: a skip never moves the schedule, at the next instant the
  members agree again. Navigation shows another slide until the next instant.

Program telemetry lines go to ``PROGRAM_TELEMETRY`` when its plugin runs.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from hookspecs.render import Stage
from hookspecs.services import CURATOR, PROGRAM_TELEMETRY, SCREENS, service
from svc_host.kit.weights import SmoothRoundRobin, appearances
from builtin_plugins.screens.timetable import Timetable, dwell_seconds, timetable
from svc_host.kit.display import drop_widget, layer_box

log = logging.getLogger("builtin_plugins.screens")

RETRY_SECONDS = 5.0
TRANSITION_SECONDS = 0.6  # a whole change: out then in (fade), or across (push)
TRANSITIONS = ("fade", "push")
HISTORY = 50
PREPARE_AHEAD_MS = 2000  # in step: the next slot's slide is prepared this long before its instant


@dataclass
class Change:
    """A slide change in progress, in frame time: ``old`` leaves, ``new`` comes (``kind`` one of
    :data:`TRANSITIONS`). ``fade``: the first half fades ``old`` out (``new`` is there, invisible),
    the second fades ``new`` in, so the two are never visible at once; the ground stays the old
    slide's until the middle. ``push``: both move left by the box's width together, eased, side by
    side, so they never overlap."""

    old: Any
    new: Any
    kind: str
    old_background: tuple | None
    elapsed: float = 0.0

    @property
    def progress(self) -> float:
        return min(1.0, self.elapsed / TRANSITION_SECONDS)

    def step(self, dt: float, box: Any) -> bool:
        """Advance by ``dt``; True when the change is over."""
        self.elapsed += max(0.0, dt)
        p = self.progress
        if self.kind == "push":
            eased = p * p * (3 - 2 * p)  # smoothstep: starts and ends at rest
            self.old.x = box.x - eased * box.width
            self.new.x = box.x + (1 - eased) * box.width
        else:
            self.old.opacity = max(0.0, 1.0 - 2.0 * p)
            self.new.opacity = max(0.0, 2.0 * p - 1.0)
        return p >= 1.0

    @property
    def in_second_half(self) -> bool:
        return self.progress >= 0.5


@dataclass
class SlidesState:
    rows: list[dict] = field(default_factory=list)
    due_ms: int | None = None
    sync_group: str = ""


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
        self._card: Any = None  # the nothing-to-show card while no slide can be shown
        self._card_lines: list[str] | None = None
        self._change: Change | None = None  # the slide change in progress
        self.table: Timetable | None = None  # in step (a sync group): the cycle on the wall clock
        self.sync_group = ""
        self._due_at: int | None = None  # in step: the wall-clock instant of the next change
        self._ahead: dict | None = None  # in step: the next slot's slide, prepared before its instant

    @cached_property
    def widget(self) -> Any:
        return layer_box(self._follow_size, fill=True)

    def _follow_size(self, *_args: Any) -> None:
        """The free area changed size with a slide on screen (an overlay came or went, the window
        resized): the slide is built again at its new size from the content it shows (no prepare,
        no transition, no telemetry line; its dwell goes on), so it lays out in the area it has."""
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
        drop_widget(old)
        box.add_widget(widget, index=index)
        current["widget"] = widget
        change = self._change
        if change is not None and change.new is old:  # coming in: it goes on from where it was
            widget.opacity, widget.x = old.opacity, old.x
            change.new = widget
        self.stage.content_changed()

    @property
    def opaque(self) -> bool:
        """A slide that draws its own picture edge to edge (no background the compositor paints)."""
        return self.current is not None and self.background is None

    @property
    def background(self) -> tuple | None:
        """The colours of the slide's background (lifted out of it, :func:`_lift_background`): the
        compositor paints them under the decoration layer, the slide draws only its content."""
        change = self._change
        if change is not None and change.kind == "fade" and not change.in_second_half:
            return change.old_background  # fading out to its own ground; the new ground in the middle
        return self.current.get("background") if self.current is not None else None

    # ------------------------------------------------------------------ loader thread
    def load(self) -> SlidesState:
        screens = service(self.host, SCREENS)
        curator = service(self.host, CURATOR)
        return SlidesState(rows=screens.program() if screens is not None else [],
                           due_ms=curator.next_change_ms() if curator is not None else None,
                           sync_group=screens.sync_group() if screens is not None else "")

    def due_ms(self, state: SlidesState) -> int | None:
        return state.due_ms

    # ------------------------------------------------------------------ UI thread
    def apply(self, state: SlidesState, restyle: bool) -> None:
        self.rows = state.rows
        retimed = self._retime(state.sync_group)
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
            elif not eligible:
                if restyle:
                    self._hide_card()  # drawn again in the new theme
                self._nothing()
            return
        current = next((r for r in eligible if r.get("id") == self.current["row"].get("id")), None)
        if current is None:
            self.advance("content_changed")  # none eligible: the card, and a retry later
        elif current != self.current["row"]:
            self.show(current, "content_changed")
        elif restyle:
            self.show(current, "settings_changed", redraw=True)
        elif retimed and not self._loading:
            self._realign()

    # ------------------------------------------------------------------ in step
    def _retime(self, group: str) -> bool:
        """Follow the ``sync_group`` setting and the program: the timetable of the cycle on the wall
        clock while in a group (None otherwise). True when it changed (joined, left, a new program)."""
        program = self.program()
        table = timetable(program) if group and program else None
        before = (self.sync_group, self.table.program_hash if self.table else None)
        self.sync_group = group
        if (group, table.program_hash if table else None) == before:
            return False
        self.table, self._ahead = table, None
        return True

    def _realign(self) -> None:
        """The timetable changed with a slide on screen: in a group, the slot's slide now (the one on
        screen when it is that) and the next instant; out of one, the dwell runs from now."""
        self._cancel_timers()
        if self.table is None:
            row = self.current["row"]
            self._cancel_dwell = self.stage.after(self._dwell(row), lambda: self._dwelt(row))
            return
        expected = self._choose(set())
        if expected is not None and expected.get("id") != self.current["row"].get("id"):
            self.advance("in_step")
        else:
            self._due_at = self.table.at(self._now()).end_ms

    def _now(self) -> int:
        return int(self.host.clock.now_ms())  # looked up each time: a driven canvas replaces the clock

    def _slot_pick(self, exclude: set[str], forward: bool = False) -> dict | None:
        """In step: the slide of the latest slot (at or before now; ``forward``: the first after now)
        that can be shown and is not in ``exclude``."""
        by_id = {r.get("id"): r for r in self.eligible() if r.get("id") not in exclude}
        if not by_id or self.table is None:
            return None
        slot = self.table.at(self._now())
        for _ in range(len(self.table.rows)):
            slot = self.table.after(slot) if forward else slot
            row = by_id.get(slot.row.get("id"))
            if row is not None:
                return row
            slot = slot if forward else self.table.before(slot)
        return None

    def _instant(self) -> int | None:
        """In step: the instant the change a frame starts now is recorded at: the start of the slot
        now, unless it began longer than a transition ago (a late change is recorded when it is made)."""
        if self.table is None:
            return None
        now = self._now()
        start = self.table.at(now).start_ms
        return start if now - start <= TRANSITION_SECONDS * 1000 else now

    def _prepare_ahead(self) -> None:
        """In step: prepare the slide of the slot starting at the next instant, so the frame at the
        instant puts it on screen (its preparation done on the loader thread meanwhile)."""
        if self.table is None or self._due_at is None:
            return
        wanted = self.table.at(self._due_at).row.get("id")
        row = next((r for r in self.eligible() if r.get("id") == wanted), None)
        ahead: dict[str, Any] = {"due": self._due_at, "row": row, "done": False}
        self._ahead = ahead
        if row is None:
            return  # not showable here: the instant keeps the latest slide it can show
        renderer = self.stage.renderer("screen", row.get("screen_type", ""))
        context = self.stage.context("screen", row)

        def done(data: Any, error: BaseException | None) -> None:
            ahead.update(done=True, data=data, error=error)
            waiting = ahead.pop("waiting", None)
            if waiting is not None:
                waiting(data, error)

        self.stage.submit(lambda: self.stage.prepare(renderer, context), done)

    def program(self) -> list[dict]:
        """The enabled slides that appear in a cycle (a weight of at least one appearance)."""
        return [row for row in self.rows if row.get("enabled", True) and self._weight(row) > 0]

    def eligible(self) -> list[dict]:
        """The slides of the program that can be shown now (the compositor's rule)."""
        return self.stage.showable("screen", self.program())

    @staticmethod
    def _dwell(row: dict) -> float:
        return dwell_seconds(row)

    def _line(self, row: dict) -> dict:
        return {"id": row.get("id"), "screen_type": row.get("screen_type"), "name": row.get("name") or "",
                "dwell_seconds": self._dwell(row)}

    @staticmethod
    def _weight(row: dict) -> int:
        return appearances(row.get("frequency_weight", 1))

    def _choose(self, exclude: set[str]) -> dict | None:
        """The next slide of the round-robin among the eligible ones not in ``exclude`` (in step: of
        the latest slot whose slide can be shown)."""
        if self.table is not None:
            return self._slot_pick(exclude)
        candidates = {r.get("id"): r for r in self.eligible() if r.get("id") not in exclude}
        last = self.current["row"].get("id") if self.current else None
        picked = self.robin.pick([(row_id, self._weight(row)) for row_id, row in candidates.items()], last)
        return candidates.get(picked)

    def advance(self, reason: str, direction: str = "forward", at_ms: int | None = None) -> None:
        """Move the slide program (dwell elapsed, navigation, content change); while the slides
        have no room (a full-screen alert), the program waits."""
        if self.stage.area.area <= 0:
            self._cancel_timers()
            self._cancel_retry = self.stage.after(RETRY_SECONDS, lambda: self.advance(reason, direction))
            return
        if at_ms is None and reason != "start":
            at_ms = self._instant()
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
        if navigating and self.table is not None:  # in step: the next slot's slide until the next instant
            row = self._slot_pick({self.current["row"].get("id")}, forward=True)
            at_ms = None
        else:
            row = self._choose({self.current["row"].get("id")} if navigating else set())
        if row is None:
            self._clear_slide()
            self._schedule_retry(record=False)
            return
        self.show(row, reason, at_ms=at_ms)

    def navigate(self, direction: str) -> None:
        self.advance(f"navigation_{direction}", direction)

    def show(self, row: dict, reason: str, from_history: bool = False, tried: set[str] | None = None,
             redraw: bool = False, at_ms: int | None = None) -> None:
        """Prepare ``row`` on the loader thread, then crossfade it in; skip it without content.
        ``redraw``: build it again even when it is on screen with the same content (new settings).
        ``at_ms``: the instant the change was scheduled for (in step)."""
        tried = set(tried or ()) | {row.get("id")}
        ahead, self._ahead = self._ahead, None
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
                self._skip(reason, tried, at_ms)  # left the program while it was prepared
                return
            if error is not None:
                self.stage.report_failure("screen", type_id, row.get("id"), "prepare", error)
            elif data is None:
                log.info("display: screen %r has no content; skipped", row.get("id"))
            elif not redraw and self._same(row, data):
                self._keep(row, reason, from_history, at_ms)
                return
            else:
                try:
                    widget = renderer(context.with_data(data))
                except Exception as exc:  # noqa: BLE001  contained: the next slide is tried
                    self.stage.report_failure("screen", type_id, row.get("id"), "build", exc)
                else:
                    if widget is not None:
                        self._put_slide(row, widget, data, reason, from_history, context.size, at_ms)
                        return
            self._skip(reason, tried, at_ms)

        if ahead is not None and not redraw and ahead.get("row") == row:  # in step: prepared before its instant
            if ahead["done"]:
                done(ahead["data"], ahead["error"])
            else:
                ahead["waiting"] = done
            return
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

    def _skip(self, reason: str, tried: set[str], at_ms: int | None = None) -> None:
        """The slide just tried cannot be shown: the next pick at once (in step: the latest slot's
        slide that can, usually the one on screen, which stays); none left: keep the slide on screen
        (cleared when it left the program) and try again later."""
        following = self._choose(tried)
        if following is not None:
            self.show(following, reason, tried=tried, at_ms=at_ms)
            return
        if self.current is not None and \
                all(r.get("id") != self.current["row"].get("id") for r in self.eligible()):
            self._clear_slide()
        self._schedule_retry()
        if self.current is None:
            self._nothing()

    def _keep(self, row: dict, reason: str, from_history: bool, at_ms: int | None = None) -> None:
        """The slide on screen was picked again with the same content: it stays, its dwell restarts."""
        self.current["row"] = row
        self._shown(row, reason, from_history, at_ms)

    def _put_slide(self, row: dict, widget: Any, data: Any, reason: str, from_history: bool,
                   size: tuple[int, int] | None = None, at_ms: int | None = None) -> None:
        box = self.widget
        widget.size_hint = (None, None)
        widget.pos, widget.size = box.pos, box.size
        old = self.current["widget"] if self.current else None
        old_background = self.background
        self._end_change()  # a change still running ends at once: its new slide is the old one now
        box.add_widget(widget)
        if old is not None and old.parent is box:  # the old one leaves, then (fade) the new one comes
            self._change = Change(old, widget, self._transition(), old_background)
            # in step: as far on as this frame is after the instant it was scheduled for
            self._change.step(0.0 if at_ms is None else max(0, self._now() - at_ms) / 1000.0, box)
        self.current = {"row": row, "widget": widget, "data": data, "size": size,  # size: built at
                        "background": _lift_background(widget)}
        self._hide_card()
        self.stage.report_current(row, at_ms)
        self.stage.report_shown("screen", row.get("screen_type", ""), row.get("id"))
        self._shown(row, reason, from_history, at_ms)
        self._follow_size()  # the area changed while it was prepared
        self.stage.content_changed()  # decoration leaves the new slide's text and images alone

    def _transition(self) -> str:
        """The theme's transition (``Theme.transition``), ``fade`` when it names none we know."""
        kind = getattr(self.stage.preferences.theme, "transition", "fade")
        return kind if kind in TRANSITIONS else "fade"

    def _end_change(self) -> None:
        """Finish the change in progress at once: its old slide goes, its new one stands."""
        change, self._change = self._change, None
        if change is None:
            return
        if change.old.parent is not None:
            change.old.parent.remove_widget(change.old)
        drop_widget(change.old)
        change.new.opacity = 1.0
        if change.new.parent is not None:
            change.new.pos = change.new.parent.pos

    def _shown(self, row: dict, reason: str, from_history: bool, at_ms: int | None = None) -> None:
        again = self.history[-1:] == [row.get("id")] and self.history_pos == len(self.history) - 1
        if not from_history and not again:
            del self.history[self.history_pos + 1:]
            self.history.append(row.get("id"))
            del self.history[:-HISTORY]
            self.history_pos = len(self.history) - 1
        self._record([self._line(row)], reason, at_ms)
        if self.table is not None:  # in step: until the next instant of the cycle (checked each frame)
            self._due_at = self.table.at(self._now() if at_ms is None else at_ms).end_ms
            return
        self._cancel_dwell = self.stage.after(self._dwell(row), lambda: self._dwelt(row))

    def _dwelt(self, row: dict) -> None:
        """Its dwell is over: it stayed its whole turn (a renderer that failed before works again)."""
        self.stage.report_shown("screen", row.get("screen_type", ""), row.get("id"), whole=True)
        self.advance("dwell")

    def _clear_slide(self) -> None:
        self._cancel_timers()
        self._end_change()
        if self.current is not None:
            widget = self.current["widget"]
            if widget.parent is not None:
                widget.parent.remove_widget(widget)
            drop_widget(widget)
            self.current = None
            self._record([], "idle")
            self.stage.content_changed()  # no slide: no ground of its own, the backdrop shows
        self._nothing()

    def _nothing(self) -> None:
        """No slide can be shown: say so (the compositor's report), and with slides in the program
        show the card saying why (with none, the first-start card of the adoption feature shows)."""
        if self.current is not None:
            return
        self.stage.report_current(None)
        lines = self.stage.nothing_to_show() if self.program() else []
        if lines == self._card_lines and (self._card is not None or not lines):
            return
        self._hide_card()
        if not lines:
            return
        from svc_host.kit.display.slide import nothing_card

        self._card_lines = lines
        self._card = nothing_card(self.stage.context("screen", {"id": "nothing_to_show"}), lines)
        self._card.size_hint = (None, None)
        self._card.pos, self._card.size = self.widget.pos, self.widget.size
        self.widget.add_widget(self._card)
        self.stage.content_changed()

    def _hide_card(self) -> None:
        card, self._card, self._card_lines = self._card, None, None
        if card is not None and card.parent is not None:
            card.parent.remove_widget(card)

    def _schedule_retry(self, record: bool = True) -> None:
        self._cancel_timers()
        if self.current is None and record:
            self._record([], "idle")

        def retry() -> None:
            self._cancel_retry = None
            self.advance("dwell")

        self._cancel_retry = self.stage.after(RETRY_SECONDS, retry)

    def _cancel_timers(self) -> None:
        self._due_at = None
        for name in ("_cancel_dwell", "_cancel_retry"):
            cancel = getattr(self, name)
            if cancel is not None:
                cancel()
                setattr(self, name, None)

    def _record(self, slides: list[dict], reason: str, at_ms: int | None = None) -> None:
        telemetry = service(self.host, PROGRAM_TELEMETRY)
        if telemetry is not None:
            telemetry.record_program(reason, slides, at_ms)

    # ------------------------------------------------------------------ per frame, shutdown
    def tick(self, dt: float) -> None:
        if self._due_at is not None:
            self._in_step()
        change = self._change
        if change is not None:
            halfway = change.in_second_half
            if change.step(dt, self.widget):
                self._end_change()
                self.stage.content_changed()  # at rest: the boxes decoration leaves alone, measured again
            elif change.in_second_half != halfway:
                self.stage.content_changed()  # the middle of a fade: the ground turns to the new slide's
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

    def _in_step(self) -> None:
        """In step, each frame: prepare the next slot's slide ahead; the first frame at or after its
        instant starts the change (the slide on screen stayed its whole turn)."""
        now = self._now()
        if self._ahead is None and now >= self._due_at - PREPARE_AHEAD_MS:
            self._prepare_ahead()
        if now < self._due_at or self._loading:
            return
        late = now - self._due_at > TRANSITION_SECONDS * 1000  # frames stopped (dark, a stall)
        self._due_at = None
        if self.current is not None and not late:
            row = self.current["row"]
            self.stage.report_shown("screen", row.get("screen_type", ""), row.get("id"), whole=True)
        self.advance("in_step" if late else "dwell")

    def dispose(self) -> None:
        self._cancel_timers()
        self._generation += 1
        widgets = list(self.widget.children) if "widget" in self.__dict__ else []
        self.current = None
        self._change = None
        for widget in widgets:
            drop_widget(widget)
