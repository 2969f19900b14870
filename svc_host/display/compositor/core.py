"""The compositor: the canvas as a stack of the layers plugins contribute (see the package doc)."""
from __future__ import annotations

import concurrent.futures
import logging
from typing import Any, Callable, Iterable

from hookspecs.render import Preferences, Rect
from hookspecs.services import EVENTS, SCREEN_REPORT, service
from svc_host.kit.services import publish
from svc_host.display.compositor import placement
from svc_host.display.compositor.ground import Grounds
from svc_host.display.compositor.loading import Loading
from svc_host.display.compositor.masking import DecorationMasks, boxes_of
from svc_host.display.compositor.stage import LayerEntry, LayerStage
from svc_host.display.compositor.voice import one_voice
from svc_host.kit.display.layout import layout_of
from svc_host.display.truth import ScreenTruth

log = logging.getLogger("svc_host.display")

TYPES_FILE = "display-types.json"  # in the data dir: which plugin registered which type (svc_host.display.truth)


class Compositor(Loading, Grounds):
    """The layers of the canvas, their loading, drawing, events and failures (see the package doc).
    Loading and timers are :class:`~.loading.Loading`'s, the backdrop and ground :class:`~.ground.Grounds`'."""

    def __init__(self, host: Any, layers: Iterable[tuple[str, Any, Any]] | None = None):
        self.host = host
        self._resolved = layers
        self.preferences = Preferences()
        self.layout = layout_of(1920, 1080)
        self.entries: list[LayerEntry] = []
        self.root: Any = None
        self.backdrop: Any = None
        self._backdrop_theme: Any = None
        self.ground: Any = None  # the backdrop of a layer's own background (Layer.background), over the theme's
        self._masks = DecorationMasks()  # the stencils keeping the layers' decoration off content
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
        self.truth = ScreenTruth(self.unavailable, lambda: self.elapsed, lambda: self.host.clock.now_ms(),
                                 lambda topic: publish(self.host, topic), self.owner_of)

    # ------------------------------------------------------------------ building
    def create_layers(self) -> list[LayerEntry]:
        """Make every layer with its stage (UI thread; no widget is touched here)."""
        from svc_host.registries import resolve_layers

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

        self.root = root
        self._frames = frames
        self.host.services[SCREEN_REPORT] = self.truth
        self._remember_types()
        self._remask = Clock.create_trigger(lambda _dt: self._mask_decoration(), -1)  # after the layouts
        self._loader = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                             thread_name_prefix="display-loader")
        self.create_layers()
        self._mount_backdrop(root)
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

    def _remember_types(self) -> None:
        """Tell the truth which plugin registers which type (kept across runs: a type whose plugin
        is disabled or failed to load is named with it) and why a plugin is not loaded."""
        from pathlib import Path

        plugins = getattr(self.host, "plugins", None)
        not_loaded = {name: "disabled by SVC_DISPLAY_DISABLE_PLUGINS" for name in getattr(plugins, "disabled", {})}
        not_loaded.update({name: f"failed to load: {reason}"
                           for name, (_info, reason) in getattr(plugins, "failed", {}).items()})
        registered = {kind: dict(self.registry(kind).owner) for kind in ("screen", "overlay", "ticker")}
        data_dir = getattr(getattr(self.host, "settings", None), "data_dir", None)
        if data_dir is not None:
            self.truth.remember(Path(data_dir) / TYPES_FILE, registered, not_loaded)

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
        self.truth.dark(True)
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
        self.truth.dark(False)
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
        """Recompute the layout from the layers' claims and place every layer's widget (:mod:`.placement`)."""
        if self.root is None:
            return
        width, height = self.root.size
        prefs = self.preferences  # the overscan and the theme's title-safe inset
        self.layout = placement.lay_out(self.live(), width, height, self.fail, prefs.overscan_percent,
                                        prefs.theme.safe_inset)
        self.backdrop.pos, self.backdrop.size = (0, 0), (width, height)
        placement.place(self.live(), self.layout)
        self._restyle_backdrop()
        self.content_changed()

    def content_changed(self) -> None:
        """What the layers show moved or changed (a slide, a panel, a card): the ground and the
        backdrop's cover follow the layers' ``background`` and ``opaque`` now (:mod:`.ground`), the
        one-voice rule is applied again (:mod:`.voice`), and the boxes decoration must leave alone
        are measured again before the next frame is drawn and on the two frames after it (a nested
        layout settles a frame late) (:mod:`.masking`; ``Stage.content_changed``)."""
        self._follow_grounds()
        self.one_voice()
        self._unmasked = 2
        if self._remask is not None:
            self._remask()

    def one_voice(self) -> None:
        """One voice per fact across the layers (:func:`.voice.one_voice`)."""
        one_voice(self.live())

    def content_boxes(self) -> list[Rect]:
        """The window rectangles decoration never draws in (:func:`.masking.boxes_of`)."""
        return boxes_of(self.live())

    def _mask_decoration(self) -> None:
        self._masks.update(self.live())

    # ------------------------------------------------------------------ per frame, navigation
    def frame(self, dt: float) -> None:
        """One frame: the frame time moves by ``dt``, due timers run, every layer ticks."""
        self.elapsed += max(0.0, dt)
        self._run_timers()
        for entry in self.live():
            self._call(entry, "tick", dt)
        self.truth.frame()
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

    def owner_of(self, kind: str, type_id: str) -> str | None:
        """The plugin that registered ``type_id`` (None: no loaded plugin did)."""
        registry = self.registry(kind)
        return registry.owner.get(type_id, "unknown") if registry.get(type_id) is not None else None

    def unavailable(self, kind: str, type_id: str) -> str | None:
        """Why rows of ``type_id`` cannot be drawn at all (None: they can): no loaded plugin
        registers the type, or its renderer does not load (a ticker type: no ``build_items``)."""
        definition = self.registry(kind).get(type_id)
        if definition is None:
            return None if type_id is None else self.truth.missing(kind, type_id)
        if kind == "ticker":
            drawable = getattr(definition, "build_items", None) is not None
        else:
            drawable = self.renderer_for(kind, type_id) is not None
        return None if drawable else f"the {kind} type {type_id!r} of plugin {self.owner_of(kind, type_id)!r} " \
                                     "has no renderer that loads"

    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None:
        """A renderer failed: the truth records it, logs it (naming its plugin, not once a cycle
        forever) and holds it back after repeated failures (:mod:`svc_host.display.truth`)."""
        self.truth.failed(kind, type_id, row_id, step, exc)

