"""The display runtime: the Kivy canvas on the main thread, and the bus that reaches it.

Feature-free on purpose. It knows no screen, ticker or overlay type: a *director* (a
plugin object published as ``host.services["display_director"]``) builds what is drawn,
asking the registries for renderers by type id. This module only:

- chooses the mode (:func:`choose_mode`): ``headless`` (``SVC_DISPLAY_HEADLESS=1``: no
  canvas, no bus), ``window`` (a display is available: fullscreen unless
  ``SVC_DISPLAY_WINDOW_SIZE`` is set) or ``offscreen`` (``SDL_VIDEODRIVER=offscreen``);
- runs the HTTP server on a background thread while Kivy owns the main thread
  (:func:`run`); when the canvas cannot start it logs why in one line and keeps serving
  headless;
- owns :class:`DisplayBus` (``host.display_bus``): REST, scheduler and collector threads
  post commands to a queue; a ``Clock`` trigger drains it on the UI thread, so nothing
  touches a Kivy object off the main thread;
- owns :class:`FrameCapture` (``host.services["display_capture"]``): while at least one
  viewer watches, the window's render context is drawn into small ``Fbo``s at the
  live-preview rate, read back in batches and encoded to JPEG on a worker thread.

Environment read here (besides spec 1.1 / CONTRACT): ``SVC_DISPLAY_WINDOW_SIZE``
(``WIDTHxHEIGHT``; window mode: a window of that size instead of fullscreen; offscreen
default ``1920x1080``), ``SVC_DISPLAY_MAX_FPS`` (default 60), ``SVC_DISPLAY_MULTISAMPLES``
(default 0: llvmpipe halves its frame rate with MSAA).
"""
from __future__ import annotations

import collections
import io
import logging
import os
import queue
import signal
import sys
import threading
import time
from typing import Any, Callable

log = logging.getLogger("svc_host.display")

MODE_HEADLESS = "headless"
MODE_WINDOW = "window"
MODE_OFFSCREEN = "offscreen"
DEFAULT_OFFSCREEN_SIZE = (1920, 1080)


def choose_mode(headless: bool, environ: dict[str, str] | None = None, platform: str | None = None) -> str:
    """``headless`` when asked; ``window`` when a display is available; else ``offscreen``."""
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    if headless:
        return MODE_HEADLESS
    driver = env.get("SDL_VIDEODRIVER", "").strip().lower()
    if driver == "offscreen":
        return MODE_OFFSCREEN
    if driver or not platform.startswith("linux"):
        return MODE_WINDOW
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return MODE_WINDOW
    return MODE_OFFSCREEN


def parse_size(value: str | None) -> tuple[int, int] | None:
    """``"1280x720"`` -> ``(1280, 720)``; ``None`` for empty or malformed values."""
    if not value:
        return None
    try:
        width, height = (int(part) for part in value.lower().split("x", 1))
    except ValueError:
        return None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        return None
    return width, height


# ---------------------------------------------------------------------------------------
# The command bus
# ---------------------------------------------------------------------------------------


class DisplayBus:
    """Thread-safe commands from any thread to handlers on the UI thread.

    ``post(kind, **payload)`` may be called from any thread and never blocks. Handlers
    registered with ``subscribe(kind, handler)`` run on the UI thread, in order; a
    handler that raises is logged and the next command still runs.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[str, dict]] = queue.SimpleQueue()
        self._handlers: dict[str, list[Callable[..., Any]]] = {}
        self._trigger: Callable[[], Any] | None = None

    def post(self, kind: str, **payload: Any) -> None:
        self._queue.put((kind, payload))
        trigger = self._trigger
        if trigger is not None:
            trigger()

    def subscribe(self, kind: str, handler: Callable[..., Any]) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def bind(self, trigger: Callable[[], Any]) -> None:
        """Called on the UI thread with a Kivy ``Clock`` trigger that calls :meth:`drain`."""
        self._trigger = trigger
        if not self._queue.empty():
            trigger()

    def drain(self, *_args: Any) -> int:
        """Run every queued command (UI thread). Returns how many ran."""
        count = 0
        while True:
            try:
                kind, payload = self._queue.get_nowait()
            except queue.Empty:
                return count
            count += 1
            for handler in list(self._handlers.get(kind, ())):
                try:
                    handler(**payload)
                except Exception:  # a bad command must not stop the canvas
                    log.exception("display bus: handler for %r failed", kind)


# ---------------------------------------------------------------------------------------
# Live-preview capture
# ---------------------------------------------------------------------------------------


class FrameCapture:
    """JPEG frames of the canvas for viewers, produced only while someone watches.

    ``add_viewer(callback)`` (any thread) registers ``callback(jpeg_bytes)``, called from
    the encoder thread; the first viewer starts capture, ``remove_viewer`` of the last
    one stops it. ``width``/``fps``/``quality`` come from the live-preview settings.

    Each capture draws the window's render context into a small ``Fbo`` (the window's
    projection scales it to the Fbo's viewport; no instruction is moved or rebuilt); the
    Fbos of a **batch**
    (``batch`` captures, one second's worth by default) are read back together when the
    next batch begins. On a software renderer every read-back waits for all queued frames
    to be rasterised, so one wait per batch instead of one per frame keeps the frame rate;
    the encoder thread then hands the frames out one ``1/fps`` apart. The price is latency:
    a viewer sees the screen about ``batch / fps`` seconds late.
    """

    def __init__(self, bus: DisplayBus, width: int, fps: int, quality: int, batch: int | None = None):
        self.bus = bus
        self.width = width
        self.fps = fps
        self.quality = quality
        self.batch = max(1, batch if batch is not None else fps)
        self._viewers: dict[int, Callable[[bytes], Any]] = {}
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: queue.Queue[list[tuple[int, int, bytes]] | None] = queue.Queue(maxsize=1)
        self._encoder: threading.Thread | None = None
        self._event: Any = None
        self._fbos: list[Any] = []  # one Fbo per batch slot
        self._drawn: list[tuple[Any, int, int]] = []
        self.frames_encoded = 0
        # what capture costs: UI-thread seconds spent capturing, encoder-thread CPU seconds
        self.capture_times: collections.deque[float] = collections.deque(maxlen=1000)
        self.encode_times: collections.deque[float] = collections.deque(maxlen=1000)
        bus.subscribe("capture.set", self._set_running)

    # -- any thread --------------------------------------------------------------
    def add_viewer(self, callback: Callable[[bytes], Any]) -> int:
        with self._lock:
            self._next_id += 1
            self._viewers[self._next_id] = callback
            first = len(self._viewers) == 1
            handle = self._next_id
        if first:
            self.bus.post("capture.set", running=True)
        return handle

    def remove_viewer(self, handle: int) -> None:
        with self._lock:
            removed = self._viewers.pop(handle, None) is not None
            last = removed and not self._viewers
        if last:
            self.bus.post("capture.set", running=False)

    @property
    def viewer_count(self) -> int:
        with self._lock:
            return len(self._viewers)

    # -- UI thread ---------------------------------------------------------------
    def _set_running(self, running: bool) -> None:
        from kivy.clock import Clock

        if running and self.viewer_count and self._event is None:
            if self._encoder is None or not self._encoder.is_alive():
                self._encoder = threading.Thread(target=self._encode_loop, name="preview-encoder", daemon=True)
                self._encoder.start()
            self._event = Clock.schedule_interval(self._capture, 1.0 / self.fps)
            log.info("live preview: capture started (%d fps, %d px)", self.fps, self.width)
        elif not running and not self.viewer_count and self._event is not None:
            self._event.cancel()
            self._event = None
            self._fbos = []
            self._drawn = []
            log.info("live preview: capture stopped")

    def _capture(self, _dt: float) -> None:
        started = time.perf_counter()
        try:
            self._capture_frame()
        finally:
            self.capture_times.append(time.perf_counter() - started)

    def _capture_frame(self) -> None:
        from kivy.core.window import Window
        from kivy.graphics import Fbo
        from kivy.graphics.opengl import GL_COLOR_BUFFER_BIT, glClear, glClearColor

        win_w, win_h = Window.size
        width = min(self.width, max(16, int(win_w)))
        height = max(16, int(round(win_h * width / max(1, win_w))))
        if len(self._drawn) >= self.batch:
            # read back the batch drawn since the last one: the first read waits until the
            # rasteriser has caught up, the others find nothing left to wait for
            frames = [(drawn_w, drawn_h, drawn.pixels) for drawn, drawn_w, drawn_h in self._drawn]
            self._drawn = []
            self._hand_over(frames)
        slot = len(self._drawn)
        if len(self._fbos) <= slot or tuple(self._fbos[slot].size) != (width, height):
            fbo = Fbo(size=(width, height))
            if len(self._fbos) <= slot:
                self._fbos.append(fbo)
            else:
                self._fbos[slot] = fbo
        fbo = self._fbos[slot]
        # Draw the window's own render context (its projection maps the window onto the
        # Fbo's smaller viewport): no instruction moves, nothing is rebuilt.
        fbo.bind()
        try:
            glClearColor(0, 0, 0, 1)
            glClear(GL_COLOR_BUFFER_BIT)
            Window.render_context.draw()
        finally:
            fbo.release()
        self._drawn.append((fbo, width, height))

    def _hand_over(self, frames: list[tuple[int, int, bytes]]) -> None:
        try:
            self._pending.get_nowait()  # drop a batch the encoder has not taken yet
        except queue.Empty:
            pass
        self._pending.put_nowait(frames)

    # -- encoder thread ------------------------------------------------------------
    def _encode_loop(self) -> None:
        from PIL import Image

        due = time.monotonic()
        while True:
            frames = self._pending.get()
            if frames is None:
                return
            due = max(due, time.monotonic())
            for width, height, pixels in frames:
                started = time.thread_time()
                # GL rows run bottom-up: the raw decoder's orientation -1 flips them while it drops alpha
                image = Image.frombuffer("RGB", (width, height), pixels, "raw", "RGBX", 0, -1)
                out = io.BytesIO()
                image.save(out, "JPEG", quality=self.quality)
                jpeg = out.getvalue()
                self.frames_encoded += 1
                self.encode_times.append(time.thread_time() - started)
                # one frame every 1/fps, as they were captured
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                due += 1.0 / self.fps
                with self._lock:
                    viewers = list(self._viewers.values())
                for callback in viewers:
                    try:
                        callback(jpeg)
                    except Exception:
                        log.exception("live preview: a viewer callback failed")


# ---------------------------------------------------------------------------------------
# Bootstrapping Kivy and running it next to the server
# ---------------------------------------------------------------------------------------


class CanvasUnavailable(RuntimeError):
    """The canvas could not start; the message is the one-line reason."""


class _QuietKivy(logging.Filter):
    """Kivy probes optional input libraries at import and logs a traceback when absent."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "MTDev is not supported" not in str(record.msg)


def _prepare_kivy_environment(host: Any, mode: str) -> tuple[int, int] | None:
    data_dir = host.settings.data_dir
    kivy_log = logging.getLogger("kivy")
    kivy_log.addFilter(_QuietKivy())
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    os.environ.setdefault("KIVY_NO_CONFIG", "1")
    os.environ.setdefault("KIVY_HOME", str(data_dir / "kivy"))
    os.environ.setdefault("KIVY_WINDOW", "sdl2")  # other providers (x11) exit the process on failure
    if mode == MODE_OFFSCREEN:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
    size = parse_size(os.environ.get("SVC_DISPLAY_WINDOW_SIZE"))
    if mode == MODE_OFFSCREEN and size is None:
        size = DEFAULT_OFFSCREEN_SIZE
    return size


class _Collector(logging.Handler):
    """Holds Kivy's records while the window starts, so a failure is reported in one line."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def reason(self) -> str:
        errors = [r for r in self.records if r.levelno >= logging.ERROR]
        return errors[0].getMessage().splitlines()[0] if errors else ""


def start_kivy(host: Any, mode: str) -> Any:
    """Import Kivy with our settings and create the Window (main thread). Raises CanvasUnavailable."""
    size = _prepare_kivy_environment(host, mode)
    kivy_log = logging.getLogger("kivy")
    collector = _Collector()
    kivy_log.addHandler(collector)
    kivy_log.propagate = False
    try:
        return _create_window(size)
    except CanvasUnavailable as exc:
        detail = collector.reason()
        raise CanvasUnavailable(f"{exc}{': ' + detail if detail else ''}") from None
    finally:
        kivy_log.removeHandler(collector)
        kivy_log.propagate = True
        if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
            kivy_log.setLevel(logging.WARNING)  # Kivy resets its level on import
        for record in collector.records:  # replay the startup lines that matter
            if record.levelno >= kivy_log.getEffectiveLevel() and record.levelno < logging.ERROR:
                kivy_log.handle(record)


def _create_window(size: tuple[int, int] | None) -> Any:
    try:
        from kivy.config import Config

        Config.set("graphics", "multisamples", os.environ.get("SVC_DISPLAY_MULTISAMPLES", "0"))
        Config.set("graphics", "maxfps", os.environ.get("SVC_DISPLAY_MAX_FPS", "60"))
        Config.set("kivy", "exit_on_escape", "0")
        Config.set("input", "mouse", "mouse,disable_multitouch")
        if size is not None:
            Config.set("graphics", "width", str(size[0]))
            Config.set("graphics", "height", str(size[1]))
            Config.set("graphics", "fullscreen", "0")
        else:
            Config.set("graphics", "fullscreen", "auto")
        from kivy.core.window import Window
    except ImportError as exc:
        raise CanvasUnavailable(f"Kivy is not installed ({exc})") from None
    except SystemExit as exc:
        raise CanvasUnavailable(f"Kivy exited while creating the window (code {exc.code})") from None
    except Exception as exc:
        raise CanvasUnavailable(f"{type(exc).__name__}: {exc}") from None
    if Window is None:
        raise CanvasUnavailable("no usable window provider (no display or no OpenGL)")
    return Window


class DisplayRuntime:
    """What plugins see of the running canvas: ``host.services["display"]``."""

    def __init__(self, host: Any, mode: str):
        self.host = host
        self.mode = mode
        self.app: Any = None
        self.root: Any = None
        self.started = threading.Event()

    @property
    def size(self) -> tuple[int, int]:
        from kivy.core.window import Window

        return tuple(Window.size)

    def build_app(self) -> Any:
        from kivy.app import App
        from kivy.clock import Clock
        from kivy.uix.floatlayout import FloatLayout

        runtime = self

        class DisplayApp(App):
            title = "svc-display"

            def build(self) -> Any:
                root = FloatLayout()
                runtime.root = root
                bus = runtime.host.display_bus
                bus.bind(Clock.create_trigger(bus.drain, 0))
                director = runtime.host.services.get("display_director")
                if director is None:
                    log.info("display: no director plugin; the canvas stays empty")
                else:
                    try:
                        director.attach(root, runtime)
                    except Exception:
                        log.exception("display: the director failed to attach; the canvas stays empty")
                Clock.schedule_once(lambda _dt: runtime.started.set(), 0)
                return root

            def on_stop(self) -> None:
                director = runtime.host.services.get("display_director")
                if director is not None and hasattr(director, "detach"):
                    try:
                        director.detach()
                    except Exception:
                        log.exception("display: director detach failed")

        self.app = DisplayApp()
        return self.app

    def stop(self) -> None:
        """Stop the Kivy app (any thread)."""
        if self.app is None:
            return
        from kivy.clock import Clock

        Clock.schedule_once(lambda _dt: self.app.stop(), 0)


def run(host: Any, serve: Callable[[], Any]) -> None:
    """Serve HTTP and, unless headless or impossible, run the canvas on this (main) thread.

    ``serve`` blocks until the server stops (it closes the host on the way out). With a
    canvas it runs on a background thread; SIGTERM/SIGINT stop the canvas, then the server.
    """
    settings = host.settings
    mode = choose_mode(settings.headless)
    if mode == MODE_HEADLESS:
        log.info("display: headless (SVC_DISPLAY_HEADLESS=1): no canvas, no navigation bus")
        host.display_bus = None
        serve()
        return

    host.display_bus = DisplayBus()
    try:
        window = start_kivy(host, mode)
    except CanvasUnavailable as exc:
        log.warning("display: canvas unavailable, serving headless: %s", exc)
        host.display_bus = None
        serve()
        return

    runtime = DisplayRuntime(host, mode)
    host.services["display"] = runtime
    if settings.live_preview_enabled:
        host.services["display_capture"] = FrameCapture(host.display_bus, settings.live_preview_width,
                                                        settings.live_preview_fps, settings.live_preview_quality)
    log.info("display: %s canvas %dx%d (multisamples %s)", mode, window.size[0], window.size[1],
             os.environ.get("SVC_DISPLAY_MULTISAMPLES", "0"))

    failure: list[BaseException] = []

    def serve_thread() -> None:
        try:
            serve()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
            failure.append(exc)
        finally:
            runtime.stop()

    server = threading.Thread(target=serve_thread, name="http-server", daemon=True)

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("signal %d: stopping the display and the server", signum)
        runtime.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    app = runtime.build_app()
    server.start()
    try:
        app.run()
    finally:
        stop_server = host.services.get("http_server_stop")
        if stop_server is not None and server.is_alive():
            stop_server()
        deadline = time.monotonic() + 40
        while server.is_alive() and time.monotonic() < deadline:
            server.join(0.2)
    if failure:
        raise failure[0]
