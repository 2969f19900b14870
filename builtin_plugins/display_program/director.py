"""The director: what the canvas shows, built from hook-provided renderers.

Runs on the UI thread once the runtime attaches it; everything that reads the database
(program snapshots, renderer ``prepare`` steps) runs on one loader thread and comes back
through ``Clock.schedule_once``. Layers, bottom to top: theme backdrop, slides, overlays,
alerts, ticker bar.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from pony import orm

from builtin_plugins.display_program.source import program_source
from builtin_plugins.display_program.windows import overlay_active
from builtin_plugins.display_renderers.base import RenderContext, TickerContent
from builtin_plugins.display_renderers.theme import Theme, resolve_theme

log = logging.getLogger("builtin_plugins.display_program")

REFRESH_SECONDS = 0.5
RETRY_SECONDS = 5.0
CROSSFADE_SECONDS = 0.6
HISTORY = 50
DEFAULT_DWELL = 15.0
TICKER_SPEED_AT_1080 = 150.0  # pixels per second at 1080 px canvas height


def fingerprint(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class DisplayState:
    """One loader-thread reading of the program and the settings."""

    screens: list[dict] = field(default_factory=list)
    tapes: list[dict] = field(default_factory=list)
    overlays: list[dict] = field(default_factory=list)
    alerts: list[dict] = field(default_factory=list)
    controls: dict = field(default_factory=lambda: {"screens_enabled": True, "ticker_enabled": True})
    theme: Theme | None = None
    text_scale_screen: float = 1.0
    text_scale_ticker: float = 1.0
    timezone: str = "UTC"
    time_format: str = "24h"
    date_order: str = "ymd"
    temperature_unit: str = "c"

    @property
    def settings_key(self) -> str:
        return fingerprint([self.theme.id if self.theme else None, self.theme, self.text_scale_screen,
                            self.text_scale_ticker, self.timezone, self.time_format, self.date_order,
                            self.temperature_unit])


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)


def pick_tapes(tapes: list[dict]) -> list[dict]:
    """One marquee cycle's tapes: each with probability weight / highest weight (the heaviest always)."""
    weights = [max(0.0, _number(t.get("frequency_weight", 1), 1.0)) for t in tapes]
    top = max(weights, default=0.0)
    if top <= 0:
        return []
    return [t for t, w in zip(tapes, weights) if w >= top or random.random() < w / top]


class Director:
    def __init__(self, host: Any, telemetry: Any):
        self.host = host
        self.telemetry = telemetry
        self.state = DisplayState()
        self.runtime: Any = None
        self.root: Any = None
        self._loader: concurrent.futures.ThreadPoolExecutor | None = None
        self._refreshing = False
        self._settings_key: str | None = None
        # slides
        self.current: dict | None = None  # {"row", "widget", "fingerprint"}
        self.history: list[str] = []
        self.history_pos = -1
        self._generation = 0
        self._dwell_event: Any = None
        self._retry_event: Any = None
        self._program_key: str | None = None
        # overlays, alerts
        self.overlays: dict[str, dict] = {}  # id -> {"fingerprint", "widget" or None, "failed"}
        self._alerts_key: str | None = None
        self.ticker: Any = None
        self.frames = 0

    # ------------------------------------------------------------------ lifecycle (UI thread)
    def attach(self, root: Any, runtime: Any) -> None:
        from kivy.clock import Clock
        from kivy.uix.floatlayout import FloatLayout

        from builtin_plugins.display_program.marquee import Marquee
        from builtin_plugins.display_renderers.widgets import Backdrop

        self.runtime = runtime
        self.root = root
        self._loader = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="display-loader")
        self.backdrop_holder = FloatLayout(size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
        self.slides = FloatLayout(size_hint=(None, None))
        self.overlay_layer = FloatLayout(size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
        self.alert_layer = FloatLayout(size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
        self.ticker = Marquee(self)
        for widget in (self.backdrop_holder, self.slides, self.overlay_layer, self.alert_layer, self.ticker):
            root.add_widget(widget)
        self._backdrop_cls = Backdrop
        root.bind(size=lambda *_: self._layout())
        self._layout()
        bus = self.host.display_bus
        if bus is not None:
            bus.subscribe("navigate", self.navigate)
            bus.subscribe("program.changed", lambda **_: self.refresh())
        Clock.schedule_interval(self._frame, 0)
        Clock.schedule_interval(lambda _dt: self.refresh(), REFRESH_SECONDS)
        self.refresh()

    def detach(self) -> None:
        """Shutdown: stop the loader and dispose of every slide and overlay on screen (a
        video decoder or a web snapshot's browser must not outlive the display)."""
        if self._loader is not None:
            self._loader.shutdown(wait=False, cancel_futures=True)
        widgets = [entry.get("widget") for entry in self.overlays.values()]
        widgets += list(self.slides.children)
        self.overlays = {}
        for widget in widgets:
            if widget is not None:
                self._dispose(widget)

    def _layout(self) -> None:
        width, height = self.root.size
        ticker_h = self.ticker.bar_height(height) if self.ticker.visible else 0
        self.slides.size = (width, height - ticker_h)
        self.slides.pos = (0, ticker_h)
        for layer in (self.slides, self.overlay_layer, self.alert_layer):
            for child in layer.children:
                child.size, child.pos = self.slides.size, self.slides.pos
        self.ticker.size = (width, ticker_h)
        self.ticker.pos = (0, 0)

    @property
    def screen_size(self) -> tuple[int, int]:
        return int(self.slides.width), int(self.slides.height)

    # ------------------------------------------------------------------ loader plumbing
    def _submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        from kivy.clock import Clock

        def run() -> None:
            try:
                result, error = job(), None
            except Exception as exc:  # contained: handed back to the UI thread
                result, error = None, exc
            Clock.schedule_once(lambda _dt: done(result, error), 0)

        if self._loader is None:
            return
        try:
            self._loader.submit(run)
        except RuntimeError:  # shut down
            pass

    def make_context(self, kind: str, row: dict, size: tuple[int, int] | None = None) -> RenderContext:
        state = self.state
        return RenderContext(
            host=self.host, kind=kind, type_id=row.get(self._type_key(kind), ""), row=row,
            theme=state.theme or resolve_theme(None, None),
            text_scale=state.text_scale_ticker if kind == "ticker" else state.text_scale_screen,
            timezone=state.timezone, time_format=state.time_format, date_order=state.date_order,
            temperature_unit=state.temperature_unit,
            size=size or (int(self.root.width), int(self.root.height)),
        )

    @staticmethod
    def _type_key(kind: str) -> str:
        return {"screen": "screen_type", "overlay": "overlay_type", "ticker": "ticker_type"}[kind]

    def registry(self, kind: str) -> Any:
        registries = self.host.registries
        return {"screen": registries.screen_types, "overlay": registries.overlay_types,
                "ticker": registries.ticker_types}[kind]

    def renderer_for(self, kind: str, type_id: str) -> Any:
        definition = self.registry(kind).get(type_id)
        return getattr(definition, "renderer", None) if definition is not None else None

    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None:
        owner = self.registry(kind).owner.get(type_id, "unknown")
        log.error("display: %s renderer %r of plugin %r failed (%s, row %r): %s: %s; skipped",
                  kind, type_id, owner, step, row_id, type(exc).__name__, exc,
                  exc_info=(type(exc), exc, exc.__traceback__))

    def prepare_job(self, renderer: Any, context: RenderContext) -> Callable[[], Any]:
        prepare = getattr(renderer, "prepare", None)

        def job() -> Any:
            if prepare is None:
                return {}
            with orm.db_session:
                return prepare(context)

        return job

    # ------------------------------------------------------------------ state refresh
    def refresh(self) -> None:
        if self._refreshing:
            return
        self._refreshing = True
        self._submit(self._load_state, self._apply_state)

    def _load_state(self) -> DisplayState:
        host = self.host
        with orm.db_session:
            snapshot = program_source(host).snapshot() or {}
            settings = host.services.get("settings")
            get = settings.get if settings is not None else (lambda _key: None)
            key_value = settings.key_value if settings is not None else (lambda _key: None)
            state = DisplayState(
                screens=list(snapshot.get("screens") or []),
                tapes=list(snapshot.get("tapes") or []),
                overlays=list(snapshot.get("overlays") or []),
                alerts=list(snapshot.get("alerts") or []),
                theme=resolve_theme(host, get("display_theme_id") or key_value("display.theme.id")),
                text_scale_screen=min(4.0, max(0.25, _number(get("display_text_scale_screen"), 1.0))),
                text_scale_ticker=min(4.0, max(0.25, _number(get("display_text_scale_ticker"), 1.0))),
                timezone=get("display_timezone") or "UTC",
                time_format=get("controller_time_format") or "24h",
                date_order=get("controller_date_order") or "ymd",
                temperature_unit=(key_value("display.weather.temperature_unit")
                                  or get("display_weather_temperature_unit") or "c"),
            )
            state.controls.update(snapshot.get("program_controls") or {})
            overlays_on = (key_value("display.overlay.enabled") or "true").strip().lower() != "false"
        today = RenderContext(host=host, kind="overlay", type_id="", row={}, timezone=state.timezone).now().date()
        state.overlays = [o for o in state.overlays if overlays_on and overlay_active(o, today)]
        state.alerts = self._with_challenges(state.alerts)
        return state

    def _with_challenges(self, alerts: list[dict]) -> list[dict]:
        """Pending adoption challenges as security alerts, unless an alert already carries one."""
        adoption = self.host.services.get("adoption")
        if adoption is None or not hasattr(adoption, "pending_challenges"):
            return alerts
        shown = {(a.get("display_only") or {}).get("identifier") for a in alerts if a.get("display_only")}
        extra = []
        for item in adoption.pending_challenges() or []:
            if item.get("identifier") in shown:
                continue
            extra.append({"id": f"adoption:{item.get('identifier')}", "title": "Adoption request",
                          "body": f"{item.get('identifier')} asks for the role {item.get('role')}",
                          "severity": "security", "priority": 100, "source": "adoption",
                          "display_only": {"kind": "adoption", **item}})
        return alerts + extra

    def _apply_state(self, state: DisplayState | None, error: BaseException | None) -> None:
        self._refreshing = False
        if error is not None or state is None:
            log.warning("display: program refresh failed: %s: %s", type(error).__name__, error)
            return
        previous_settings = self._settings_key
        self.state = state
        settings_changed = previous_settings is not None and state.settings_key != previous_settings
        self._settings_key = state.settings_key
        self.ticker.set_visible(bool(state.controls.get("ticker_enabled", True)) and bool(self._tapes()))
        self._layout()
        self._apply_backdrop(settings_changed or previous_settings is None)
        self._apply_slides(settings_changed)
        self._apply_overlays(settings_changed)
        self._apply_alerts(settings_changed)
        self.ticker.apply(self._tapes(), settings_changed)

    def _apply_backdrop(self, changed: bool) -> None:
        if not changed:
            return
        self.backdrop_holder.clear_widgets()
        theme = self.state.theme
        if theme is not None:
            self.backdrop_holder.add_widget(self._backdrop_cls(list(theme.background), size_hint=(1, 1),
                                                               pos_hint={"x": 0, "y": 0}))

    def _show_backdrop(self, visible: bool) -> None:
        """The stage backdrop shows only when no slide covers it (it is a full-screen fill)."""
        attached = self.backdrop_holder.parent is not None
        if visible and not attached:
            self.root.add_widget(self.backdrop_holder, index=len(self.root.children))
        elif not visible and attached:
            self.root.remove_widget(self.backdrop_holder)

    # ------------------------------------------------------------------ slides
    def eligible_screens(self) -> list[dict]:
        if not self.state.controls.get("screens_enabled", True):
            return []
        rows = []
        for row in self.state.screens:
            if not row.get("enabled", True) or _number(row.get("frequency_weight", 1), 1.0) <= 0:
                continue
            if self.renderer_for("screen", row.get("screen_type", "")) is None:
                continue
            rows.append(row)
        return rows

    def _apply_slides(self, settings_changed: bool) -> None:
        eligible = self.eligible_screens()
        program_key = fingerprint([(r.get("id"), r) for r in eligible])
        program_changed = program_key != self._program_key
        self._program_key = program_key
        if program_changed and eligible:
            self._record([{"id": r.get("id"), "screen_type": r.get("screen_type"),
                           "dwell_seconds": self._dwell(r)} for r in eligible], "program_changed")
        if self.current is None:
            if eligible and not self._loading and (self._retry_event is None or program_changed):
                self._cancel_timers()
                self.advance("start")
            return
        by_id = {r.get("id"): r for r in eligible}
        current_row = by_id.get(self.current["row"].get("id"))
        if current_row is None:
            self.advance("content_changed") if eligible else self._clear_slide()
        elif fingerprint(current_row) != self.current["fingerprint"]:
            self.show(current_row, "content_changed")
        elif settings_changed:
            self.show(current_row, "settings_changed")

    _loading = False

    def _dwell(self, row: dict) -> float:
        return min(86400.0, max(1.0, _number(row.get("dwell_seconds"), DEFAULT_DWELL)))

    def _choose(self, exclude: set[str]) -> dict | None:
        candidates = [r for r in self.eligible_screens() if r.get("id") not in exclude]
        if not candidates:
            return None
        current_id = self.current["row"].get("id") if self.current else None
        if len(candidates) > 1:
            candidates = [r for r in candidates if r.get("id") != current_id] or candidates
        weights = [max(0.0, _number(r.get("frequency_weight", 1), 1.0)) for r in candidates]
        return random.choices(candidates, weights=weights, k=1)[0]

    def advance(self, reason: str, direction: str = "forward") -> None:
        """Move the slide program (dwell elapsed, navigation, content change)."""
        if direction == "back":
            by_id = {r.get("id"): r for r in self.eligible_screens()}
            pos = self.history_pos - 1
            while pos >= 0 and self.history[pos] not in by_id:
                pos -= 1
            if pos >= 0:
                self.history_pos = pos
                self.show(by_id[self.history[pos]], reason, from_history=True)
            return
        if direction == "forward" and reason.startswith("navigation") and self.history_pos < len(self.history) - 1:
            by_id = {r.get("id"): r for r in self.eligible_screens()}
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

    def show(self, row: dict, reason: str, from_history: bool = False, tried: set[str] | None = None) -> None:
        """Prepare ``row`` on the loader thread, then crossfade it in; skip it without content."""
        tried = set(tried or ()) | {row.get("id")}
        self._generation += 1
        generation = self._generation
        self._cancel_timers()
        renderer = self.renderer_for("screen", row.get("screen_type", ""))
        context = self.make_context("screen", row, self.screen_size)
        self._loading = True

        def done(data: Any, error: BaseException | None) -> None:
            if generation != self._generation:
                return
            self._loading = False
            widget = None
            if error is not None:
                self.report_failure("screen", row.get("screen_type", ""), row.get("id"), "prepare", error)
            elif data is None:
                log.info("display: screen %r has no content; skipped", row.get("id"))
            else:
                try:
                    widget = renderer(context.with_data(data))
                except Exception as exc:
                    self.report_failure("screen", row.get("screen_type", ""), row.get("id"), "build", exc)
            if widget is None:
                nxt = self._choose(tried)
                if nxt is not None:
                    self.show(nxt, reason, tried=tried)
                else:
                    self._schedule_retry()
                return
            self._put_slide(row, widget, reason, from_history)

        self._submit(self.prepare_job(renderer, context), done)

    def _put_slide(self, row: dict, widget: Any, reason: str, from_history: bool) -> None:
        from kivy.animation import Animation
        from kivy.clock import Clock

        widget.size_hint = (None, None)
        widget.size, widget.pos = self.slides.size, self.slides.pos
        old = self.current["widget"] if self.current else None
        # The new slide goes underneath the old one at full opacity; the old one fades out
        # on top of it, so no frame shows an empty stage between the two.
        self.slides.add_widget(widget, index=len(self.slides.children))
        self._show_backdrop(False)  # hidden under an opaque slide: do not pay for drawing it
        if old is not None:
            old_ref = old

            def finished(*_args: Any) -> None:
                if old_ref.parent is not None:
                    old_ref.parent.remove_widget(old_ref)
                self._dispose(old_ref)

            animation = Animation(opacity=0.0, duration=CROSSFADE_SECONDS)
            animation.bind(on_complete=finished)
            animation.start(old)
        self.current = {"row": row, "widget": widget, "fingerprint": fingerprint(row)}
        if not from_history:
            del self.history[self.history_pos + 1:]
            self.history.append(row.get("id"))
            if len(self.history) > HISTORY:
                del self.history[0]
            self.history_pos = len(self.history) - 1
        dwell = self._dwell(row)
        self._record([{"id": row.get("id"), "screen_type": row.get("screen_type"), "dwell_seconds": dwell}], reason)
        self._dwell_event = Clock.schedule_once(lambda _dt: self.advance("dwell"), dwell)

    def _clear_slide(self) -> None:
        self._cancel_timers()
        if self.current is not None:
            widget = self.current["widget"]
            if widget.parent is not None:
                widget.parent.remove_widget(widget)
            self._dispose(widget)
            self.current = None
            self._show_backdrop(True)
            self._record([], "idle")

    def _schedule_retry(self) -> None:
        from kivy.clock import Clock

        self._cancel_timers()
        if self.current is None:
            self._record([], "idle")

        def retry(_dt: float) -> None:
            self._retry_event = None
            self.advance("dwell")

        self._retry_event = Clock.schedule_once(retry, RETRY_SECONDS)

    def _cancel_timers(self) -> None:
        for name in ("_dwell_event", "_retry_event"):
            event = getattr(self, name)
            if event is not None:
                event.cancel()
                setattr(self, name, None)

    def _record(self, slides: list[dict], reason: str) -> None:
        self.telemetry.programs.append({"at_ms": self.host.clock.now_ms(), "reason": reason, "slides": slides})

    @staticmethod
    def _dispose(widget: Any) -> None:
        dispose = getattr(widget, "dispose", None)
        if dispose is not None:
            try:
                dispose()
            except Exception:
                log.exception("display: dispose failed")

    # ------------------------------------------------------------------ navigation
    def navigate(self, surface: str, direction: str) -> None:
        if surface == "ticker":
            self.ticker.jump(direction)
        else:
            self.advance(f"navigation_{direction}", direction)

    # ------------------------------------------------------------------ overlays
    def _apply_overlays(self, settings_changed: bool) -> None:
        wanted = {}
        for row in self.state.overlays:
            if self.renderer_for("overlay", row.get("overlay_type", "")) is not None:
                wanted[row.get("id")] = row
        for overlay_id in list(self.overlays):
            entry = self.overlays[overlay_id]
            row = wanted.get(overlay_id)
            if row is None or fingerprint(row) != entry["fingerprint"] or settings_changed:
                self._remove_overlay(overlay_id)
        for overlay_id, row in wanted.items():
            if overlay_id not in self.overlays:
                self._add_overlay(row)

    def _remove_overlay(self, overlay_id: str) -> None:
        entry = self.overlays.pop(overlay_id, None)
        if entry and entry.get("widget") is not None:
            widget = entry["widget"]
            if widget.parent is not None:
                widget.parent.remove_widget(widget)
            self._dispose(widget)

    def _add_overlay(self, row: dict) -> None:
        overlay_id = row.get("id")
        entry = {"fingerprint": fingerprint(row), "widget": None, "failed": False}
        self.overlays[overlay_id] = entry
        type_id = row.get("overlay_type", "")
        renderer = self.renderer_for("overlay", type_id)
        context = self.make_context("overlay", row, self.screen_size)

        def done(data: Any, error: BaseException | None) -> None:
            if self.overlays.get(overlay_id) is not entry:
                return
            if error is not None:
                entry["failed"] = True
                self.report_failure("overlay", type_id, overlay_id, "prepare", error)
                return
            if data is None:
                entry["failed"] = True
                log.info("display: overlay %r has no content; skipped", overlay_id)
                return
            try:
                widget = renderer(context.with_data(data))
            except Exception as exc:
                entry["failed"] = True
                self.report_failure("overlay", type_id, overlay_id, "build", exc)
                return
            widget.size_hint = (None, None)
            widget.size, widget.pos = self.slides.size, self.slides.pos
            entry["widget"] = widget
            self.overlay_layer.add_widget(widget)

        self._submit(self.prepare_job(renderer, context), done)

    # ------------------------------------------------------------------ alerts
    def _apply_alerts(self, settings_changed: bool) -> None:
        from builtin_plugins.display_renderers.alerts import alert_stack

        alerts = sorted(self.state.alerts, key=lambda a: -_number(a.get("priority"), 0))
        key = fingerprint([alerts, self.slides.size])
        if key == self._alerts_key and not settings_changed:
            return
        self._alerts_key = key
        self.alert_layer.clear_widgets()
        if not alerts:
            return
        context = self.make_context("screen", {"id": "alerts"}, self.screen_size)
        try:
            widget = alert_stack(context, alerts)
        except Exception:
            log.exception("display: drawing alerts failed")
            return
        widget.size_hint = (None, None)
        widget.size, widget.pos = self.slides.size, self.slides.pos
        self.alert_layer.add_widget(widget)

    # ------------------------------------------------------------------ ticker
    def _tapes(self) -> list[dict]:
        if not self.state.controls.get("ticker_enabled", True):
            return []
        tapes = []
        for tape in self.state.tapes:
            if not tape.get("enabled", True) or _number(tape.get("frequency_weight", 1), 1.0) <= 0:
                continue
            definition = self.registry("ticker").get(tape.get("ticker_type", ""))
            if definition is None:
                continue
            if getattr(definition, "renderer", None) is None and getattr(definition, "build_items", None) is None:
                continue
            tapes.append(tape)
        return sorted(tapes, key=lambda t: (_number(t.get("sort_order"), 0), str(t.get("id"))))

    def ticker_content_job(self, tapes: list[dict]) -> Callable[[], list[tuple[dict, Any, Any]]]:
        """Loader-thread step of a marquee cycle: each tape's prepared data (or its error)."""
        contexts = [(tape, self.make_context("ticker", tape)) for tape in tapes]

        def job() -> list[tuple[dict, Any, Any]]:
            results = []
            for tape, context in contexts:
                definition = self.registry("ticker").get(tape.get("ticker_type", ""))
                renderer = getattr(definition, "renderer", None)
                try:
                    with orm.db_session:
                        if renderer is not None:
                            prepare = getattr(renderer, "prepare", None)
                            data = prepare(context) if prepare is not None else {}
                        else:
                            items = definition.build_items(self.host, tape, context.now_ms())
                            data = TickerContent(items=[str(i) for i in items or []])
                    results.append((tape, context.with_data(data), None))
                except Exception as exc:
                    results.append((tape, context, exc))
            return results

        return job

    def ticker_segment(self, tape: dict, context: RenderContext) -> TickerContent | None:
        """UI-thread step: the tape's texts now (None when it has none or failed)."""
        if isinstance(context.data, TickerContent):
            return context.data
        if context.data is None:
            return None
        definition = self.registry("ticker").get(tape.get("ticker_type", ""))
        renderer = getattr(definition, "renderer", None)
        try:
            content = renderer(context)
        except Exception as exc:
            self.report_failure("ticker", tape.get("ticker_type", ""), tape.get("id"), "build", exc)
            return None
        if not isinstance(content, TickerContent):
            return None
        return content

    # ------------------------------------------------------------------ per frame
    def _frame(self, dt: float) -> None:
        self.frames += 1
        if self.current is not None:
            widget = self.current["widget"]
            tick = getattr(widget, "tick", None)
            if tick is not None:
                try:
                    tick(dt)
                except Exception as exc:
                    row = self.current["row"]
                    self.report_failure("screen", row.get("screen_type", ""), row.get("id"), "tick", exc)
                    widget.tick = None
                    self.advance("renderer_error")
        for overlay_id, entry in list(self.overlays.items()):
            widget = entry.get("widget")
            tick = getattr(widget, "tick", None) if widget is not None else None
            if tick is None:
                continue
            try:
                tick(dt)
            except Exception as exc:
                row_type = next((o.get("overlay_type", "") for o in self.state.overlays if o.get("id") == overlay_id),
                                "")
                self.report_failure("overlay", row_type, overlay_id, "tick", exc)
                if widget.parent is not None:
                    widget.parent.remove_widget(widget)
                self._dispose(widget)
                entry["widget"] = None
                entry["failed"] = True
        if self.ticker is not None:
            self.ticker.tick(dt)
