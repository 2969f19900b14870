"""Frame rate, CPU per frame, frame gaps and RSS of the product's canvas against a bare Kivy app.

    .venv/bin/python benchmarks/render_fps.py [--x11] [--scenes static,ticker,full,cafe] [--seconds 10]
                                              [--rounds 3] [--size 1920x1080] [--long [--rss-minutes 3,10,30]]
    .venv/bin/python benchmarks/render_fps.py --ticker            # only the ticker scenes
    .venv/bin/python benchmarks/render_fps.py --rss [--rss-minutes 3,10,30] [--rss-dwell 6]

Offscreen (``SDL_VIDEODRIVER=offscreen``, Mesa llvmpipe) unless ``--x11``: then on the X
screen ``DISPLAY`` names, or on an Xvfb of ``--size`` started for the run (no window manager).
``multisamples=0``. Each scene runs in its own process (Kivy allows one window per process),
after a 3 s warm-up, in interleaved rounds (so a noisy neighbour hurts every scene alike); the
median of the rounds counts. The scene groups, each a bare Kivy app and the product:

- ``static`` (``bare_static``, ``product_static``; 60 fps cap): a slide alone;
- ``ticker`` (``bare_ticker``, ``product_ticker``; 60 fps cap): a static slide and a band whose
  text the bare app drew once into a texture, moved every frame; the product's ``text`` tape;
- ``full`` (``bare``, ``product``; uncapped): a coloured slide with a title and body text, a
  ticker bar and 200 confetti pieces moved every frame; the product draws it through the display
  runtime, the compositor and the builtin renderers (``message`` slide, ``text`` tape,
  ``birthday_confetti`` overlay at density 1), stored as rows; plus ``product+preview``, the
  product with one live-preview viewer (unless ``--no-preview``);
- ``cafe`` (``bare_cafe``, ``product_cafe``; 60 fps cap): the café program (issue 29) seeded with
  the gallery's sample content: :data:`RSS_SLIDES`, :data:`RSS_TAPES`, :data:`RSS_OVERLAYS` and
  :data:`RSS_ALERT`; the bare app cycles the sample pictures with a title, the band and confetti.

It prints one JSON object: per scene the median frames per second, CPU time per frame (all
threads of the process, llvmpipe's rasteriser threads included), share of a core and the
longest gap between two frames; per group the product / bare ratio of each; the load average
at the start and the end; and ``goals``: each goal of issue 29 with its figure and whether it
was met (the frame-gap goal is judged only at load average <= 1).

``--rss`` (or ``--long``, after the scenes) measures memory: side by side,

- ``rss_product``: the real ``svc-display serve`` process with the canvas, on a temp data dir
  filled with every plugin's sample content (the gallery's ``display_samples``) and the café
  program (``--rss-dwell`` seconds a slide);
- ``rss_bare``: a bare Kivy app showing the same sample pictures (every picture under that
  data dir's ``media/samples``) cycling at the same dwell, a title label and a ticker band
  (its text drawn once into a texture, moved every frame), each frame waited for
  (``glFinish``) as the product does offscreen;

each process's RSS (``/proc/<pid>/status`` ``VmRSS``) sampled every ``--rss-sample`` seconds
and taken at the marks ``--rss-minutes`` (default ``3,10,30``) after their start: the RSS of
each at each mark, product/bare at each mark, the growth of each between the first and the
last mark, the same from the median of the samples of the two minutes up to each mark (one
sample swings with the slide on screen), their peak, and the sampled series (MB by minute).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable
from hookspecs.services import DISPLAY, DISPLAY_CAPTURE, HTTP_SERVER_STOP

REPO = Path(__file__).resolve().parents[1]
WARMUP = 3.0
TICKER_FPS = 60
TICKER_TEXT = "Welcome to the lobby  \u2022  Fresh coffee in the lounge until 11:00  \u2022  Lifts serviced on Friday"


def _video_env() -> dict[str, str]:
    """SDL's video driver: the X server of ``--x11`` (``BENCH_X11`` holds its DISPLAY, set by the
    parent for its children), else offscreen."""
    display = os.environ.get("BENCH_X11")
    return {"SDL_VIDEODRIVER": "x11", "DISPLAY": display} if display else {"SDL_VIDEODRIVER": "offscreen"}


def _kivy_env(size: str, max_fps: int = 0) -> None:
    os.environ.update({**_video_env(), "KIVY_NO_ARGS": "1", "KIVY_NO_FILELOG": "1",
                       "KIVY_LOG_MODE": "PYTHON", "KIVY_NO_CONFIG": "1", "SVC_DISPLAY_WINDOW_SIZE": size,
                       "SVC_DISPLAY_MAX_FPS": str(max_fps), "SVC_DISPLAY_MULTISAMPLES": "0"})


class FrameCounter:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self.frames = 0
        self.start = None
        self.result = None

    def attach(self, window, stop) -> None:
        from kivy.clock import Clock

        def count(*_args):
            if self.start is not None:
                now = time.perf_counter()
                self.frames += 1
                self.longest_gap = max(self.longest_gap, now - self.last)
                self.last = now

        window.bind(on_flip=count)

        def begin(_dt):
            self.start = self.last = time.perf_counter()
            self.cpu_start = time.process_time()
            self.frames = 0
            self.longest_gap = 0.0

        def end(_dt):
            frames = max(1, self.frames)
            wall, cpu = time.perf_counter() - self.start, time.process_time() - self.cpu_start
            self.result = {"fps": round(self.frames / wall, 1),
                           "cpu_ms_per_frame": round(cpu * 1000 / frames, 2),
                           "cpu_percent": round(cpu * 100 / wall, 1),
                           "longest_gap_ms": round(self.longest_gap * 1000, 1)}
            stop()

        Clock.schedule_once(begin, WARMUP)
        Clock.schedule_once(end, WARMUP + self.seconds)


def _bare_kivy(size: str, max_fps: int = 0) -> tuple[int, int]:
    """Kivy configured for a bare app of ``size``; its width and height."""
    _kivy_env(size, max_fps)
    width, height = (int(v) for v in size.split("x"))
    from kivy.config import Config

    Config.set("graphics", "multisamples", "0")
    Config.set("graphics", "maxfps", str(max_fps))
    Config.set("graphics", "width", str(width))
    Config.set("graphics", "height", str(height))
    return width, height


def _bare_slide(root, width: int, height: int, rgb: tuple[float, float, float]) -> None:
    """The bare apps' slide: a coloured rectangle above the ticker band, a title and a body."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.label import Label
    from kivy.uix.widget import Widget

    band = height * 0.075
    slide = Widget()
    with slide.canvas:
        Color(*rgb, 1)
        Rectangle(pos=(0, band), size=(width, height - band))
    root.add_widget(slide)
    root.add_widget(Label(text="Hello", font_size=height * 0.074, bold=True, pos=(width * 0.08, height * 0.7),
                          size_hint=(None, None), size=(width * 0.8, height * 0.16)))
    root.add_widget(Label(text="Bare Kivy slide", font_size=height * 0.067, pos=(width * 0.08, height * 0.4),
                          size_hint=(None, None), size=(width * 0.8, height * 0.3)))


def _run_bare_app(seconds: float, build: Callable[[Any], Callable[[float], None]]) -> dict:
    """Run a bare Kivy app whose root ``build(root)`` fills, calling what it returns every frame."""
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.uix.floatlayout import FloatLayout

    counter = FrameCounter(seconds)

    class Bare(App):
        def build(self):
            root = FloatLayout()
            Clock.schedule_interval(build(root), 0)
            counter.attach(Window, self.stop)
            return root

    Bare().run()
    return counter.result


def run_bare(seconds: float, size: str) -> dict:
    width, height = _bare_kivy(size)

    def build(root):
        from kivy.graphics import Color, Rectangle
        from kivy.uix.label import Label

        ticker_h = height * 0.075
        _bare_slide(root, width, height, (0.8, 0.1, 0.1))
        with root.canvas:
            Color(0.1, 0.1, 0.1, 1)
            Rectangle(pos=(0, 0), size=(width, ticker_h))
        ticker = Label(text="SCROLLING TICKER TEXT " * 4, font_size=ticker_h * 0.55, bold=True,
                       size_hint=(None, None))
        ticker.texture_update()
        ticker.size = ticker.texture_size
        root.add_widget(ticker)
        confetti = _bare_confetti(root, width, height)
        state = {"x": float(width)}

        def frame(dt):
            state["x"] -= 150 * height / 1080 * dt
            if state["x"] < -ticker.width:
                state["x"] = width
            ticker.pos = (state["x"], (ticker_h - ticker.height) / 2)
            confetti(dt)

        return frame

    return _run_bare_app(seconds, build)


def _bare_confetti(root, width: int, height: int) -> Callable[[float], None]:
    """200 confetti pieces over everything, as the product's ``birthday_confetti`` at density 1
    (sizes, shapes and speeds alike); the returned function moves them every frame."""
    from kivy.graphics import Color, Ellipse, Rectangle
    from kivy.uix.widget import Widget

    pieces = []
    layer = Widget()
    with layer.canvas:
        for _ in range(200):
            Color(random.random(), random.random(), random.random(), 1)
            s = 18 * height / 1080 * random.uniform(0.6, 1.4)
            circle = random.random() < 0.5
            shape = (Ellipse if circle else Rectangle)(
                pos=(random.random() * width, random.random() * height),
                size=(s, s if circle else s * random.uniform(0.4, 1.0)))
            pieces.append([shape, -height * 0.25 * random.uniform(0.7, 1.3)])
    root.add_widget(layer)

    def frame(dt):
        for piece in pieces:
            x, y = piece[0].pos
            y += piece[1] * dt
            if y < -20:
                y = height
            piece[0].pos = (x, y)

    return frame


def _bare_band(root, width: int, height: int) -> Callable[[float], None]:
    """The bare apps' ticker band: its text drawn once into a texture, three copies moved by the
    returned per-frame function."""
    from kivy.core.text import Label as CoreLabel
    from kivy.graphics import Color, Rectangle
    from kivy.uix.widget import Widget

    band = height * 0.075
    text = CoreLabel(text=TICKER_TEXT, font_size=band * 0.55, bold=True)
    text.refresh()
    texture = text.texture
    layer = Widget()
    with layer.canvas:
        Color(0.04, 0.11, 0.23, 1)
        Rectangle(pos=(0, 0), size=(width, band))
        Color(1, 1, 1, 1)
        rects = [Rectangle(texture=texture, size=texture.size) for _ in range(3)]
    root.add_widget(layer)
    state = {"x": 0.0}

    def frame(dt):
        state["x"] -= 150 * height / 1080 * dt
        if state["x"] < -texture.width:
            state["x"] += texture.width
        for index, rect in enumerate(rects):
            rect.pos = (round(state["x"] + index * texture.width), (band - texture.height) / 2)

    return frame


def run_bare_ticker(seconds: float, size: str) -> dict:
    """A bare Kivy app at 60 fps: a static slide (colour, title, body) and a ticker band whose
    text was drawn once into a texture, moved every frame."""
    width, height = _bare_kivy(size, TICKER_FPS)

    def build(root):
        _bare_slide(root, width, height, (0.12, 0.3, 0.47))
        return _bare_band(root, width, height)

    return _run_bare_app(seconds, build)


def run_bare_static(seconds: float, size: str) -> dict:
    """A bare Kivy app at 60 fps showing a static slide: Kivy draws a frame only when an
    instruction changed, so between its first frames it only wakes to tick its clock."""
    width, height = _bare_kivy(size, TICKER_FPS)

    def build(root):
        _bare_slide(root, width, height, (0.12, 0.3, 0.47))
        return lambda _dt: None

    return _run_bare_app(seconds, build)


def run_bare_cafe(seconds: float, size: str, data_dir: Path, dwell: float) -> dict:
    """A bare Kivy app at 60 fps doing what the café program's screen does: pictures cycling
    every ``dwell`` seconds with a title, the ticker band and 200 confetti pieces."""
    width, height = _bare_kivy(size, TICKER_FPS)
    build = _bare_pictures(data_dir, width, height, dwell)

    def build_cafe(root):
        band = build(root)
        confetti = _bare_confetti(root, width, height)

        def frame(dt):
            band(dt)
            confetti(dt)

        return frame

    return _run_bare_app(seconds, build_cafe)


def run_product(seconds: float, size: str, preview: bool = False, scene: str = "full",
                data_dir: Path | None = None) -> dict:
    """The product's canvas: ``full`` (uncapped: a slide, a tape and confetti), ``ticker`` (a
    slide and a tape), ``static`` (a slide alone), both at 60 fps, or ``cafe`` (60 fps: the café
    program seeded in ``data_dir``)."""
    _kivy_env(size, 0 if scene == "full" else TICKER_FPS)
    ticker_only = scene == "ticker"
    if data_dir is None:
        data_dir = Path(tempfile.mkdtemp(prefix="svc-bench-"))
    os.environ.update({"SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_LOG_LEVEL": "WARNING"})
    sys.path.insert(0, str(REPO))
    from hookspecs import hookimpl
    from svc_host import display
    from svc_host.config import load_settings
    from svc_host.host import build_host

    program = {
        "screens": [{"id": "slide", "screen_type": "message", "enabled": True, "dwell_seconds": 3600,
                     "config_json": {"title": "Hello", "body": "svc-display slide", "backgroundColor": "#cc1a1a"}}],
        "tapes": [{"id": "tape", "ticker_type": "text", "enabled": True,
                   "config_json": {"text": "SCROLLING TICKER TEXT " * 4}}],
        "overlays": [{"id": "bench_confetti", "enabled": True, "overlay_type": "birthday_confetti",
                      "start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31,
                      "config_json": {"density": 1.0, "shapes": ["mix"], "fall_speed": 1.0}}],
    }

    if ticker_only:  # a static slide and the scrolling ticker, at 60 fps
        program["screens"][0]["config_json"]["backgroundColor"] = "#1f4e79"
        program["tapes"] = [{"id": "tape", "ticker_type": "text", "enabled": True,
                             "config_json": {"text": TICKER_TEXT}}]
        program["overlays"] = []
    if scene == "static":  # the slide alone, on screen for the whole run
        program["screens"][0]["config_json"]["backgroundColor"] = "#1f4e79"
        program["tapes"], program["overlays"] = [], []
    if scene == "cafe":  # the rows are in data_dir already
        program = {"screens": [], "tapes": [], "overlays": []}

    class Bench:
        """Only the rows: the types, their renderers and the layers are the builtin plugins' own."""

        @hookimpl
        def startup(self, host):
            from pony import orm

            now = host.clock.now_ms()
            with orm.db_session:
                for key, entity in (("screens", host.db.Screen), ("tapes", host.db.TickerTape),
                                    ("overlays", host.db.OverlaySchedule)):
                    for row in program[key]:
                        entity(**row, created_at_ms=now, updated_at_ms=now)

    settings = load_settings()
    host = build_host(settings, extra_plugins=[("bench", Bench())], with_routes=False)
    counter = FrameCounter(seconds)
    stopped = threading.Event()
    host.services[HTTP_SERVER_STOP] = stopped.set
    frames = []

    def serve():
        from kivy.clock import Clock
        from kivy.core.window import Window

        runtime = host.services[DISPLAY]
        runtime.started.wait(30)

        def hook(_dt):
            counter.attach(Window, runtime.app.stop)
            if preview:
                host.services[DISPLAY_CAPTURE].add_viewer(frames.append)

        Clock.schedule_once(hook, 0)
        stopped.wait()

    display.run(host, serve)
    host.close()
    result = dict(counter.result)
    if preview:
        assert frames, "live preview produced no frames"
        capture = host.services[DISPLAY_CAPTURE]
        result["capture_ms"] = round(statistics.median(capture.capture_times) * 1000, 2)
        result["encode_ms"] = round(statistics.median(capture.encode_times) * 1000, 2)
        if os.environ.get("BENCH_SAVE_FRAME"):  # to look at what was measured
            Path(os.environ["BENCH_SAVE_FRAME"]).write_bytes(frames[-1])
    return result


# ---------------------------------------------------------------------------------------
# --rss: the serve process's memory over a long program, against a bare Kivy app
# ---------------------------------------------------------------------------------------

RSS_SLIDES = ["message", "photo", "news_headlines", "news_article", "weather_current", "weather_forecast",
              "calendar_agenda", "clock", "qr_code", "trivia"]
"""The café program of ``--rss`` and the ``cafe`` scene (issue 29: 10 slides, 4 tapes, 3 overlays,
an alert): builtin types with their example configs and sample content."""
RSS_ALERT = {"id": "cafe_storm", "title": "Storm warning: strong winds expected from 15:00",
             "body": "Terrace closed this afternoon; please keep the doors shut.", "severity": "warning"}
RSS_OVERLAYS = ["digital_clock", "qr_code", "birthday_confetti"]
RSS_TAPES = ["text", "time", "news", "weather"]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
RSS_WINDOW = 2.0
"""Minutes of samples up to each mark whose median and peak are reported too."""


def _rss_env(data_dir: Path, size: str, max_fps: int) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SVC_DISPLAY_")}
    env.update({**_video_env(), "KIVY_NO_ARGS": "1", "KIVY_NO_FILELOG": "1",
                "KIVY_LOG_MODE": "PYTHON", "KIVY_NO_CONFIG": "1", "SVC_DISPLAY_WINDOW_SIZE": size,
                "SVC_DISPLAY_MAX_FPS": str(max_fps), "SVC_DISPLAY_MULTISAMPLES": "0",
                "SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_LOG_LEVEL": "WARNING",
                "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1", "SVC_DISPLAY_HTTP_PORT": str(_free_port()),
                "SVC_DISPLAY_HTTP_TLS": "0",  # loopback only: the theme switch's one request
                "SVC_DISPLAY_CONTROLLER_PUBLIC_URL": "https://controller.example.org"})
    return env


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_program(dwell: float) -> dict[str, list[dict]]:
    """The rows of the ``--rss`` program (the types' example configs)."""
    window = {"start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31}
    return {
        "screens": [{"id": f"rss_{i:02d}_{t}", "screen_type": t, "enabled": True, "dwell_seconds": dwell}
                    for i, t in enumerate(RSS_SLIDES)],
        "overlays": [{"id": f"rss_{t}", "overlay_type": t, "enabled": True, **window} for t in RSS_OVERLAYS],
        "tapes": [{"id": f"rss_{t}", "ticker_type": t, "enabled": True} for t in RSS_TAPES],
    }


def seed_rss(data_dir: Path, dwell: float) -> None:
    """``data_dir`` filled with the sample content and the ``--rss`` program (its own process)."""
    os.environ.update({"SVC_DISPLAY_LOG_LEVEL": "WARNING"})
    sys.path.insert(0, str(REPO))
    from pony import orm

    from svc_host.display.gallery import build_sample_host

    host = build_sample_host(data_dir)
    try:
        registries = {"screens": (host.registries.screen_types, host.db.Screen),
                      "overlays": (host.registries.overlay_types, host.db.OverlaySchedule),
                      "tapes": (host.registries.ticker_types, host.db.TickerTape)}
        now = host.clock.now_ms()
        with orm.db_session:
            for key, rows in rss_program(dwell).items():
                registry, entity = registries[key]
                for row in rows:
                    type_id = row.get("screen_type") or row.get("overlay_type") or row.get("ticker_type")
                    config = dict(registry.get(type_id).example_config)
                    entity(**row, config_json=config, created_at_ms=now, updated_at_ms=now)
            host.db.Alert(**RSS_ALERT, created_at_ms=now)
    finally:
        host.close()


def _bare_pictures(data_dir: Path, width: int, height: int, dwell: float) -> Callable[[Any], Callable]:
    """The bare app's build of the sample pictures of ``data_dir`` cycling every ``dwell``
    seconds, each loaded from its file when it is shown, a title label and a ticker band."""
    images = sorted(str(path) for path in (data_dir / "media" / "samples").rglob("*")
                    if path.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise SystemExit(f"no pictures under {data_dir / 'media'}")

    def build(root):
        from kivy.clock import Clock
        from kivy.uix.image import Image
        from kivy.uix.label import Label

        band = height * 0.075
        picture = Image(fit_mode="contain", size_hint=(None, None), pos=(0, band), size=(width, height - band))
        title = Label(font_size=height * 0.067, size_hint=(None, None), pos=(width * 0.08, height * 0.8),
                      size=(width * 0.8, height * 0.16))
        root.add_widget(picture)
        root.add_widget(title)
        frame = _bare_band(root, width, height)
        state = {"index": -1}

        def show(_dt=None):
            state["index"] = (state["index"] + 1) % len(images)
            picture.source = images[state["index"]]
            title.text = Path(images[state["index"]]).stem

        show()
        Clock.schedule_interval(show, dwell)
        return frame

    return build


def run_rss_bare(data_dir: Path, size: str, dwell: float, max_fps: int) -> None:
    """A bare Kivy app: :func:`_bare_pictures` (until killed)."""
    width, height = _bare_kivy(size, max_fps)
    build = _bare_pictures(data_dir, width, height, dwell)

    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.graphics.opengl import glFinish
    from kivy.uix.floatlayout import FloatLayout

    Window.bind(on_flip=lambda *_args: glFinish())  # as the product offscreen: one frame in flight

    class Bare(App):
        def build(self):
            root = FloatLayout()
            Clock.schedule_interval(build(root), 0)
            return root

    Bare().run()


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


THEME_SWITCH = "forest_amber"
"""The theme ``--rss-theme-at`` switches to (the default is ``navy_coral``)."""


def switch_theme(env: dict[str, str], theme_id: str) -> None:
    """``PUT /v1/display/settings`` on the serve process of ``env``, with a key made for it."""
    import urllib.request

    cli = str(Path(sys.executable).with_name("svc-display"))
    made = subprocess.run([cli, "keys", "create", "--identifier", f"bench-{time.time_ns()}", "--role", "admin"],
                          env=env, capture_output=True, text=True, cwd=str(REPO), check=True)
    key = json.loads(made.stdout)["api_key"]
    request = urllib.request.Request(f"http://127.0.0.1:{env['SVC_DISPLAY_HTTP_PORT']}/v1/display/settings",
                                     data=json.dumps({"display_theme_id": theme_id}).encode(), method="PUT",
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def seed_cafe(dwell: float) -> Path | None:
    """A temp data dir with the sample content and the café program (its own process)."""
    data_dir = Path(tempfile.mkdtemp(prefix="svc-bench-rss-"))
    seed = subprocess.run([sys.executable, __file__, "--scene", "rss_seed", "--data-dir", str(data_dir),
                           "--rss-dwell", str(dwell)], capture_output=True, text=True, cwd=str(REPO))
    if seed.returncode != 0:
        print(seed.stderr[-3000:], file=sys.stderr)
        return None
    return data_dir


def _theme_peak(series: dict[str, list[tuple[float, float | None]]], switched: float | None) -> dict | None:
    """The product's peak RSS in the minute after the theme switch, against the bare app's
    median over the same minute."""
    if switched is None:
        return None
    minute = {name: [mb for m, mb in values if switched <= m <= switched + 1 and mb] for name, values in series.items()}
    if not minute["product"] or not minute["bare"]:
        return None
    peak, bare = max(minute["product"]), statistics.median(minute["bare"])
    return {"at_minutes": round(switched, 2), "theme": THEME_SWITCH, "product_peak_mb": peak,
            "bare_median_mb": bare, "product_peak_vs_bare": round(peak / bare, 3)}


def run_rss(args: argparse.Namespace) -> dict | None:
    """Start the serve process and the bare app side by side, sample their RSS; the report."""
    marks = sorted(float(m) for m in args.rss_minutes.split(","))
    data_dir = seed_cafe(args.rss_dwell)
    if data_dir is None:
        return None
    env = _rss_env(data_dir, args.size, args.rss_fps)
    serve_cmd = [str(Path(sys.executable).with_name("svc-display")), "serve"]
    bare_cmd = [sys.executable, __file__, "--scene", "rss_bare", "--data-dir", str(data_dir),
                "--rss-dwell", str(args.rss_dwell), "--rss-fps", str(args.rss_fps), "--size", args.size]
    logs = {name: open(data_dir / f"{name}.log", "w") for name in ("product", "bare")}
    procs = {"product": subprocess.Popen(serve_cmd, env=env, cwd=str(REPO), stdout=logs["product"],
                                         stderr=subprocess.STDOUT),
             "bare": subprocess.Popen(bare_cmd, env=env, cwd=str(REPO), stdout=logs["bare"],
                                      stderr=subprocess.STDOUT)}
    start = time.monotonic()
    series: dict[str, list[tuple[float, float | None]]] = {name: [] for name in procs}
    at_marks: dict[str, dict[str, float | None]] = {name: {} for name in procs}
    pending = list(marks)
    theme_at = args.rss_theme_at if args.rss_theme_at and args.rss_theme_at < marks[-1] else None
    switched = None
    try:
        while pending:
            minutes = (time.monotonic() - start) / 60
            if theme_at is not None and switched is None and minutes >= theme_at:
                switch_theme(env, THEME_SWITCH)
                switched = minutes = (time.monotonic() - start) / 60
            for name, proc in procs.items():
                if proc.poll() is not None:
                    logs[name].flush()
                    print(f"{name} exited with {proc.returncode}; its log: {data_dir / (name + '.log')}",
                          file=sys.stderr)
                    print((data_dir / f"{name}.log").read_text()[-3000:], file=sys.stderr)
                    return None
                series[name].append((round(minutes, 2), _rss_mb(proc.pid)))
            if minutes >= pending[0]:
                mark = pending.pop(0)
                for name, proc in procs.items():
                    at_marks[name][f"{mark:g}min"] = _rss_mb(proc.pid)
                print(json.dumps({"mark_minutes": mark, **{name: at_marks[name][f"{mark:g}min"] for name in procs}}),
                      file=sys.stderr, flush=True)
                continue
            # every second in the minute after the theme switch (its peak), else every --rss-sample
            after_switch = switched is not None and minutes - switched < 1
            due = [pending[0] * 60] + ([theme_at * 60] if theme_at is not None and switched is None else [])
            time.sleep(1.0 if after_switch else
                       min(args.rss_sample, max(0.5, min(due) - (time.monotonic() - start))))
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for handle in logs.values():
            handle.close()
    first, last = f"{marks[0]:g}min", f"{marks[-1]:g}min"
    product, bare = at_marks["product"], at_marks["bare"]
    by_minute = {name: {str(round(m)): mb for m, mb in values if abs(m - round(m)) * 60 < args.rss_sample / 2 + 0.5}
                 for name, values in series.items()}
    # one sample swings with the slide on screen and the last malloc_trim: the median and the
    # peak of the samples of the RSS_WINDOW minutes up to each mark too
    window = {name: {f"{mark:g}min": [mb for m, mb in values if mark - RSS_WINDOW < m <= mark + 0.01 and mb]
                     for mark in marks} for name, values in series.items()}
    median = {name: {mark: round(statistics.median(v), 1) for mark, v in marks_.items() if v}
              for name, marks_ in window.items()}
    report = {
        "size": args.size, "max_fps": args.rss_fps, "dwell_seconds": args.rss_dwell,
        "slides": RSS_SLIDES, "overlays": RSS_OVERLAYS, "tapes": RSS_TAPES,
        "rss_mb": {"product": product, "bare": bare},
        "product_vs_bare": {mark: round(product[mark] / bare[mark], 3) for mark in product},
        "growth": {name: round(at_marks[name][last] / at_marks[name][first] - 1, 4) for name in procs},
        "growth_marks": [first, last],
        f"rss_mb_median_{RSS_WINDOW:g}min_before": median,
        f"rss_mb_max_{RSS_WINDOW:g}min_before": {name: {mark: max(v) for mark, v in marks_.items() if v}
                                               for name, marks_ in window.items()},
        "product_vs_bare_by_median": {mark: round(median["product"][mark] / median["bare"][mark], 3)
                                      for mark in median["product"] if mark in median["bare"]},
        "growth_by_median": {name: round(values[last] / values[first] - 1, 4)
                             for name, values in median.items() if first in values and last in values},
        "rss_mb_by_minute": by_minute,
        "theme_switch": _theme_peak(series, switched),
        "data_dir": str(data_dir),
    }
    return report


# ---------------------------------------------------------------------------------------
# --x11: a real X screen (Xvfb unless DISPLAY names one), the goals of issue 29
# ---------------------------------------------------------------------------------------

def start_xvfb(size: str) -> tuple[subprocess.Popen, str]:
    """An Xvfb of ``size`` (24-bit, no TCP, no window manager) and its DISPLAY; ``-displayfd``
    lets the server pick a free display number and tell it."""
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as handle:
        number = handle.readline().strip()
    if not number:
        proc.kill()
        raise SystemExit("Xvfb did not start (apt-get install xvfb)")
    return proc, f":{number}"


SCENES = {  # group: (bare scene, product scene)
    "static": ("bare_static", "product_static"),
    "ticker": ("bare_ticker", "product_ticker"),
    "full": ("bare", "product"),
    "cafe": ("bare_cafe", "product_cafe"),
}


def _goal(name: str, figure: Any, met: bool | None, note: str = "") -> dict:
    return {"goal": name, "figure": figure, "met": "n/a" if met is None else ("met" if met else "missed"),
            **({"note": note} if note else {})}


def goals(report: dict, rss: dict | None) -> list[dict]:
    """Each goal of issue 29 with its figure from this run (ratios against the bare app)."""
    out = []
    ratios = report.get("product_vs_bare", {})
    if "ticker" in ratios:
        fps, cpu = ratios["ticker"]["fps"], ratios["ticker"]["cpu_ms_per_frame"]
        out.append(_goal("ticker scene fps >= 0.9x the bare app", fps, fps >= 0.9))
        out.append(_goal("ticker scene CPU per frame <= 1.2x the bare app", cpu, cpu <= 1.2))
    if "static" in ratios:
        core = report["median"]["product_static"]["cpu_percent"] / 100
        out.append(_goal("static slide <= 0.1 of a core", round(core, 3), core <= 0.1))
    gaps = {scene: report["median"][product]["longest_gap_ms"] for scene, (_bare, product) in SCENES.items()
            if product in report["median"] and scene != "static"}
    if gaps:
        worst = max(gaps.values())
        load = max(report["load_average"]["start"][0], report["load_average"]["end"][0])
        out.append(_goal("no frame gap over 50 ms (10 minutes, load average <= 1)", {"longest_gap_ms": gaps},
                         worst <= 50 if load <= 1 else None,
                         "" if load <= 1 else f"not judged: load average {load:.2f} > 1, "
                                              f"{report['seconds']:g} s per scene"))
    if rss is not None:
        by_median = rss["product_vs_bare_by_median"]
        for mark, ratio in by_median.items():
            out.append(_goal(f"serve + canvas RSS <= 1.5x the bare app at {mark}", ratio, ratio <= 1.5))
        marks = list(by_median)
        first = "10min" if "10min" in marks and "30min" in marks else marks[0]
        last = "30min" if first == "10min" else marks[-1]
        median = rss[f"rss_mb_median_{RSS_WINDOW:g}min_before"]["product"]
        growth = round(median[last] / median[first] - 1, 4)
        out.append(_goal(f"RSS growth {first} -> {last} < 5 %", growth, growth < 0.05))
        theme = rss.get("theme_switch")
        out.append(_goal("peak after a theme switch <= 1.7x the bare app",
                         theme["product_peak_vs_bare"] if theme else None,
                         theme["product_peak_vs_bare"] <= 1.7 if theme else None,
                         f"switched to {theme['theme']} at {theme['at_minutes']} min" if theme
                         else "no theme switch (--rss-theme-at 0, or not before the last mark)"))
    return out


def run_scenes(args: argparse.Namespace, groups: list[str]) -> dict | None:
    """Every scene of ``groups`` in its own process, ``--rounds`` interleaved rounds; medians and
    the product/bare ratios of each group."""
    scenes = [scene for group in groups for scene in SCENES[group]]
    if "full" in groups and not args.no_preview:
        scenes.append("product+preview")
    data_dir = seed_cafe(args.rss_dwell) if "cafe" in groups else None
    if "cafe" in groups and data_dir is None:
        return None
    samples: dict[str, list[dict]] = {scene: [] for scene in scenes}
    load_start = [round(v, 2) for v in os.getloadavg()]
    for _round in range(args.rounds):  # interleaved, so a noisy neighbour hurts every scene alike
        for scene in samples:
            command = [sys.executable, __file__, "--scene", scene, "--seconds", str(args.seconds), "--size", args.size,
                       "--rss-dwell", str(args.rss_dwell)]
            if data_dir is not None:
                command += ["--data-dir", str(data_dir)]
            out = subprocess.run(command, capture_output=True, text=True, cwd=str(REPO))
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            if out.returncode != 0 or not lines:
                print(out.stderr[-3000:], file=sys.stderr)
                return None
            samples[scene].append(json.loads(lines[-1]))
    keys = ("fps", "cpu_ms_per_frame", "cpu_percent", "longest_gap_ms")
    median = {scene: {key: statistics.median(v[key] for v in values) for key in keys}
              for scene, values in samples.items()}
    report: dict[str, Any] = {
        "video": (f"x11 {os.environ['BENCH_X11']}" + (" (Xvfb of this run)" if args.xvfb_started else "")
                  if os.environ.get("BENCH_X11") else "offscreen"),
        "size": args.size, "seconds": args.seconds, "rounds": args.rounds, "cpus": os.cpu_count(),
        "load_average": {"start": load_start, "end": [round(v, 2) for v in os.getloadavg()]},
        "samples": samples, "median": median,
        # product / bare: fps (higher is better), CPU per frame and share of a core (lower is better)
        "product_vs_bare": {group: {key: round(median[product][key] / median[bare][key], 3)
                                    if median[bare][key] else None for key in keys}
                            for group, (bare, product) in SCENES.items() if group in groups},
    }
    if "product+preview" in median:
        preview = samples["product+preview"]
        report["preview_cost_by_cpu"] = round(1 - median["product"]["cpu_ms_per_frame"]
                                              / median["product+preview"]["cpu_ms_per_frame"], 3)
        # UI-thread wall time of one capture; it includes the GL flush that glReadPixels forces
        report["capture_ms_per_capture_incl_gl_flush"] = statistics.median(v["capture_ms"] for v in preview)
        report["encode_ms_per_frame_worker_thread"] = statistics.median(v["encode_ms"] for v in preview)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median of each scene counts")
    parser.add_argument("--scene", choices=["bare", "product", "product+preview", "bare_ticker", "product_ticker",
                                            "bare_static", "product_static", "bare_cafe", "product_cafe",
                                            "rss_seed", "rss_bare"])
    parser.add_argument("--scenes", default=",".join(SCENES),
                        help=f"comma-separated scene groups of {', '.join(SCENES)}")
    parser.add_argument("--ticker", action="store_true", help="only the ticker scenes (--scenes ticker)")
    parser.add_argument("--no-preview", action="store_true", help="without the product+preview scene")
    parser.add_argument("--x11", action="store_true",
                        help="on an X screen: DISPLAY's, else an Xvfb of --size started for the run")
    parser.add_argument("--long", action="store_true",
                        help="the scenes, then the serve process's RSS against a bare app at --rss-minutes")
    parser.add_argument("--rss", action="store_true", help="only the serve process's RSS against a bare app")
    parser.add_argument("--rss-minutes", default="3,10,30", help="the RSS marks, minutes after the start")
    parser.add_argument("--rss-dwell", type=float, default=6.0, help="seconds each slide and picture shows")
    parser.add_argument("--rss-fps", type=int, default=60, help="frame cap of both processes")
    parser.add_argument("--rss-sample", type=float, default=15.0, help="seconds between RSS samples")
    parser.add_argument("--rss-theme-at", type=float, default=2.0,
                        help=f"minute the serve process's theme switches to {THEME_SWITCH} (0: never)")
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scene == "rss_seed":
        seed_rss(args.data_dir, args.rss_dwell)
        return 0
    if args.scene == "rss_bare":
        run_rss_bare(args.data_dir, args.size, args.rss_dwell, args.rss_fps)
        return 0
    if args.scene:
        runs = {"bare": lambda: run_bare(args.seconds, args.size),
                "bare_ticker": lambda: run_bare_ticker(args.seconds, args.size),
                "bare_static": lambda: run_bare_static(args.seconds, args.size),
                "bare_cafe": lambda: run_bare_cafe(args.seconds, args.size, args.data_dir, args.rss_dwell),
                "product": lambda: run_product(args.seconds, args.size),
                "product+preview": lambda: run_product(args.seconds, args.size, preview=True),
                "product_ticker": lambda: run_product(args.seconds, args.size, scene="ticker"),
                "product_static": lambda: run_product(args.seconds, args.size, scene="static"),
                "product_cafe": lambda: run_product(args.seconds, args.size, scene="cafe", data_dir=args.data_dir)}
        print(json.dumps({"scene": args.scene, **runs[args.scene]()}))
        return 0
    xvfb = None
    if args.x11:
        display = os.environ.get("DISPLAY")
        if not display:
            xvfb, display = start_xvfb(args.size)
        os.environ["BENCH_X11"] = display  # the children's video driver
    args.xvfb_started = xvfb is not None
    try:
        report: dict[str, Any] = {}
        if not args.rss:
            groups = ["ticker"] if args.ticker else [g.strip() for g in args.scenes.split(",") if g.strip()]
            unknown = sorted(set(groups) - set(SCENES))
            if unknown:
                parser.error(f"unknown scene groups {unknown}")
            scenes = run_scenes(args, groups)
            if scenes is None:
                return 1
            report.update(scenes)
        rss = None
        if args.rss or args.long:
            rss = run_rss(args)
            if rss is None:
                return 1
            report["rss"] = rss
        report["goals"] = goals(report, rss) if not args.rss else goals({"median": {}}, rss)
        print(json.dumps(report, indent=2))
        return 0
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)


if __name__ == "__main__":
    sys.exit(main())
