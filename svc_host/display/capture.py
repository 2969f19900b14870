"""Live-preview capture: JPEG frames of the canvas, produced only while someone watches."""
from __future__ import annotations

import collections
import io
import logging
import queue
import threading
import time
from typing import Any, Callable

from svc_host.display.bus import DisplayBus

log = logging.getLogger("svc_host.display")


def draw_window(fbo: Any) -> None:
    """Draw the window's own render context into ``fbo`` (UI thread): its projection maps the
    window onto the Fbo's viewport, whatever its size; no instruction moves, nothing is rebuilt."""
    from kivy.core.window import Window
    from kivy.graphics.opengl import GL_COLOR_BUFFER_BIT, GL_STENCIL_BUFFER_BIT, glClear, glClearColor

    fbo.bind()
    try:
        glClearColor(0, 0, 0, 1)
        glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT)
        Window.render_context.draw()
    finally:
        fbo.release()


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
        self.blank = False  # the canvas is dark (CANVAS_BLANK): no capture, one black frame
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

        if running and self.viewer_count and self.blank:
            self._send_black()
        elif running and self.viewer_count and self._event is None:
            self._start_encoder()
            self._event = Clock.schedule_interval(self._capture, 1.0 / self.fps)
            log.info("live preview: capture started (%d fps, %d px)", self.fps, self.width)
        elif not running and not self.viewer_count and self._event is not None:
            self._stop_capture()
            log.info("live preview: capture stopped")

    def set_blank(self, blank: bool) -> None:
        """The canvas went dark (capture stops; viewers get one black frame, then none) or
        lit up again (capture resumes for the viewers there are). UI thread."""
        self.blank = blank
        if blank:
            self._stop_capture()
            if self.viewer_count:
                self._send_black()
        else:
            self._set_running(True)

    def _stop_capture(self) -> None:
        if self._event is not None:
            self._event.cancel()
        self._event = None
        self._fbos = []
        self._drawn = []

    def _start_encoder(self) -> None:
        if self._encoder is None or not self._encoder.is_alive():
            self._encoder = threading.Thread(target=self._encode_loop, name="preview-encoder", daemon=True)
            self._encoder.start()

    def _frame_size(self) -> tuple[int, int]:
        from kivy.core.window import Window

        win_w, win_h = Window.size
        width = min(self.width, max(16, int(win_w)))
        return width, max(16, int(round(win_h * width / max(1, win_w))))

    def _send_black(self) -> None:
        """One black frame of the preview's size for the viewers (nothing is drawn for it)."""
        self._start_encoder()
        width, height = self._frame_size()
        self._hand_over([(width, height, bytes(width * height * 4))])

    def _capture(self, _dt: float) -> None:
        started = time.perf_counter()
        try:
            self._capture_frame()
        finally:
            self.capture_times.append(time.perf_counter() - started)

    def _capture_frame(self) -> None:
        from kivy.graphics import Fbo

        width, height = self._frame_size()
        if len(self._drawn) >= self.batch:
            # read back the batch drawn since the last one: the first read waits until the
            # rasteriser has caught up, the others find nothing left to wait for
            frames = [(drawn_w, drawn_h, drawn.pixels) for drawn, drawn_w, drawn_h in self._drawn]
            self._drawn = []
            self._hand_over(frames)
        slot = len(self._drawn)
        if len(self._fbos) <= slot or tuple(self._fbos[slot].size) != (width, height):
            # with a stencil buffer, as the window has: what draws through a stencil (a wide Line
            # under a translucent colour, a StencilView) would otherwise fill its bounding box
            fbo = Fbo(size=(width, height), with_stencilbuffer=True)
            if len(self._fbos) <= slot:
                self._fbos.append(fbo)
            else:
                self._fbos[slot] = fbo
        fbo = self._fbos[slot]
        draw_window(fbo)
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
