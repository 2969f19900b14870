"""The marquee layer (Kivy-only, loaded when a canvas starts): the ticker band.

``load`` (loader thread) asks the ticker service for the enabled tapes and the curator for
its members and ``ticker_enabled``; the tapes of a registered type are kept. The band is
claimed (7.5 % of the screen height times the ticker text scale, clamped 0.5-2) while a
marquee cycle has tapes; the compositor gives the rest to the slides.

Each cycle takes the tapes in the order ``TickerService.cycle`` gives (the one meaning of
``frequency_weight``), builds each tape's texts on the loader thread with its type's
``build_items`` (the texts ``GET /v1/ticker/items`` lists: the one way a ticker type makes
items), lays the segments in a row from the right edge and scrolls it left by 150 px per
second at 1080 px height (scaled), moved every frame. A segment of a type with
``refresh_seconds`` (the time tape: every second) is built again on the loader thread that
often and its text replaced in place. When the row has left, the next cycle starts (a
ticker telemetry line). Navigation jumps to the next or previous segment.
"""
from __future__ import annotations

import logging
import time
from types import SimpleNamespace
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping

from pony import orm

from hookspecs.render import Rect, RenderContext, Stage, TickerContent
from hookspecs.services import CURATOR, PROGRAM_TELEMETRY, TICKER, curated, service

log = logging.getLogger("builtin_plugins.ticker")

BAR_FRACTION = 0.075
SPEED_AT_1080 = 150.0  # pixels per second at 1080 px canvas height


@dataclass
class MarqueeState:
    tapes: list[dict] = field(default_factory=list)
    due_ms: int | None = None


class MarqueeLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.tapes: list[dict] = []
        self.segments: list[dict] = []
        self.offset = 0.0
        self.cycle = 0
        self._pending = False
        self._restart_after = False

    @cached_property
    def widget(self) -> Any:
        from kivy.graphics import Color, Rectangle
        from kivy.uix.widget import Widget

        bar = Widget(size_hint=(None, None))
        with bar.canvas.before:
            self._bg_color = Color(*self.stage.preferences.theme.secondary_bg)
            self._bg = Rectangle(pos=bar.pos, size=bar.size)
        bar.bind(pos=self._sync, size=self._sync)
        return bar

    @property
    def visible(self) -> bool:
        return bool(self.tapes)

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
        scale = min(2.0, max(0.5, self.stage.preferences.text_scale_ticker or 1.0))
        return {"ticker": round(screen.height * BAR_FRACTION * scale)}

    def apply(self, state: MarqueeState, restyle: bool) -> None:
        self._bg_color.rgba = self.stage.preferences.theme.secondary_bg
        if state.tapes != self.tapes or restyle:
            self.tapes = state.tapes
            self.widget.opacity = 1.0 if self.visible else 0.0
            self._start_cycle()

    def _sync(self, *_args: Any) -> None:
        self._bg.pos, self._bg.size = self.widget.pos, self.widget.size
        for segment in self.segments:
            label = segment["label"]
            label.font_size = self._font_size()
            label.texture_update()
            label.size = label.texture_size
        self._place()

    def _font_size(self) -> float:
        return max(8.0, self.widget.height * 0.55)

    # -- cycles ------------------------------------------------------------------------
    def _start_cycle(self) -> None:
        if self._pending:
            self._restart_after = True
            return
        self._restart_after = False
        if not self.tapes:
            self._clear()
            return
        ticker = service(self.host, TICKER)
        tapes = list(ticker.cycle(self.tapes)) if ticker is not None else list(self.tapes)
        self._pending = True
        self.stage.submit(self._content_job(tapes), self._cycle_ready)

    def _content_job(self, tapes: list[dict]) -> Callable[[], list[tuple[dict, RenderContext, Any]]]:
        """Loader-thread step: each tape's texts from its type's ``build_items`` (or its error)."""
        contexts = [(tape, self.stage.context("ticker", tape)) for tape in tapes]
        registry = self.host.registries.ticker_types

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
                    results.append((tape, context.with_data(data), None))
                except Exception as exc:  # noqa: BLE001  reported on the UI thread
                    results.append((tape, context, exc))
            return results

        return job

    @staticmethod
    def _segment(tape: dict, context: RenderContext) -> TickerContent | None:
        """The tape's texts as built (None when it failed)."""
        return context.data if isinstance(context.data, TickerContent) else None

    def _clear(self) -> None:
        for segment in self.segments:
            self.widget.remove_widget(segment["label"])
        self.segments = []

    def _cycle_ready(self, results: Any, error: BaseException | None) -> None:
        from kivy.uix.label import Label

        self._pending = False
        if self._restart_after:
            self._start_cycle()
            return
        self._clear()
        if error is not None or results is None:
            return
        color = self.stage.preferences.theme.secondary_fg
        items = []
        for tape, context, exc in results:
            if exc is not None:
                type_id = tape.get("ticker_type", "")
                self.stage.report_failure("ticker", type_id, tape.get("id"), "prepare", exc)
                continue
            content = self._segment(tape, context)
            if content is None or not content.items:
                continue
            label = Label(text=self._text(content), font_size=self._font_size(), color=color, bold=True,
                          size_hint=(None, None))
            label.texture_update()
            label.size = label.texture_size
            self.widget.add_widget(label)
            self.segments.append({"tape": tape, "context": context, "label": label,
                                  "refresh": content.refresh_seconds,
                                  "next_refresh": time.monotonic() + (content.refresh_seconds or 0)})
            for body in content.items:
                items.append({"ordinal": len(items), "kind": content.kind or tape.get("ticker_type", ""),
                              "body": body})
        self.cycle += 1
        self.offset = float(self.widget.width)
        self._place()
        telemetry = service(self.host, PROGRAM_TELEMETRY)
        if telemetry is not None:
            telemetry.record_ticker(items)

    @staticmethod
    def _text(content: TickerContent) -> str:
        return "     \u2022     ".join(content.items)

    def _gap(self) -> float:
        return max(20.0, self.widget.height * 1.5)

    def _place(self) -> None:
        x = self.widget.x + self.offset
        for segment in self.segments:
            label = segment["label"]
            label.pos = (x, self.widget.y + (self.widget.height - label.height) / 2)
            x += label.width + self._gap()

    @property
    def row_width(self) -> float:
        return sum(s["label"].width + self._gap() for s in self.segments)

    # ------------------------------------------------------------------ per frame, navigation
    def tick(self, dt: float) -> None:
        if not self.segments or not self.visible:
            return
        speed = SPEED_AT_1080 * max(1.0, self.stage.layout.screen.height) / 1080.0
        self.offset -= speed * min(dt, 0.25)
        now = time.monotonic()
        for segment in self.segments:
            if segment["refresh"] and now >= segment["next_refresh"] and not segment.get("building"):
                segment["next_refresh"] = now + segment["refresh"]
                segment["building"] = True
                self.stage.submit(self._content_job([segment["tape"]]),
                                  lambda results, error, segment=segment: self._rebuilt(segment, results, error))
        self._place()
        if self.offset + self.row_width < 0 and not self._pending:
            self._start_cycle()

    def _rebuilt(self, segment: dict, results: Any, error: BaseException | None) -> None:
        """UI thread: a refreshing segment's new texts replace its label's (when it is still shown)."""
        segment["building"] = False
        if error is not None or not results or not any(s is segment for s in self.segments):
            return
        tape, context, exc = results[0]
        if exc is not None:
            self.stage.report_failure("ticker", tape.get("ticker_type", ""), tape.get("id"), "refresh", exc)
            return
        content = self._segment(tape, context)
        if content is not None and content.items and self._text(content) != segment["label"].text:
            label = segment["label"]
            label.text = self._text(content)
            label.texture_update()
            label.size = label.texture_size

    def navigate(self, direction: str) -> None:
        """Bring the next (or previous) segment to the left edge."""
        if not self.segments:
            return
        starts, x = [], self.offset
        for segment in self.segments:
            starts.append(x)
            x += segment["label"].width + self._gap()
        margin = self.widget.width * 0.02
        current = max([i for i, s in enumerate(starts) if s <= margin + 1] or [-1])
        if direction == "forward":
            target = current + 1
            if target >= len(starts):
                self._start_cycle()
                return
        else:
            target = max(0, current - 1) if current >= 0 else 0
        self.offset += margin - starts[target]
        self._place()
