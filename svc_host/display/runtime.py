"""The display runtime: the mode, Kivy on the main thread, HTTP next to it.

- :func:`choose_mode`: ``headless`` (``SVC_DISPLAY_HEADLESS=1``: no canvas, no bus),
  ``window`` (a display is available: fullscreen unless ``SVC_DISPLAY_WINDOW_SIZE`` is set;
  the window is made the screen's size at 0,0 too, so a screen without a window manager,
  where fullscreen is not honoured, still shows the whole canvas)
  or ``offscreen`` (``SDL_VIDEODRIVER=offscreen``; each frame is waited for, :func:`finish_frames`);
- :func:`run`: the HTTP server on a background thread while Kivy owns the main thread;
  when the canvas cannot start it logs why in one line and keeps serving headless; in every
  mode glibc's malloc gives its free memory back every 30 s
  (:func:`svc_host.malloc.release_freed_memory`; its arenas are limited in ``svc_host.cli.main``);
- :class:`DisplayRuntime` (``host.services[DISPLAY]``): the Kivy app whose root the
  :class:`~svc_host.display.compositor.Compositor` fills with the plugins' layers.

The canvas's settings are the host's (:class:`svc_host.config.Settings`, their one reader):
``window_size`` (``SVC_DISPLAY_WINDOW_SIZE``; window mode: a window of that size instead of
fullscreen; offscreen default ``1920x1080``), ``max_fps`` and ``multisamples`` (default 0:
llvmpipe halves its frame rate with MSAA).
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from typing import Any, Callable

from hookspecs.services import (BLANK_TOPIC, CANVAS_BLANK, CAPTURE_REQUEST, DISPLAY, DISPLAY_CAPTURE, DISPLAY_MODE, EVENTS,
                                HTTP_SERVER_STOP, PLAYS, service)
from svc_host.display.bus import DisplayBus
from svc_host.display.capture import FrameCapture
from svc_host.env_values import parse_size
from svc_host.malloc import release_freed_memory
from svc_host.watchdog import watchdog

log = logging.getLogger("svc_host.display")

MODE_HEADLESS = "headless"
MODE_WINDOW = "window"
MODE_OFFSCREEN = "offscreen"
DEFAULT_OFFSCREEN_SIZE = (1920, 1080)
IDLE_FPS = 5.0  # Kivy's loop rate while the canvas is dark (CANVAS_BLANK)


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
    elif (mode == MODE_WINDOW and sys.platform.startswith("linux") and os.environ.get("DISPLAY")
          and not os.environ.get("SDL_VIDEODRIVER") and not os.environ.get("WAYLAND_DISPLAY")):
        # SDL tries its drivers in turn and ends on its offscreen one when x11 does not come up:
        # a 1024x768 "window" nobody sees, the status saying the canvas runs (an X server that is
        # gone; 6 starts in 84 beside X servers coming and going). DISPLAY names the screen meant:
        # x11 it is, or the canvas is unavailable and says why.
        os.environ["SDL_VIDEODRIVER"] = "x11"
    size = parse_size(host.settings.window_size)
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
        window = _create_window(size, host.settings)
        if mode == MODE_OFFSCREEN:
            finish_frames(window)
        return window
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


def finish_frames(window: Any) -> None:
    """Wait for each frame to be drawn (``glFinish`` after the flip). Offscreen, the flip returns
    at once and nothing waits for Mesa's software rasteriser (llvmpipe), so the frames the UI
    thread issues faster than it draws them pile up with their data: 200 confetti pieces over a
    slide at 60 fps held 2.3 GB. A window's buffer swap waits like this; offscreen it is asked for."""
    from kivy.graphics.opengl import glFinish

    window.bind(on_flip=lambda *_args: glFinish())


def _create_window(size: tuple[int, int] | None, settings: Any) -> Any:
    try:
        from kivy.config import Config

        Config.set("graphics", "multisamples", str(settings.multisamples))
        Config.set("graphics", "maxfps", str(settings.max_fps))
        Config.set("kivy", "exit_on_escape", "0")
        Config.set("input", "mouse", "mouse,disable_multitouch")
        if size is not None:
            Config.set("graphics", "width", str(size[0]))
            Config.set("graphics", "height", str(size[1]))
            Config.set("graphics", "fullscreen", "0")
        else:
            Config.set("graphics", "fullscreen", "auto")
            screen = desktop_size()
            if screen is not None:
                # without a window manager fullscreen is not honoured: the window keeps the
                # size it was made with (Kivy's 800x600), so make it the screen's size, at 0,0
                Config.set("graphics", "width", str(screen[0]))
                Config.set("graphics", "height", str(screen[1]))
                Config.set("graphics", "position", "custom")
                Config.set("graphics", "left", "0")
                Config.set("graphics", "top", "0")
        from kivy.core.window import Window
    except ImportError as exc:
        raise CanvasUnavailable(f"Kivy is not installed ({exc})") from None
    except SystemExit as exc:
        raise CanvasUnavailable(f"Kivy exited while creating the window (code {exc.code})") from None
    except Exception as exc:
        raise CanvasUnavailable(f"{type(exc).__name__}: {exc}") from None
    if Window is None:
        screen = f"the X server at DISPLAY={os.environ['DISPLAY']} did not answer, or no OpenGL" \
            if os.environ.get("SDL_VIDEODRIVER") == "x11" and os.environ.get("DISPLAY") else "no display or no OpenGL"
        raise CanvasUnavailable(f"no usable window provider ({screen})")
    return Window


def desktop_size() -> tuple[int, int] | None:
    """The size of the first display, from the SDL2 library Kivy loads (None when unknown)."""
    import ctypes
    import ctypes.util
    import glob

    try:
        import kivy
    except ImportError:
        return None
    bundled = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(kivy.__file__)), "Kivy.libs",
                                            "libSDL2-2*.so*")))
    name = bundled[0] if bundled else ctypes.util.find_library("SDL2")
    if not name:
        return None

    class DisplayMode(ctypes.Structure):
        _fields_ = [("format", ctypes.c_uint32), ("w", ctypes.c_int), ("h", ctypes.c_int),
                    ("refresh_rate", ctypes.c_int), ("driverdata", ctypes.c_void_p)]

    try:
        sdl = ctypes.CDLL(name)
        # SDL_INIT_VIDEO; Kivy's own init counts on top of it. Tried a few times: beside X servers
        # starting and stopping, x11 failed to come up now and then where Kivy's init a moment
        # later worked, and the window was then Kivy's 800x600 on a larger screen.
        for _ in range(5):
            if sdl.SDL_InitSubSystem(0x20) == 0:
                break
            time.sleep(0.2)
        else:
            return None
        mode = DisplayMode()
        if sdl.SDL_GetDesktopDisplayMode(0, ctypes.byref(mode)) != 0 or mode.w <= 0 or mode.h <= 0:
            return None
        return mode.w, mode.h
    except (OSError, AttributeError):
        return None


class DisplayRuntime:
    """What plugins see of the running canvas: ``host.services[DISPLAY]``."""

    def __init__(self, host: Any, mode: str):
        self.host = host
        self.mode = mode
        self.app: Any = None
        self.root: Any = None
        self.compositor: Any = None
        self.stage: Any = None  # the compositor's widget (out of the window while dark)
        self.layers: list[tuple[str, Any, Any]] | None = None  # resolved before the first frame
        self.started = threading.Event()
        self.blanked = False
        self.max_fps = float(host.settings.max_fps)
        self._subscriptions: dict[str, list[Callable[..., Any]]] | None = None

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
                bus.subscribe("blank", runtime.apply_blank)
                events = service(runtime.host, EVENTS)
                if events is not None:
                    events.subscribe(lambda topic: bus.post("blank") if topic == BLANK_TOPIC else None)
                runtime._subscriptions = bus.subscriptions()
                dog = watchdog()
                if dog.interval:  # the UI thread's sign of life (svc_host/watchdog.py)
                    Clock.schedule_interval(lambda _dt: dog.beat("ui"), dog.interval / 8)
                if runtime.must_blank():
                    runtime.go_dark()
                else:
                    runtime.light_up()
                Clock.schedule_once(lambda _dt: runtime.started.set(), 0)
                return root

            def on_stop(self) -> None:
                runtime.take_down()

        self.app = DisplayApp()
        return self.app

    # -------------------------------------------------------------- dark while CANVAS_BLANK says so
    def must_blank(self) -> bool:
        """``CANVAS_BLANK.blank()`` (False without its owner, or when it fails: logged)."""
        blank = service(self.host, CANVAS_BLANK)
        try:
            return bool(blank is not None and blank.blank())
        except Exception:  # noqa: BLE001  a broken owner must not leave the screen dark
            log.exception("display: the canvas_blank service failed; drawing")
            return False

    def apply_blank(self) -> None:
        """Go dark or light up as ``CANVAS_BLANK`` says (UI thread; the ``blank`` bus command)."""
        if self.must_blank() != self.blanked:
            self.go_dark() if not self.blanked else self.light_up()

    def light_up(self) -> None:
        """Draw again (UI thread): the compositor kept while dark goes on where it was (the slide
        that was showing); the first time, a new compositor in a fresh stage draws the program."""
        from kivy.clock import Clock
        from kivy.uix.floatlayout import FloatLayout

        from svc_host.display.compositor import Compositor

        self.blanked = False
        watchdog().canvas = True
        Clock._max_fps = self.max_fps  # see go_dark
        if self.compositor is not None:
            self.root.add_widget(self.stage)
            self.compositor.resume()
            self._plays("resume")
            log.info("display: canvas lit again (CANVAS_BLANK)")
        else:
            self.stage = FloatLayout()
            self.root.add_widget(self.stage)
            self.compositor = Compositor(self.host, self.layers)
            try:
                self.compositor.attach(self.stage)
            except Exception:
                log.exception("display: the compositor failed to start; the canvas stays empty")
        self._capture_blank(False)

    def go_dark(self) -> None:
        """Pause the compositor (no frame callback, timer, refresh or load is left running; its
        layers keep their state) and show black (the window's clear colour) until
        :meth:`light_up` (UI thread)."""
        from kivy.clock import Clock

        if self.compositor is not None:
            self.compositor.pause()
            self._plays("suspend")
        self.blanked = True
        watchdog().canvas = False  # dark: the server loop is the sign of life
        self.root.clear_widgets()  # the stage stays with the compositor, out of the window
        # Kivy's loop wakes maxfps times a second even with nothing to do; it has no public
        # setting for a running clock, so its attribute is lowered while dark (the bus, the
        # watchdog stamp and input still run, within 1/IDLE_FPS s)
        Clock._max_fps = IDLE_FPS
        self._capture_blank(True)
        log.info("display: canvas dark (CANVAS_BLANK)")

    def _plays(self, step: str) -> None:
        """Proof of play (``PLAYS``, when its plugin runs): nothing plays while the canvas is dark."""
        plays = service(self.host, PLAYS)
        if plays is not None:
            getattr(plays, step)()

    def take_down(self) -> None:
        compositor, self.compositor = self.compositor, None
        if compositor is not None:
            try:
                compositor.detach()
            except Exception:
                log.exception("display: compositor detach failed")
            if self._subscriptions is not None:
                self.host.display_bus.restore(self._subscriptions)  # its bus handlers go with it

    def _capture_blank(self, blank: bool) -> None:
        capture = self.host.services.get(DISPLAY_CAPTURE)
        if capture is not None:
            capture.set_blank(blank)

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
    # What the screen shows: only a real window has people in front of it (the adoption
    # code goes to the console otherwise).
    host.services[DISPLAY_MODE] = mode
    # In every mode: the server's own churn (TLS connections refused or closed by the hundred,
    # each leaving OpenSSL's and the loop's buffers free in glibc's heap) otherwise keeps the
    # freed memory, +140 MB for 10,000 refused WebSocket upgrades (docs/reliability.md).
    threading.Thread(target=release_freed_memory, name="malloc-trim", daemon=True).start()
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
        host.services[DISPLAY_MODE] = MODE_HEADLESS
        serve()
        return

    runtime = DisplayRuntime(host, mode)
    host.services[DISPLAY] = runtime
    request = host.services.get(CAPTURE_REQUEST)  # the live-preview plugin's; None: nothing is captured
    if request is not None:
        host.services[DISPLAY_CAPTURE] = FrameCapture(host.display_bus, request.width, request.fps, request.quality)
    from svc_host.registries import resolve_layers, resolve_renderers

    resolve_renderers(host)  # every renderer and layer imported and checked before the first frame
    runtime.layers = resolve_layers(host)
    log.info("display: %s canvas %dx%d (multisamples %s)", mode, window.size[0], window.size[1],
             host.settings.multisamples)

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
        stop_server = host.services.get(HTTP_SERVER_STOP)
        if stop_server is not None and server.is_alive():
            stop_server()
        deadline = time.monotonic() + 40
        while server.is_alive() and time.monotonic() < deadline:
            server.join(0.2)
    if failure:
        raise failure[0]
