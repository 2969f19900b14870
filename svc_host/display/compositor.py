"""The compositor: the canvas as a stack of the layers plugins contribute.

It knows no feature by name. At canvas start it makes every layer of
``register_display_layers`` (bottom to top by ``z``) with a :class:`LayerStage`, puts each
layer's widget in the rectangle its spec names (:class:`hookspecs.render.Layout`) and then:

- **loads** layers on its one loader thread (a layer asks its owners' services there,
  never the UI thread) and **applies** what they loaded on the UI thread, together with the
  display preferences (``hookspecs.services.preferences``): when those change, every layer
  is loaded again and applied with ``restyle=True``;
- reloads a layer when a **change event** it follows (``LayerSpec.topics``) is published
  on the host's :class:`~svc_host.events.ChangeBus`, when the time its state says it goes
  stale (``Layer.due_ms``) comes, and every ``SVC_DISPLAY_REFRESH_SECONDS`` (default 10)
  as a slow safety net;
- **ticks** every layer each frame and runs the layers' timers (``Stage.after``) on the
  frame time (the sum of the frames' ``dt``), and routes **navigation** to the layer of
  the surface;
- **contains** a layer that raises in apply, tick or navigation: logged with the plugin that
  contributed it, its widget removed and disposed, the others keep drawing. A failed load
  is logged and the layer keeps what it shows until the next load;
- **composes** the canvas by one rule (docs/display.md, "Composition: the rule"): bottom to top
  the theme **backdrop** (while no layer covers its area, ``opaque``; filled only where nothing
  opaque lies over it, a one-colour bottom fill as a clear of the window) and the **ground** (the
  background a layer's content is drawn on, ``Layer.background``: the slide's), the layers'
  **decoration** (``Layer.decoration``: confetti, rain, frames), then every layer's widget by
  ``z`` (slide content, overlay panels, alerts, the ticker): decoration never covers what a
  viewer reads;
- **lays out** the screen (:class:`hookspecs.render.Layout`): the ticker band the layers claim,
  the zones the layers' ``arrange`` say they occupy and the ``free`` area they leave for the
  slides, again when the window resizes or a layer asks (``Stage.relayout``: an overlay came or
  went), never per frame.

For the renderers the layers use, it resolves a type's renderer, runs its ``prepare`` in a
``db_session`` and reports a renderer's failure naming the plugin that owns the type.

Kivy is imported lazily: a compositor can be made and its layers loaded without a window
(the one-owner tests do), only :meth:`Compositor.attach` needs one.
"""
from __future__ import annotations

import concurrent.futures
import logging
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pony import orm

from hookspecs.render import Layout, Preferences, Rect, RenderContext
from hookspecs.services import EVENTS, preferences, service

log = logging.getLogger("svc_host.display")

TYPE_FIELDS = {"screen": "screen_type", "overlay": "overlay_type", "ticker": "ticker_type"}
MAX_DUE_SECONDS = 86400.0
Loaded = tuple["LayerEntry", Any, "BaseException | None"]  # (layer, its state, or the error its load raised)


@dataclass
class LayerEntry:
    plugin: str
    spec: Any
    layer: Any = None
    stage: "LayerStage | None" = None
    state: Any = None
    failed: bool = False
    due_event: Any = None
    mounted: bool = False
    decorated: bool = False  # its decoration widget is mounted (under every layer's widget)


class LayerStage:
    """The :class:`hookspecs.render.Stage` of one layer: the compositor, seen from that layer."""

    def __init__(self, compositor: "Compositor", entry: LayerEntry):
        self._compositor = compositor
        self._entry = entry
        self.host = compositor.host
        self.id = entry.spec.id

    @property
    def preferences(self) -> Preferences:
        return self._compositor.preferences

    @property
    def layout(self) -> Layout:
        return self._compositor.layout

    @property
    def area(self) -> Rect:
        return self._compositor.layout.area(self._entry.spec.area) or self._compositor.layout.content

    def context(self, kind: str, row: dict[str, Any], size: tuple[int, int] | None = None) -> RenderContext:
        area = self.area
        size = size or (int(area.width), int(area.height))
        type_id = str(row.get(TYPE_FIELDS.get(kind, ""), ""))
        # the type scale follows the screen above the ticker (portrait: as a landscape screen's), not
        # the layer's area: overlays and alerts take room, not type size
        layout = self._compositor.layout
        type_height = layout.type_height if self._entry.spec.area != "ticker" else None
        # what an overlay panel's size_hint is a fraction of (the overlays layer places it by the layout)
        reference = layout.reference if kind == "overlay" else None
        return self.preferences.context(self.host, kind, type_id, row, size, type_height, reference)

    def renderer(self, kind: str, type_id: str) -> Any:
        return self._compositor.renderer_for(kind, type_id)

    def prepare(self, renderer: Any, context: RenderContext) -> Any:
        """Loader thread: the renderer's ``prepare(context)`` in a ``db_session`` (``{}`` without one)."""
        step = getattr(renderer, "prepare", None)
        if step is None:
            return {}
        with orm.db_session:
            return step(context)

    def submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        self._compositor.submit(job, self._guarded(done, "loader callback"))

    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None:
        self._compositor.report_failure(kind, type_id, row_id, step, exc)

    def reload(self) -> None:
        self._compositor.refresh([self.id])

    def relayout(self) -> None:
        self._compositor.relayout()

    def content_changed(self) -> None:
        self._compositor.content_changed()

    def after(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        return self._compositor.after(seconds, self._guarded(lambda: callback(), "timer"))

    def _guarded(self, callback: Callable[..., Any], step: str) -> Callable[..., Any]:
        """``callback`` with its failure contained: the layer is removed, the canvas keeps running."""

        def run(*args: Any) -> None:
            if self._entry.failed:
                return
            try:
                callback(*args)
            except Exception as exc:  # noqa: BLE001  contained, named
                self._compositor.fail(self._entry, step, exc)

        return run


class Compositor:
    """The layers of the canvas, their loading, drawing, events and failures (see the module doc)."""

    def __init__(self, host: Any, layers: Iterable[tuple[str, Any, Any]] | None = None):
        self.host = host
        self._resolved = layers
        self.preferences = Preferences()
        self.layout = Layout.of(1920, 1080)
        self.entries: list[LayerEntry] = []
        self.root: Any = None
        self.backdrop: Any = None
        self._backdrop_theme: Any = None
        self.ground: Any = None  # the backdrop of a layer's own background (Layer.background), over the theme's
        self._masks: dict[str, "DecorationMask"] = {}  # layer id -> the stencil keeping its decoration off content
        self._unmasked = 0  # frames the content boxes are measured again (layouts settle a frame late)
        self._remask: Any = None  # Kivy trigger: measure them before the next frame is drawn
        self._loader: concurrent.futures.ThreadPoolExecutor | None = None
        self._loading = False
        self._wanted: set[str] = set()
        self._pending = False
        self._unsubscribe: Callable[[], None] | None = None
        self._events: list[Any] = []
        self.elapsed = 0.0  # seconds of frames (the sum of the frames' dt): the layers' timers run on it
        self._timers: list[list[Any]] = []  # heap of [due, sequence, callback or None when cancelled]
        self._sequence = 0
        self.in_flight = 0  # loader jobs whose callback has not run yet
        self.paused = False  # dark (runtime.go_dark): no frame, timer, refresh or load runs
        self._frames = True
        self._reported: set[tuple] = set()

    # ------------------------------------------------------------------ building
    def create_layers(self) -> list[LayerEntry]:
        """Make every layer with its stage (UI thread; no widget is touched here)."""
        from svc_host.plugins import resolve_layers

        resolved = self._resolved if self._resolved is not None else resolve_layers(self.host)
        for plugin, spec, factory in resolved:
            entry = LayerEntry(plugin=plugin, spec=spec)
            entry.stage = LayerStage(self, entry)
            try:
                entry.layer = factory(entry.stage)
            except Exception as exc:  # noqa: BLE001  a layer that cannot be made is left out
                self.fail(entry, "create", exc)
                continue
            self.entries.append(entry)
        return self.entries

    def live(self) -> list[LayerEntry]:
        return [entry for entry in self.entries if not entry.failed]

    def entry(self, layer_id: str) -> LayerEntry | None:
        return next((entry for entry in self.entries if entry.spec.id == layer_id), None)

    def attach(self, root: Any, frames: bool = True) -> None:
        """Build the canvas in ``root`` (UI thread) and start loading.

        ``frames=False`` leaves the frames to the caller (:meth:`frame` with a ``dt`` of its own:
        the tests drive the canvas's time that way); otherwise Kivy's clock calls it every frame."""
        from kivy.clock import Clock

        from svc_host.display.backdrop import Backdrop

        self.root = root
        self._frames = frames
        self._remask = Clock.create_trigger(lambda _dt: self._mask_decoration(), -1)  # after the layouts
        self._loader = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                             thread_name_prefix="display-loader")
        self.create_layers()
        self.backdrop = Backdrop(list(self.preferences.theme.background), size_hint=(None, None))
        self._backdrop_theme = self.preferences.theme
        root.add_widget(self.backdrop)
        for entry in self.live():  # decoration: over the backdrop, under every layer's content
            try:
                decoration = getattr(entry.layer, "decoration", None)
                if decoration is not None:
                    decoration.size_hint = (None, None)
                    root.add_widget(decoration)
                    entry.decorated = True
            except Exception as exc:  # noqa: BLE001
                self.fail(entry, "create", exc)
        for entry in self.live():
            try:
                widget = entry.layer.widget
                widget.size_hint = (None, None)
                root.add_widget(widget)
                entry.mounted = True
            except Exception as exc:  # noqa: BLE001
                self.fail(entry, "create", exc)
        if not self.entries:
            log.info("display: no layers; the canvas shows the theme backdrop")
        root.bind(size=lambda *_args: self.relayout())
        self.relayout()
        bus = self.host.display_bus
        if bus is not None:
            bus.subscribe("navigate", self.navigate)
            bus.subscribe("changed", self.changed)
            events = service(self.host, EVENTS)
            if events is not None:
                self._unsubscribe = events.subscribe(lambda topic: bus.post("changed", topic=topic))
        self._schedule()
        self.refresh()

    def _schedule(self) -> None:
        from kivy.clock import Clock

        if self._frames:
            self._events.append(Clock.schedule_interval(self.frame, 0))
        self._events.append(Clock.schedule_interval(lambda _dt: self.refresh(),
                                                    float(self.host.settings.display_refresh_seconds)))

    def _unschedule(self) -> None:
        for event in self._events:
            event.cancel()
        self._events.clear()

    def pause(self) -> None:
        """Dark (UI thread): stop everything that schedules work (the frame callback, so the layers'
        ticks and frame-time timers; the periodic refresh; the layers' due reloads; new loads) but keep
        the layers and their state, so :meth:`resume` goes on from the slide that was showing."""
        self.paused = True
        self._unschedule()
        for entry in self.entries:
            if entry.due_event is not None:
                entry.due_event.cancel()
                entry.due_event = None

    def resume(self) -> None:
        """Light again (UI thread): frames and refreshes run again, and every layer is loaded again
        (what changed while dark is applied; its due reload is scheduled again)."""
        if not self.paused:
            return
        self.paused = False
        self._schedule()
        self.refresh()

    def detach(self) -> None:
        """Shutdown: stop loading and dispose of every layer (a decoder or a browser must not outlive it)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unschedule()
        if self._loader is not None:
            self._loader.shutdown(wait=False, cancel_futures=True)
        for entry in self.entries:
            if not entry.failed:
                self._dispose(entry)

    # ------------------------------------------------------------------ geometry
    def relayout(self) -> None:
        """Recompute the layout from the layers' claims and place every layer's widget."""
        if self.root is None:
            return
        width, height = self.root.size
        screen = Rect(0.0, 0.0, float(width), float(height))
        claims: dict[str, float] = {}
        for entry in self.live():
            claim = getattr(entry.layer, "claims", None)
            if claim is None:
                continue
            try:
                for name, value in (claim(screen) or {}).items():
                    claims[name] = max(claims.get(name, 0.0), float(value))
            except Exception as exc:  # noqa: BLE001
                self.fail(entry, "claims", exc)
        layout = Layout.of(width, height, claims)
        occupied: list = []
        for entry in self.live():
            arrange = getattr(entry.layer, "arrange", None)
            if arrange is None:
                continue
            try:
                occupied.extend(arrange(layout) or ())
            except Exception as exc:  # noqa: BLE001
                self.fail(entry, "arrange", exc)
        self.layout = layout.with_occupied(occupied)
        self.backdrop.pos, self.backdrop.size = (0, 0), (width, height)
        for entry in self.live():
            rect = self.layout.area(entry.spec.area) or self.layout.content
            if entry.decorated:
                decoration = entry.layer.decoration
                decoration.pos, decoration.size = rect.pos, rect.size
                decoration.opacity = 1.0 if rect.area > 0 else 0.0
            if not entry.mounted:
                continue
            widget = entry.layer.widget
            widget.pos, widget.size = rect.pos, rect.size
            if entry.spec.area in ("content", "free"):  # they wait (hidden) while a full-screen alert is up
                widget.opacity = 1.0 if rect.area > 0 else 0.0
        self._restyle_backdrop()
        self.content_changed()

    def content_changed(self) -> None:
        """What the layers show moved or changed (a slide, a panel, a card): the ground and the
        backdrop's cover follow the layers' ``background`` and ``opaque`` now (they change only with
        a layout or a layer's content, so they are not checked per frame), and the boxes decoration
        must leave alone are measured again before the next frame is drawn and on the two frames
        after it (a nested layout settles a frame late) (``Stage.content_changed``)."""
        if self.backdrop is not None and self.root is not None:
            self._lay_ground()
            self._cover_backdrop()
        self._unmasked = 2
        if self._remask is not None:
            self._remask()

    def content_boxes(self) -> list[Rect]:
        """The window rectangles decoration never draws in: every text, image, drawing, QR code and
        marked panel (``reserve``) of every mounted layer's widget (see :func:`content_boxes`)."""
        boxes: list[Rect] = []
        for entry in self.live():
            if entry.mounted:
                boxes.extend(content_boxes(entry.layer.widget))
        return boxes

    def _mask_decoration(self) -> None:
        decorated = [entry for entry in self.live() if entry.decorated and entry.layer.decoration.children]
        if not decorated:  # nothing decorates: no boxes to measure (an empty decoration draws nothing)
            return
        boxes = self.content_boxes()
        for entry in decorated:
            mask = self._masks.get(entry.spec.id)
            if mask is None:
                mask = self._masks[entry.spec.id] = DecorationMask(entry.layer.decoration)
            mask.update(boxes)

    def _restyle_backdrop(self) -> None:
        from svc_host.display.backdrop import Backdrop

        theme = self.preferences.theme
        if theme != self._backdrop_theme:
            index = self.root.children.index(self.backdrop) if self.backdrop.parent is not None else None
            if index is not None:
                self.root.remove_widget(self.backdrop)
            self.backdrop = Backdrop(list(theme.background), size_hint=(None, None), pos=(0, 0),
                                     size=self.root.size)
            self._backdrop_theme = theme
            if index is not None:
                self.root.add_widget(self.backdrop, index=index)

    def _lay_ground(self) -> None:
        """Paint the background a layer's content is drawn on (``Layer.background``: the slide's)
        in its area, over the theme backdrop and under the decoration. The theme's own gradient is
        the backdrop already: one gradient across the screen, no seam where the slide area ends."""
        from svc_host.display.backdrop import Backdrop

        colors, rect = None, None
        for entry in self.live():
            background = getattr(entry.layer, "background", None)
            if background:
                colors = tuple(tuple(c) for c in background)
                rect = self.layout.area(entry.spec.area) or self.layout.content
                break
        if colors == self.backdrop.colors and not self._opaque_cover():
            colors = None  # the backdrop shows it (it comes back in _cover_backdrop if the ground had it off)
        if self.ground is not None and (colors is None or colors != self.ground.colors):
            self.root.remove_widget(self.ground)
            self.ground = None
        if colors is None or rect is None:
            return
        if self.ground is None:
            self.ground = Backdrop(list(colors), size_hint=(None, None))
            bottom = len(self.root.children) - (1 if self.backdrop.parent is not None else 0)
            self.root.add_widget(self.ground, index=bottom)
        self.ground.pos, self.ground.size = rect.pos, rect.size

    def _opaque_cover(self) -> bool:
        """A layer that draws its own picture edge to edge (``opaque``) covers the content area."""
        layout = self.layout
        return any(getattr(entry.layer, "opaque", False) for entry in self.live()
                   if layout.area(entry.spec.area) in (layout.screen, layout.content))

    def _cover_backdrop(self) -> None:
        """Take the theme backdrop off while something opaque covers its area, put it back (at the
        bottom) when nothing does; called after :meth:`_lay_ground`, in the same frame."""
        layout = self.layout
        covered = self._opaque_cover()
        # the ground (a slide's own background) painted over the whole content area covers the
        # backdrop as an opaque slide does: without this both filled the screen on every frame
        # (issue 29: 26 ms of CPU a ticker frame on llvmpipe against 15 ms)
        ground = self.ground
        covered = covered or (ground is not None and ground.parent is not None
                              and all(len(c) < 4 or c[3] >= 1 for c in ground.colors)
                              and Rect(float(ground.x), float(ground.y), float(ground.width),
                                       float(ground.height)) in (layout.screen, layout.content))
        attached = self.backdrop.parent is not None
        # a full-screen fill under an opaque slide costs a frame's worth of fill rate on llvmpipe
        if covered and attached:
            self.root.remove_widget(self.backdrop)
        elif not covered and not attached:
            self.root.add_widget(self.backdrop, index=len(self.root.children))
        # the bottom-most fill, when it is one opaque colour, is a clear of the window rather than a
        # rectangle (Backdrop.clear_window): the backdrop (the whole screen) while it is attached, the
        # ground while it covers the backdrop (what it leaves is the ticker band, drawn over it)
        bottom = self.root.children[-1] if self.root.children else None
        self.backdrop.clear_window(bottom is self.backdrop)
        if ground is not None:
            ground.clear_window(covered and bottom is ground)
        if self.backdrop.parent is not None and not self.backdrop.clears:
            # a gradient is filled only where nothing opaque lies over it: not under the slide's
            # ground in the free area nor under an opaque layer (the ticker band)
            holes = self._opaque_over_backdrop()
            self.backdrop.show_only(uncovered(layout.screen, holes) if holes else None)

    def _opaque_over_backdrop(self) -> list[Rect]:
        """The window rectangles drawn opaque over the backdrop: the ground of opaque colours and
        the area of each shown layer that says it is ``opaque``; each to the whole pixels inside it,
        so the backdrop's pieces leave no seam."""
        layout, rects = self.layout, []
        ground = self.ground
        if ground is not None and ground.parent is not None and all(len(c) < 4 or c[3] >= 1 for c in ground.colors):
            rects.append(Rect(float(ground.x), float(ground.y), float(ground.width), float(ground.height)))
        for entry in self.live():
            if entry.mounted and getattr(entry.layer, "opaque", False) and entry.layer.widget.opacity >= 1:
                rects.append(layout.area(entry.spec.area) or layout.content)
        inside = [Rect(float(math.ceil(r.x)), float(math.ceil(r.y)), float(math.floor(r.right) - math.ceil(r.x)),
                       float(math.floor(r.top) - math.ceil(r.y))) for r in rects]
        return [r for r in inside if r.width > 0 and r.height > 0]

    # ------------------------------------------------------------------ loading
    def refresh(self, layer_ids: Iterable[str] | None = None) -> None:
        """Load the preferences and the given layers (all when None) again, then apply them."""
        self._pending = True
        self._wanted |= {entry.spec.id for entry in self.live()} if layer_ids is None else set(layer_ids)
        self._start_load()

    def changed(self, topic: str) -> None:
        """A change event (UI thread): reload the layers that follow ``topic`` (and the preferences)."""
        self.refresh([entry.spec.id for entry in self.live() if topic in entry.spec.topics])

    def load(self, layer_ids: Iterable[str] | None = None) -> tuple[Preferences, list[Loaded]]:
        """One load (loader thread, or a test's thread): the preferences and ``(entry, state, error)``
        of each wanted layer; every layer when the preferences changed."""
        known = self.preferences
        try:
            prefs = preferences(self.host)
        except Exception:  # noqa: BLE001  keep drawing with what we have
            log.exception("display: reading the display preferences failed")
            prefs = known
        wanted = set(layer_ids) if layer_ids is not None else {entry.spec.id for entry in self.live()}
        if prefs != known:
            wanted = {entry.spec.id for entry in self.live()}
        results = []
        for entry in self.live():
            if entry.spec.id not in wanted:
                continue
            try:
                results.append((entry, entry.layer.load(), None))
            except Exception as exc:  # noqa: BLE001  reported on the UI thread
                results.append((entry, None, exc))
        return prefs, results

    def _start_load(self) -> None:
        if self._loading or not self._pending or self._loader is None or self.paused:
            return
        wanted, self._wanted, self._pending = self._wanted, set(), False
        self._loading = True
        self.submit(lambda: self.load(wanted), self._loaded)

    def _loaded(self, result: Any, error: BaseException | None) -> None:
        self._loading = False
        try:
            if error is not None or result is None:
                log.warning("display: loading the layers failed: %s: %s", type(error).__name__, error)
                return
            prefs, results = result
            restyle = prefs != self.preferences
            self.preferences = prefs
            for entry, state, exc in results:
                if entry.failed:
                    continue
                if exc is not None:
                    log.error("display: layer %r of plugin %r failed to load: %s: %s; it keeps what it shows",
                              entry.spec.id, entry.plugin, type(exc).__name__, exc,
                              exc_info=(type(exc), exc, exc.__traceback__))
                    continue
                self.apply(entry, state, restyle)
            self.relayout()
        finally:
            self._start_load()  # what was asked for meanwhile

    def apply(self, entry: LayerEntry, state: Any, restyle: bool) -> None:
        """UI thread: hand ``state`` to the layer; schedule its reload when the state goes stale."""
        try:
            entry.layer.apply(state, restyle)
        except Exception as exc:  # noqa: BLE001
            self.fail(entry, "apply", exc)
            return
        entry.state = state
        self._schedule_due(entry, state)

    def _schedule_due(self, entry: LayerEntry, state: Any) -> None:
        from kivy.clock import Clock

        if entry.due_event is not None:
            entry.due_event.cancel()
            entry.due_event = None
        if self.paused:  # a load finished after dark: resume loads every layer again
            return
        due = self._call(entry, "due_ms", state)
        if due is None:
            return
        delay = min(MAX_DUE_SECONDS, max(0.05, (due - self.host.clock.now_ms()) / 1000.0))
        layer_id = entry.spec.id
        entry.due_event = Clock.schedule_once(lambda _dt: self.refresh([layer_id]), delay)

    def submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        """Run ``job`` on the loader thread, then ``done(result, error)`` on the UI thread."""
        from kivy.clock import Clock

        def run() -> None:
            try:
                result, error = job(), None
            except Exception as exc:  # contained: handed back to the UI thread
                result, error = None, exc
            Clock.schedule_once(lambda _dt: finished(result, error), 0)

        def finished(result: Any, error: BaseException | None) -> None:
            self.in_flight -= 1
            done(result, error)

        if self._loader is None:
            return
        try:
            self._loader.submit(run)
            self.in_flight += 1
        except RuntimeError:  # shut down
            pass

    def after(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` on the first frame ``seconds`` of frame time from now; returns its cancel."""
        import heapq

        self._sequence += 1
        timer = [self.elapsed + max(0.0, seconds), self._sequence, callback]
        heapq.heappush(self._timers, timer)

        def cancel() -> None:
            timer[2] = None

        return cancel

    def _run_timers(self) -> None:
        import heapq

        while self._timers and self._timers[0][0] <= self.elapsed:
            callback = heapq.heappop(self._timers)[2]
            if callback is not None:
                callback()

    # ------------------------------------------------------------------ per frame, navigation
    def frame(self, dt: float) -> None:
        """One frame: the frame time moves by ``dt``, due timers run, every layer ticks."""
        self.elapsed += max(0.0, dt)
        self._run_timers()
        for entry in self.live():
            self._call(entry, "tick", dt)
        if self._unmasked > 0:
            self._unmasked -= 1
            self._mask_decoration()

    def navigate(self, surface: str, direction: str) -> None:
        for entry in self.live():
            if entry.spec.surface == surface:
                self._call(entry, "navigate", direction)

    # ------------------------------------------------------------------ failures
    def _call(self, entry: LayerEntry, hook: str, *args: Any) -> Any:
        """The layer's optional ``hook(*args)``; None when the layer has no such hook or it failed
        (the failure is contained: :meth:`fail`)."""
        method = getattr(entry.layer, hook, None)
        if method is None:
            return None
        try:
            return method(*args)
        except Exception as exc:  # noqa: BLE001
            self.fail(entry, hook, exc)
            return None

    def fail(self, entry: LayerEntry, step: str, exc: BaseException) -> None:
        """Contain a layer's failure: log it naming the plugin, remove and dispose the layer."""
        log.error("display: layer %r of plugin %r failed (%s): %s: %s; removed, the others keep drawing",
                  entry.spec.id, entry.plugin, step, type(exc).__name__, exc,
                  exc_info=(type(exc), exc, exc.__traceback__))
        entry.failed = True
        if entry.due_event is not None:
            entry.due_event.cancel()
            entry.due_event = None
        if entry.layer is not None:
            self._dispose(entry)

    def _dispose(self, entry: LayerEntry) -> None:
        if entry.decorated:
            decoration = entry.layer.decoration
            if decoration.parent is not None:
                decoration.parent.remove_widget(decoration)
            entry.decorated = False
        if entry.mounted:
            widget = entry.layer.widget
            if widget.parent is not None:
                widget.parent.remove_widget(widget)
            entry.mounted = False
        dispose = getattr(entry.layer, "dispose", None)
        if dispose is not None:
            try:
                dispose()
            except Exception:  # noqa: BLE001
                log.exception("display: layer %r of plugin %r failed to dispose", entry.spec.id, entry.plugin)

    # ------------------------------------------------------------------ renderers
    def registry(self, kind: str) -> Any:
        registries = self.host.registries
        return {"screen": registries.screen_types, "overlay": registries.overlay_types,
                "ticker": registries.ticker_types}[kind]

    def renderer_for(self, kind: str, type_id: str) -> Any:
        """The type's renderer (resolved and checked at canvas start); None for an unknown type."""
        registry = self.registry(kind)
        if registry.get(type_id) is None:
            return None
        try:
            return registry.renderer(type_id)
        except Exception as exc:  # noqa: BLE001  a renderer that does not resolve: logged with its plugin
            log.error("display: %s", exc)
            registry.drop_renderer(type_id)
            return None

    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None:
        """Log a renderer's failure naming its plugin; the same failure again (a slide that
        fails each cycle) is one line without the traceback."""
        owner = self.registry(kind).owner.get(type_id, "unknown")
        key = (kind, type_id, row_id, step, type(exc).__name__, str(exc))
        again = key in self._reported
        self._reported.add(key)
        log.error("display: %s renderer %r of plugin %r failed (%s, row %r): %s: %s; skipped%s",
                  kind, type_id, owner, step, row_id, type(exc).__name__, exc, " (again)" if again else "",
                  exc_info=None if again else (type(exc), exc, exc.__traceback__))


# ---------------------------------------------------------------------- decoration behind content
CONTENT_WIDGETS = ("Label", "Image", "ImageFill", "Drawing")
"""The widget classes (by name, any subclass) whose box is content decoration never draws in."""


def content_boxes(root: Any) -> list[Rect]:
    """The window rectangles of ``root``'s content: labels with text, images (a QR code is one),
    drawings, widgets with a ``role`` (a slide's title, primary text, a celebration message) and
    widgets marked ``reserve`` (an overlay panel: the whole box). Invisible widgets are left out."""
    boxes: list[Rect] = []

    def visit(widget: Any) -> None:
        if widget.opacity <= 0 or widget.width <= 0 or widget.height <= 0 or getattr(widget, "moves", False):
            return  # a message that moves itself (the bouncing one) is over the decoration anyway
        kinds = {kind.__name__ for kind in type(widget).__mro__}
        reserved = getattr(widget, "reserve", False)
        if reserved or getattr(widget, "role", None) or (
                kinds.intersection(CONTENT_WIDGETS) and (getattr(widget, "text", None) != "" or "Label" not in kinds)):
            x, y = widget.to_window(widget.x, widget.y)
            boxes.append(Rect(float(x), float(y), float(widget.width), float(widget.height)))
            if reserved:
                return
        for child in widget.children:
            visit(child)

    for child in root.children:
        visit(child)
    return boxes


class DecorationMask:
    """A stencil around a decoration widget's drawing: nothing of it lands inside the boxes given
    (:meth:`update`). The stencil is Kivy's own (push, mask, use, unuse, mask again, pop), so a
    decoration that draws through a stencil itself (a wide translucent ``Line``) nests in it; its
    mask is the widget's area less the boxes, as rectangles that do not overlap (Kivy's rule)."""

    def __init__(self, widget: Any):
        from kivy.graphics import InstructionGroup, StencilPop, StencilPush, StencilUnUse, StencilUse

        self.widget = widget
        self.push, self.pop = InstructionGroup(), InstructionGroup()
        self.before_rects, self.after_rects = InstructionGroup(), InstructionGroup()
        self.push.add(StencilPush())
        self.push.add(self.before_rects)
        self.push.add(StencilUse())
        self.pop.add(StencilUnUse())
        self.pop.add(self.after_rects)
        self.pop.add(StencilPop())
        widget.canvas.before.add(self.push)
        widget.canvas.after.add(self.pop)
        self.drawn: list[tuple[float, float, float, float]] | None = None

    def update(self, boxes: list[Rect]) -> None:
        from kivy.graphics import Rectangle

        x, y = self.widget.to_window(self.widget.x, self.widget.y)
        area = Rect(float(x), float(y), float(self.widget.width), float(self.widget.height))
        rects = uncovered(area, boxes)
        if rects == self.drawn:
            return
        self.drawn = rects
        for group in (self.before_rects, self.after_rects):
            group.clear()
            for left, bottom, width, height in rects:
                group.add(Rectangle(pos=(left, bottom), size=(width, height)))


def uncovered(area: Rect, boxes: list[Rect]) -> list[tuple[float, float, float, float]]:
    """``area`` less ``boxes`` (each widened to whole pixels: a pixel a box touches is the content's)
    as rectangles ``(x, y, width, height)`` that do not overlap: vertical slabs between the boxes'
    edges, each less the boxes across it. Written here because Kivy's stencil only adds shapes."""
    whole = [(math.floor(b.x), math.floor(b.y), math.ceil(b.right), math.ceil(b.top)) for b in boxes]
    whole = [(max(area.x, x0), max(area.y, y0), min(area.right, x1), min(area.top, y1)) for x0, y0, x1, y1 in whole]
    whole = [b for b in whole if b[2] > b[0] and b[3] > b[1]]
    edges = sorted({area.x, area.right, *(b[0] for b in whole), *(b[2] for b in whole)})
    slabs: list[tuple[float, float, list[tuple[float, float]]]] = []  # (left, right, free y intervals)
    for left, right in zip(edges, edges[1:]):
        bottom, gaps = area.y, []
        for y0, y1 in sorted((b[1], b[3]) for b in whole if b[0] <= left and b[2] >= right):
            if y0 > bottom:
                gaps.append((bottom, y0))
            bottom = max(bottom, y1)
        if area.top > bottom:
            gaps.append((bottom, area.top))
        if slabs and slabs[-1][2] == gaps and slabs[-1][1] == left:  # the same gaps: one wider slab
            slabs[-1] = (slabs[-1][0], right, gaps)
        else:
            slabs.append((left, right, gaps))
    return [(left, y0, right - left, y1 - y0) for left, right, gaps in slabs for y0, y1 in gaps]
