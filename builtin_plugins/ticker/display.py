"""The marquee layer (Kivy-only, loaded when a canvas starts): the ticker band.

``load`` (loader thread) asks the ticker service for the enabled tapes and the curator for
its members and ``ticker_enabled``; the tapes of a registered type are kept. The band is
claimed (7.5 % of the screen height times the ticker text scale, clamped 0.5-2) while a
marquee cycle has tapes; the compositor gives the rest to the slides.

**The row.** A cycle takes the tapes in the order ``TickerService.cycle`` gives (the one
meaning of ``frequency_weight``, :mod:`svc_host.kit.weights`), prepares them on the loader
thread and lays their items in a row, each item followed by the one separator (a dot in the
theme's first accent colour, the same between the items of a tape, between tapes and
between one row and the next). Each item is drawn **once** into a texture; a *run* (one
placement of a row) is a group of rectangles on those textures behind one ``Translate``.

**The loop.** Runs follow each other without a gap: when the last run's end comes into the
band, the next run is appended right behind it: the freshly prepared next cycle when it is
ready (its preparation starts as soon as the previous fresh row is placed), else another
copy of the row on screen. So the band is never empty once it has text; a run is dropped
when it has left on the left (a ticker telemetry line is written for each run placed).
Each frame moves the runs by 150 px per second at 1080 px height (scaled) times the frame
time since the last frame, so the position follows the clock: a late frame (a loaded machine)
moves the text further instead of slowing it (a gap over 5 s is cut short). One
``Translate.x`` per run on screen, nothing laid out again.

**Colours** (theme roles): the band is the darkest stop of the theme's ``display``
gradient (``theme.background[0]``), the text the theme's text colour (``primary_fg``,
the pair every slide's text is drawn in), the separators and a thin rule on top of the
band the first accent.

**The texts** of each tape come from its type's ``build_items`` on the loader thread (the
texts ``GET /v1/ticker/items`` lists: the one way a ticker type makes items).

**In place.** A segment of a type with ``refresh_seconds`` (the time tape: every second) is
built again on the loader thread on that period of frame time, and only its item textures
are replaced (a text wider than its slot lays that row out again).

**Off the frame.** The texts' glyphs are drawn into pixels on the loader thread, with the cycle's or
the refresh's texts (:mod:`builtin_plugins.ticker.texts`); the frame that shows them only uploads
those pixels to a texture.
Navigation brings the next (or previous) item to the left edge.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from pony import orm

from hookspecs.render import Rect, RenderContext, Stage, TickerContent
from hookspecs.services import CURATOR, PROGRAM_TELEMETRY, TICKER, service
from svc_host.kit.services import curated
from builtin_plugins.ticker.rows import Item, Row, Run, Segment
from builtin_plugins.ticker.texts import TextTextures

log = logging.getLogger("builtin_plugins.ticker")

FONT_SHARE = 0.55
"""The tape's text is this share of the band's height: the band is the theme's ``ticker`` type step
(``Theme.type_scale``, at 1080 px of the screen's short side) over it, so a portrait screen's band is
a landscape one's (sized for its short side), not a third taller."""
SPEED_AT_1080 = 150.0  # pixels per second at 1080 px of the screen's short side
EMPTY_RETRY_SECONDS = 10.0
MAX_STEP_SECONDS = 5.0  # a frame gap longer than this (suspend, SIGSTOP) moves the text only this far  # a cycle without any text is prepared again after this much frame time


@dataclass
class MarqueeState:
    tapes: list[dict] = field(default_factory=list)
    due_ms: int | None = None


class MarqueeLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.tapes: list[dict] = []
        self.runs: list[Run] = []
        self.offset = 0.0  # x of the first run's start, from the band's left edge
        self.cycle = 0
        self.elapsed = 0.0  # frame time seen by this layer (refresh periods run on it)
        self._next: Row | None = None
        self._pending = False
        self._stale = False
        self._retry_at: float | None = None
        self._font_px = 0.0
        self._textures = TextTextures()  # drawn on the loader thread, uploaded on the UI thread

    @cached_property
    def widget(self) -> Any:
        from kivy.graphics import Color, Rectangle
        from kivy.uix.widget import Widget

        bar = Widget(size_hint=(None, None))
        with bar.canvas.before:
            self._bg_color = Color(*self._colours()[0])
            self._bg = Rectangle(pos=bar.pos, size=bar.size)
            self._rule_color = Color(*self._colours()[2])
            self._rule = Rectangle(pos=bar.pos, size=(0, 0))
        bar.bind(pos=self._sync, size=self._sync)
        return bar

    @property
    def visible(self) -> bool:
        return bool(self.tapes)

    @property
    def opaque(self) -> bool:
        """The band fills its whole area with one opaque colour: the compositor draws no backdrop under it."""
        band = self._colours()[0]
        return self.visible and (len(band) < 4 or band[3] >= 1)

    def _colours(self) -> tuple[Any, Any, Any]:
        """(band, text, accent) of the theme: see the module doc."""
        theme = self.stage.preferences.theme
        return theme.background[0], theme.text, theme.accents[0]

    # ------------------------------------------------------------------ loader thread
    def load(self) -> MarqueeState:
        ticker = service(self.host, TICKER)
        rows, controls = curated(self.host, "tickers", ticker.enabled() if ticker is not None else [])
        tapes = [dict(t) for t in rows if self._drawable(t)] if controls["ticker_enabled"] else []
        if ticker is not None and not ticker.cycle(tapes):
            tapes = []  # no tape appears in a cycle (every weight 0): no band
        curator = service(self.host, CURATOR)
        return MarqueeState(tapes=tapes, due_ms=curator.next_change_ms() if curator is not None else None)

    def _drawable(self, tape: Mapping[str, Any]) -> bool:
        definition = self.host.registries.ticker_types.get(tape.get("ticker_type", ""))
        return getattr(definition, "build_items", None) is not None

    def due_ms(self, state: MarqueeState) -> int | None:
        return state.due_ms

    # ------------------------------------------------------------------ UI thread
    def claims(self, screen: Rect) -> dict[str, float]:
        if not self.visible:
            return {}
        prefs = self.stage.preferences
        scale = min(2.0, max(0.5, prefs.text_scale_ticker or 1.0))
        text = prefs.theme.type_scale("ticker") * min(screen.width, screen.height) / 1080.0 * scale
        return {"ticker": round(text / FONT_SHARE)}

    def apply(self, state: MarqueeState, restyle: bool) -> None:
        self._restyle_colours()
        if state.tapes == self.tapes and not restyle:
            return
        self.tapes = state.tapes
        self.widget.opacity = 1.0 if self.visible else 0.0
        if not self.visible:
            self._clear()
            return
        # what has not come into the band yet is prepared again with the new tapes
        self._next = None
        while len(self.runs) > 1 and self._start_of(len(self.runs) - 1) >= self.widget.width:
            self._drop(len(self.runs) - 1)
        self._prepare()

    def _restyle_colours(self) -> None:
        band, text, accent = self._colours()
        self._bg_color.rgba, self._rule_color.rgba = band, accent
        for run in self.runs:
            for instruction in run.group.get_group("text"):
                instruction.rgba = text
            for instruction in run.group.get_group("dot"):
                instruction.rgba = accent

    def _sync(self, *_args: Any) -> None:
        bar = self.widget
        self._bg.pos, self._bg.size = bar.pos, bar.size
        rule = max(2.0, round(bar.height * 0.04))
        self._rule.pos, self._rule.size = (bar.x, bar.top - rule), (bar.width, rule)
        if abs(self._font_size() - self._font_px) > 0.5:
            self._redraw_all()
        self._place()

    def _font_size(self) -> float:
        return max(8.0, self.widget.height * FONT_SHARE)

    def _gap(self) -> float:
        """Space on each side of a separator dot."""
        return max(12.0, self.widget.height * 0.6)

    def _dot(self) -> float:
        return max(4.0, self.widget.height * 0.16)

    # -- textures and layout -------------------------------------------------------------
    def _forget_textures(self) -> None:
        self._textures.keep({item.text for row in self._rows() for item in row.items})

    def _draw_item(self, item: Item) -> None:
        """``item``'s texture (white), made once while a row on screen or next shows it."""
        item.texture = self._textures.texture(item.text, self._font_size())
        item.slot = max(item.slot, float(item.texture.width))

    def _lay_out(self, row: Row) -> None:
        x, row.dots = 0.0, []
        pitch = 2 * self._gap() + self._dot()
        for item in row.items:
            item.x = x
            x += item.slot
            row.dots.append(x + pitch / 2)
            x += pitch
        row.width = x

    def _rows(self) -> list[Row]:
        seen: list[Row] = []
        for row in [run.row for run in self.runs] + ([self._next] if self._next else []):
            if all(row is not other for other in seen):
                seen.append(row)
        return seen

    def _redraw_all(self) -> None:
        """New font size or theme: every row's textures drawn again, the runs rebuilt in place."""
        self._font_px = self._font_size()
        self._textures.reset()
        for row in self._rows():
            for item in row.items:
                item.slot = 0.0
                self._draw_item(item)
            self._lay_out(row)
        for index in range(len(self.runs)):
            self._rebuild(index)

    # -- runs ------------------------------------------------------------------------------
    def _make_run(self, row: Row) -> Run:
        from kivy.graphics import (Color, Ellipse, InstructionGroup, PopMatrix, PushMatrix, Rectangle,
                                   Translate)

        _band, text, accent = self._colours()
        height = self.widget.height
        group = InstructionGroup()
        group.add(PushMatrix())
        translate = Translate(0, self.widget.y)
        group.add(translate)
        group.add(Color(*text, group="text"))
        rects = []
        for item in row.items:
            width, tex_height = item.texture.size
            rect = Rectangle(texture=item.texture, size=(width, tex_height),
                             pos=(item.x + (item.slot - width) / 2, round((height - tex_height) / 2)))
            group.add(rect)
            rects.append(rect)
        group.add(Color(*accent, group="dot"))
        dot = self._dot()
        for centre in row.dots:
            group.add(Ellipse(pos=(centre - dot / 2, (height - dot) / 2), size=(dot, dot)))
        group.add(PopMatrix())
        return Run(row=row, group=group, translate=translate, rects=rects)

    def _append(self, row: Row) -> None:
        run = self._make_run(row)
        self.widget.canvas.add(run.group)
        self.runs.append(run)
        self.cycle += 1
        telemetry = service(self.host, PROGRAM_TELEMETRY)
        if telemetry is not None:
            items = [{"ordinal": i, "kind": segment.kind, "body": item.text}
                     for i, (segment, item) in enumerate((s, it) for s in row.segments for it in s.items)]
            telemetry.record_ticker(items)

    def _rebuild(self, index: int) -> None:
        canvas, old = self.widget.canvas, self.runs[index]
        place = canvas.indexof(old.group)
        canvas.remove(old.group)
        self.runs[index] = self._make_run(old.row)
        canvas.insert(place, self.runs[index].group)

    def _drop(self, index: int) -> None:
        self.widget.canvas.remove(self.runs[index].group)
        del self.runs[index]
        self._forget_textures()

    def _clear(self) -> None:
        for index in reversed(range(len(self.runs))):
            self._drop(index)
        self._next = None
        self.offset = 0.0

    def _start_of(self, index: int) -> float:
        return self.offset + sum(run.row.width for run in self.runs[:index])

    def _fill(self) -> None:
        """Runs behind runs until the band is covered: the next cycle when ready, else a copy."""
        while True:
            end = self._start_of(len(self.runs))
            if self.runs and end >= self.widget.width:
                return
            if self._next is not None:
                row, self._next = self._next, None
                if not self.runs:
                    self.offset = 0.0  # the first text starts at the left edge: no empty band
                self._append(row)
                self._prepare()  # the cycle after it, while this one scrolls
            elif self.runs:
                self._append(self.runs[-1].row)
            else:
                return

    def _place(self) -> None:
        x = self.widget.x + self.offset
        for run in self.runs:
            run.translate.xy = (round(x), self.widget.y)
            x += run.row.width

    # -- cycles ------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Prepare the next cycle on the loader thread (again when the tapes changed meanwhile)."""
        if self._pending:
            self._stale = True
            return
        self._stale = False
        self._retry_at = None
        if not self.tapes:
            return
        ticker = service(self.host, TICKER)
        showable = self.stage.showable("ticker", self.tapes)  # the compositor's rule: held-back tapes wait
        tapes = list(ticker.cycle(showable)) if ticker is not None else showable
        self._pending = True
        self.stage.submit(self._content_job(tapes), self._cycle_ready)

    def _content_job(self, tapes: list[dict]) -> Callable[[], list[tuple[dict, RenderContext, Any]]]:
        """Loader-thread step: each tape's texts from its type's ``build_items`` (or its error),
        each text drawn ahead at the band's font size (the frame only uploads it: ``texts``)."""
        contexts = [(tape, self.stage.context("ticker", tape)) for tape in tapes]
        registry = self.host.registries.ticker_types
        draw = self._textures.drawer(self._font_size())

        def job() -> list[tuple[dict, RenderContext, Any]]:
            results = []
            for tape, context in contexts:
                definition = registry.get(tape.get("ticker_type", ""))
                try:
                    row = SimpleNamespace(**{**tape, "config_json": context.config})  # as the REST side
                    with orm.db_session:
                        items = definition.build_items(self.host, row, context.now_ms())
                    data = TickerContent(items=[str(i) for i in items or [] if str(i).strip()],
                                         refresh_seconds=definition.refresh_seconds)
                    draw(data.items)
                    results.append((tape, context.with_data(data), None))
                except Exception as exc:  # noqa: BLE001  reported on the UI thread
                    results.append((tape, context, exc))
            return results

        return job

    @staticmethod
    def _segment(tape: dict, context: RenderContext) -> TickerContent | None:
        """The tape's texts as built (None when it failed)."""
        return context.data if isinstance(context.data, TickerContent) else None

    def _cycle_ready(self, results: Any, error: BaseException | None) -> None:
        self._pending = False
        if self._stale:
            self._prepare()
            return
        if error is not None or results is None or not self.visible:
            return
        if abs(self._font_size() - self._font_px) > 0.5:
            self._redraw_all()
        segments = []
        for tape, context, exc in results:
            if exc is not None:
                type_id = tape.get("ticker_type", "")
                self.stage.report_failure("ticker", type_id, tape.get("id"), "prepare", exc)
                continue
            content = self._segment(tape, context)
            self.stage.report_shown("ticker", tape.get("ticker_type", ""), tape.get("id"), whole=True)
            texts = [str(t) for t in (content.items if content is not None else []) if str(t).strip()]
            if not texts:
                continue
            items = [Item(text) for text in texts]
            for item in items:
                self._draw_item(item)
            segments.append(Segment(tape, context, content.kind or tape.get("ticker_type", ""), items,
                                    content.refresh_seconds, self.elapsed + (content.refresh_seconds or 0)))
        if not segments:
            self._retry_at = self.elapsed + EMPTY_RETRY_SECONDS
            return
        row = Row(segments)
        self._lay_out(row)
        self._next = row
        self._fill()
        self._place()

    # ------------------------------------------------------------------ per frame, navigation
    def tick(self, dt: float) -> None:
        if not self.visible:
            return
        self.elapsed += max(0.0, dt)
        if self._retry_at is not None and self.elapsed >= self._retry_at:
            self._prepare()
        if not self.runs:
            return
        self.offset -= self.distance(dt)
        while self.runs and self.offset + self.runs[0].row.width <= 0:
            self.offset += self.runs[0].row.width
            self._drop(0)
        self._fill()
        self._refresh_in_place()
        self._place()

    def distance(self, dt: float) -> float:
        """How far the text moves in ``dt`` seconds of frame time: the position follows the clock
        (Kivy's ``dt`` is the time since the last frame), so a late frame moves it further instead
        of slowing it; only a gap over :data:`MAX_STEP_SECONDS` (a suspended machine, a stopped
        process) is cut short, so the text does not leap across the band after it."""
        screen = self.stage.layout.screen
        speed = SPEED_AT_1080 * max(1.0, min(screen.width, screen.height)) / 1080.0
        return speed * min(max(0.0, dt), MAX_STEP_SECONDS)

    def _refresh_in_place(self) -> None:
        """Segments of a type with ``refresh_seconds`` are built again on the loader thread on
        that period of frame time (one build at a time each); :meth:`_rebuilt` puts the texts in."""
        for row in self._rows():
            for segment in row.segments:
                if not segment.refresh or segment.building or self.elapsed < segment.next_refresh:
                    continue
                segment.next_refresh = self.elapsed + segment.refresh
                segment.building = True
                self.stage.submit(self._content_job([segment.tape]),
                                  lambda results, error, row=row, segment=segment:
                                  self._rebuilt(row, segment, results, error))

    def _rebuilt(self, row: Row, segment: Segment, results: Any, error: BaseException | None) -> None:
        """UI thread: a refreshing segment's new texts replace its items' textures, in every run of
        its row still on screen (a text wider than its slot lays the row out again)."""
        segment.building = False
        if error is not None or not results or not any(shown is row for shown in self._rows()):
            return
        tape, context, exc = results[0]
        if exc is not None:
            self.stage.report_failure("ticker", tape.get("ticker_type", ""), tape.get("id"), "refresh", exc)
            return
        content = self._segment(tape, context)
        wider = False
        for item, text in zip(segment.items, content.items if content is not None else []):
            if str(text) == item.text:
                continue
            item.text = str(text)
            slot = item.slot
            self._draw_item(item)
            wider |= item.slot > slot
        if wider:
            self._lay_out(row)
        for index, run in enumerate(self.runs):
            if run.row is not row:
                continue
            if wider:
                self._rebuild(index)
                continue
            for rect, item in zip(run.rects, row.items):
                if rect.texture is not item.texture:
                    width, height = item.texture.size
                    rect.texture, rect.size = item.texture, (width, height)
                    rect.pos = (item.x + (item.slot - width) / 2, rect.pos[1])

    def navigate(self, direction: str) -> None:
        """Bring the next (or previous) item to the left edge."""
        margin = self.widget.width * 0.02
        starts = [self._start_of(index) + item.x
                  for index, run in enumerate(self.runs) for item in run.row.items]
        if direction == "forward":
            target = next((s for s in starts if s > margin + 1), None)
        else:
            target = next((s for s in reversed(starts) if s < margin - 1), None)
        if target is None:
            return
        self.offset += margin - target
        self._fill()
        self._place()

    def dispose(self) -> None:
        if "widget" in self.__dict__:
            self._clear()
