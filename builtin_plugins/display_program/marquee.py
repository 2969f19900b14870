"""The ticker bar: a smooth, pixel-based marquee of every enabled tape's texts.

Each cycle prepares every tape on the loader thread, lays the segments out in a row
starting at the right edge and scrolls them left by a fixed number of pixels per second
(scaled with the canvas height). Segments whose renderer asks for ``refresh_seconds``
(the time tape: 1 s with seconds in its preset, else 60 s) are re-rendered in place.
When the row has left the screen, the next cycle starts. Navigation jumps to the next
or previous segment.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from builtin_plugins.display_program.director import TICKER_SPEED_AT_1080, fingerprint, pick_tapes

log = logging.getLogger("builtin_plugins.display_program")

BAR_FRACTION = 0.075




class Marquee(Widget):
    def __init__(self, director: Any, **kwargs: Any):
        super().__init__(size_hint=(None, None), **kwargs)
        self.director = director
        self.visible = False
        self.tapes: list[dict] = []
        self.segments: list[dict] = []
        self.offset = 0.0
        self.cycle = 0
        self._pending = False
        self._key: str | None = None
        with self.canvas.before:
            self._bg_color = Color(0, 0, 0, 0)
            self._bg = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._sync, size=self._sync)

    def _sync(self, *_args: Any) -> None:
        self._bg.pos, self._bg.size = self.pos, self.size
        for segment in self.segments:
            label = segment["label"]
            label.font_size = self._font_size()
            label.texture_update()
            label.size = label.texture_size
        self._place()

    def _font_size(self) -> float:
        return max(8.0, self.height * 0.55)

    def bar_height(self, canvas_height: float) -> int:
        scale = min(2.0, max(0.5, self.director.state.text_scale_ticker or 1.0))
        return int(round(canvas_height * BAR_FRACTION * scale))

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        self.opacity = 1.0 if visible else 0.0

    def apply(self, tapes: list[dict], settings_changed: bool) -> None:
        theme = self.director.state.theme
        if theme is not None:
            self._bg_color.rgba = theme.secondary_bg
        key = fingerprint(tapes)
        if key != self._key or settings_changed:
            self._key = key
            self.tapes = tapes
            self._start_cycle()

    # -- cycles ------------------------------------------------------------------------
    def _start_cycle(self) -> None:
        if self._pending:
            self._restart_after = True
            return
        self._restart_after = False
        if not self.tapes:
            self._clear()
            return
        self._pending = True
        self.director._submit(self.director.ticker_content_job(pick_tapes(self.tapes)), self._cycle_ready)

    def _clear(self) -> None:
        for segment in self.segments:
            self.remove_widget(segment["label"])
        self.segments = []

    def _cycle_ready(self, results: Any, error: BaseException | None) -> None:
        self._pending = False
        if getattr(self, "_restart_after", False):
            self._start_cycle()
            return
        self._clear()
        if error is not None or results is None:
            return
        theme = self.director.state.theme
        color = theme.secondary_fg if theme is not None else (1, 1, 1, 1)
        items = []
        for tape, context, exc in results:
            if exc is not None:
                self.director.report_failure("ticker", tape.get("ticker_type", ""), tape.get("id"), "prepare", exc)
                continue
            content = self.director.ticker_segment(tape, context)
            if content is None or not content.items:
                continue
            label = Label(text=self._text(content), font_size=self._font_size(), color=color, bold=True,
                          size_hint=(None, None))
            label.texture_update()
            label.size = label.texture_size
            self.add_widget(label)
            self.segments.append({"tape": tape, "context": context, "label": label,
                                  "refresh": content.refresh_seconds,
                                  "next_refresh": time.monotonic() + (content.refresh_seconds or 0)})
            for body in content.items:
                items.append({"ordinal": len(items), "kind": content.kind or tape.get("ticker_type", ""),
                              "body": body})
        self.cycle += 1
        self.offset = float(self.width)
        self._place()
        self.director.telemetry.ticker_programs.append({"at_ms": self.director.host.clock.now_ms(),
                                                        "items": items})

    @staticmethod
    def _text(content: Any) -> str:
        return "     \u2022     ".join(content.items)

    def _gap(self) -> float:
        return max(20.0, self.height * 1.5)

    def _place(self) -> None:
        x = self.x + self.offset
        for segment in self.segments:
            label = segment["label"]
            label.pos = (x, self.y + (self.height - label.height) / 2)
            x += label.width + self._gap()

    @property
    def row_width(self) -> float:
        return sum(s["label"].width + self._gap() for s in self.segments)

    # -- per frame -----------------------------------------------------------------------
    def tick(self, dt: float) -> None:
        if not self.segments or not self.visible:
            return
        speed = TICKER_SPEED_AT_1080 * max(1.0, self.director.root.height) / 1080.0
        self.offset -= speed * min(dt, 0.25)
        now = time.monotonic()
        for segment in self.segments:
            if segment["refresh"] and now >= segment["next_refresh"]:
                segment["next_refresh"] = now + segment["refresh"]
                content = self.director.ticker_segment(segment["tape"], segment["context"])
                if content is not None and content.items:
                    label = segment["label"]
                    label.text = self._text(content)
                    label.texture_update()
                    label.size = label.texture_size
        self._place()
        if self.offset + self.row_width < 0 and not self._pending:
            self._start_cycle()

    def jump(self, direction: str) -> None:
        """Bring the next (or previous) segment to the left edge."""
        if not self.segments:
            return
        starts, x = [], self.offset
        for segment in self.segments:
            starts.append(x)
            x += segment["label"].width + self._gap()
        margin = self.width * 0.02
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
