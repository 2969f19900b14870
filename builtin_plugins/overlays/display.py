"""The overlays layer (Kivy-only, loaded when a canvas starts): overlays drawn over the slides.

``load`` (loader thread) asks the overlays service which rows are active now
(``OverlaysService.active``: enabled, the global switch on, today inside the window) and
keeps the curator's members (``svc_host.kit.services.curated``); it is loaded again when the
service says the answer changes with the clock (midnight in the display zone) or the
curator's does. ``apply`` (UI thread) builds each new overlay through its type's renderer
(``prepare`` on the loader thread) and removes the ones that left; a changed row, or new
display preferences, rebuild it. Which rows may be drawn is the compositor's rule
(``stage.showable``: a type no loaded plugin provides, or a renderer held back after repeated
failures, is left out). An overlay whose renderer fails (prepare, build, tick) is hidden and
tried again at the next load (until the compositor holds it back); the others keep drawing.

Where each overlay goes is the layout rule of the renderer kit (:mod:`svc_host.kit.display.layout`): ``arrange``
(every relayout) puts each overlay in the zone its type gives its row (``OverlayType.zone_for``),
a panel at the size its widget's ``size_hint`` asks, and tells the compositor what the panels
(and a celebration message's band) occupy, so the slides lay out in the rest. An overlay that
comes or goes asks for a relayout.

The composition rule (docs/display.md, "Composition: the rule"): an overlay of a type whose zone
is ``fullscreen`` (the effects, ``static_image``, ``plugin_template``) is decoration. Its widget goes in the layer's ``decoration``, which the compositor mounts under the
slides' content (over their background); its celebration message is text, so it is lifted out
into a holder of the same rectangle in ``widget``, over the slides, in its band.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from hookspecs.render import Layout, Rect, Stage
from hookspecs.services import CURATOR, OVERLAYS, PLAYS, service
from svc_host.kit.services import curated
from svc_host.kit.display import drop_widget, layer_box
from svc_host.kit.display.layout import arrange as arrange_zones, overlay_bands, place_celebration
from svc_host.kit.display.text import MESSAGE_MIN_PX, fit_message

log = logging.getLogger("builtin_plugins.overlays")

RETRY_SECONDS = 5.0  # frame time: a failed overlay is tried again (a load) this long after it failed
HELD_RETRY_SECONDS = 30.0  # while rows are left out (held back, or a type not loaded), loaded again this often


@dataclass
class OverlaysState:
    rows: list[dict] = field(default_factory=list)
    due_ms: int | None = None


def _lift_celebration(widget: Any, into: Any) -> Any:
    """Move the celebration message of the full-screen overlay ``widget`` (``widget.celebration``)
    into a holder of the same rectangle added to ``into`` (over the slides); the holder, or None
    without a message. The message keeps its coordinates, its cycling and its course."""
    from kivy.uix.relativelayout import RelativeLayout

    caption = getattr(widget, "celebration", None)
    if caption is None:
        return None
    front = RelativeLayout(size_hint=(None, None), pos=widget.pos, size=widget.size)
    if caption.parent is not None:
        caption.parent.remove_widget(caption)
    front.add_widget(caption)
    into.add_widget(front)
    return front


def _earliest(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


class OverlaysLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.overlays: dict[Any, dict] = {}  # id -> {"row", "widget" or None, "failed", "zone", "hint"}
        self.placed: dict[Any, Rect] = {}  # id -> where its widget goes (arrange)
        self._waiting: OverlaysState | None = None  # applied while the content area was empty (a full alert)
        self._cancel_retry: Any = None
        self._playing: set = set()  # the overlay plays open (proof of play, :meth:`_played`)

    @cached_property
    def decoration(self) -> Any:
        """The full-screen overlays (confetti, rain, frames): under the slides' content."""
        return layer_box(self._fit)

    @cached_property
    def widget(self) -> Any:
        return layer_box(self._fit)

    def _fit(self, *_args: Any) -> None:
        for overlay_id, entry in self.overlays.items():
            rect = self.placed.get(overlay_id)
            for widget in (entry.get("widget"), entry.get("front")):
                if widget is not None:
                    widget.pos, widget.size = (rect.pos, rect.size) if rect is not None else \
                        (self.widget.pos, self.widget.size)

    def arrange(self, layout: Layout) -> list[tuple[str, Rect]]:
        """Place every overlay in its zone of ``layout`` (``kit.layout.arrange``); what they occupy."""
        if self._waiting is not None and layout.content.area > 0:  # the full-screen alert went
            waiting, self._waiting = self._waiting, None
            self.stage.after(0, lambda: self.apply(waiting, False))
        shown = [(overlay_id, entry) for overlay_id, entry in self.overlays.items() if entry.get("widget") is not None]
        rects, occupied, messages = arrange_zones(layout, [(entry["zone"], entry["hint"],
                                                            getattr(entry["widget"], "celebration", None) is not None)
                                                           for _id, entry in shown])
        self.placed = {overlay_id: rect for (overlay_id, _entry), rect in zip(shown, rects)}
        self._fit()
        stale = [overlay_id for overlay_id, entry in shown if self._stale(entry, layout)]
        if stale:  # built for another screen or content area (the ticker's band, an alert's): built again
            self.stage.after(0, lambda: self._rebuild(stale))
        for (_id, entry), rect, message in zip(shown, rects, messages):
            if message is not None:
                place_celebration(entry["widget"], rect, message)
                fit_message(entry["widget"].celebration, MESSAGE_MIN_PX * layout.type_height / 1080.0)
            occupied += overlay_bands(entry["widget"], rect)
        return occupied

    # ------------------------------------------------------------------ loader thread
    def load(self) -> OverlaysState:
        overlays = service(self.host, OVERLAYS)
        if overlays is None:
            return OverlaysState()
        rows, _controls = curated(self.host, "overlays", overlays.active())
        curator = service(self.host, CURATOR)
        return OverlaysState(rows=[dict(r) for r in rows],
                             due_ms=_earliest(overlays.next_change_ms(),
                                              curator.next_change_ms() if curator is not None else None))

    def due_ms(self, state: OverlaysState) -> int | None:
        return state.due_ms

    # ------------------------------------------------------------------ UI thread
    def apply(self, state: OverlaysState, restyle: bool) -> None:
        wanted = {row.get("id"): row for row in self.stage.showable("overlay", state.rows)}
        if len(wanted) < len(state.rows):
            self._retry(HELD_RETRY_SECONDS)
        for overlay_id in list(self.overlays):
            row = wanted.get(overlay_id)
            if row is None or row != self.overlays[overlay_id]["row"] or restyle or self.overlays[overlay_id]["failed"]:
                self._remove(overlay_id)
        if self.stage.area.area <= 0:  # a full-screen alert: new overlays wait until it goes
            self._waiting = state
            self._played()
            return
        for overlay_id, row in wanted.items():
            if overlay_id not in self.overlays:
                self._add(row)
        self._played()

    def _played(self, complete: bool = True) -> None:
        """Proof of play: an overlay plays from when its widget is first built until it leaves (its
        row's window closed, it was disabled or removed: ``complete``) or fails (not complete); built
        again (new settings, another layout) it goes on playing."""
        self._playing = {overlay_id for overlay_id, entry in self.overlays.items()
                         if entry.get("widget") is not None or (overlay_id in self._playing and not entry["failed"])}
        plays = service(self.host, PLAYS)
        if plays is not None:
            plays.show("overlay", [{"id": overlay_id, "type": self.overlays[overlay_id]["row"].get("overlay_type"),
                                    "label": self.overlays[overlay_id]["row"].get("label")}
                                   for overlay_id in self._playing], complete)

    @staticmethod
    def _stale(entry: dict, layout: Layout) -> bool:
        """Whether ``entry`` was built for another layout than ``layout``: another screen height (the
        type scale's) or another ``reference`` (what its panel's ``size_hint`` is a fraction of: the
        screen above the ticker, which an alert's band leaves as it is). Never while the content area
        is empty (a full-screen alert: the overlays wait, built as they were)."""
        if layout.content.area <= 0:
            return False
        reference = entry.get("reference")
        return entry.get("type_height") != layout.type_height or \
            (reference is not None and tuple(reference) != tuple(layout.reference))

    def _rebuild(self, overlay_ids: list) -> None:
        """Build the overlays ``overlay_ids`` again with the context the layout gives now (a panel's
        size and type follow the screen above the ticker, its ``size_hint`` the content area): one
        built before the ticker claimed its band was 422 px wide where it is 390 once built again,
        and the first slide got a narrower free area than every later one. (An alert's band changes
        neither: a panel on screen when one comes keeps its build, size and shape and moves below
        it, :attr:`hookspecs.render.Layout.reference`.)"""
        for overlay_id in overlay_ids:
            entry = self.overlays.get(overlay_id)
            if entry is not None and entry.get("widget") is not None and self._stale(entry, self.stage.layout):
                self._remove(overlay_id)
                self._add(entry["row"])

    def _retry(self, seconds: float) -> None:
        """Load the overlays again in ``seconds`` of frame time (the compositor decides which rows
        may be tried: a renderer failing again and again is held back longer)."""
        if self._cancel_retry is not None:
            return

        def fire() -> None:
            self._cancel_retry = None
            self.stage.reload()

        self._cancel_retry = self.stage.after(seconds, fire)

    def _remove(self, overlay_id: Any) -> None:
        entry = self.overlays.pop(overlay_id, None)
        if entry and entry.get("front") is not None:
            self._drop(entry["front"])
        if entry and entry.get("widget") is not None:
            self._drop(entry["widget"])
            self.stage.relayout()

    @staticmethod
    def _drop(widget: Any) -> None:
        drop_widget(widget, detach=True)

    def _add(self, row: dict) -> None:
        overlay_id, type_id = row.get("id"), row.get("overlay_type", "")
        overlay_type = self.host.registries.overlay_types.get(type_id)
        config = row.get("config_json") if isinstance(row.get("config_json"), dict) else {}
        zone = overlay_type.zone_for(config) if overlay_type is not None else "fullscreen"
        # decoration: a type that is full-screen by nature (effects, frames, templates); a panel type
        # a row stretches over the whole area (a web page) stays over the slides, as its row asked
        decorative = overlay_type is None or overlay_type.zone == "fullscreen"
        entry = {"row": row, "widget": None, "failed": False, "zone": zone, "hint": (1.0, 1.0)}
        self.overlays[overlay_id] = entry
        renderer = self.stage.renderer("overlay", type_id)
        context = self.stage.context("overlay", row)
        # the screen height and the content area it is built for (arrange checks them)
        entry["type_height"], entry["reference"] = context.type_height, context.reference

        def done(data: Any, error: BaseException | None) -> None:
            if self.overlays.get(overlay_id) is not entry:
                return
            if error is not None:
                entry["failed"] = True
                self.stage.report_failure("overlay", type_id, overlay_id, "prepare", error)
                self._retry(RETRY_SECONDS)
                self._played(complete=False)
                return
            if data is None:
                entry["failed"] = True
                log.info("display: overlay %r has no content; skipped", overlay_id)
                self._played(complete=False)
                return
            try:
                widget = renderer(context.with_data(data))
            except Exception as exc:  # noqa: BLE001  dropped until its row changes
                entry["failed"] = True
                self.stage.report_failure("overlay", type_id, overlay_id, "build", exc)
                self._retry(RETRY_SECONDS)
                self._played(complete=False)
                return
            self.stage.report_shown("overlay", type_id, overlay_id)
            entry["hint"] = tuple(widget.size_hint)  # a panel's size, fractions of the content area
            widget.size_hint, widget.pos_hint = (None, None), {}
            widget.pos, widget.size = self.widget.pos, self.widget.size
            entry["widget"] = widget
            if decorative and not getattr(widget, "content", False):  # decoration, under the slides'
                # content, its message over them (a full-screen widget that says it is ``content``, a
                # template with text, is drawn over the slides as a panel)
                self.decoration.add_widget(widget)
                entry["front"] = _lift_celebration(widget, self.widget)
            else:
                widget.reserve = True  # a panel: decoration never draws in its box (docs/display.md)
                self.widget.add_widget(widget)
            self._played()
            self.stage.relayout()  # the slides make room for it

        self.stage.submit(lambda: self.stage.prepare(renderer, context), done)

    # ------------------------------------------------------------------ per frame, shutdown
    def tick(self, dt: float) -> None:
        for overlay_id, entry in list(self.overlays.items()):
            widget = entry.get("widget")
            tick = getattr(widget, "tick", None) if widget is not None else None
            if tick is None:
                continue
            try:
                tick(dt)
            except Exception as exc:  # noqa: BLE001  dropped until its row changes
                type_id = entry["row"].get("overlay_type", "")
                self.stage.report_failure("overlay", type_id, overlay_id, "tick", exc)
                self._drop(widget)
                if entry.get("front") is not None:
                    self._drop(entry["front"])
                entry["widget"] = entry["front"] = None
                entry["failed"] = True
                self._retry(RETRY_SECONDS)
                self._played(complete=False)
                self.stage.relayout()

    def dispose(self) -> None:
        entries, self.overlays = list(self.overlays.values()), {}
        for entry in entries:
            for name in ("front", "widget"):
                if entry.get(name) is not None:
                    self._drop(entry[name])

