"""A real canvas driven frame by frame: the compositor of a host in Kivy's window (offscreen),
its frame time advanced by the caller (``Canvas.frame(dt)``) and the loader thread's work waited
for between frames (``Canvas.settle``), so every run draws the same. ``svc-display gallery
--scenes`` draws its scenes with it; the tests' driven canvas (``tests/display/driven.py``) too."""
from __future__ import annotations

import time
from typing import Any


class FrameClock:
    """The host clock of a driven canvas: a fixed start plus the compositor's frame time."""

    def __init__(self, compositor: Any, start_ms: int):
        self.compositor = compositor
        self.start_ms = start_ms

    def now_ms(self) -> int:
        return self.start_ms + int(self.compositor.elapsed * 1000)

    def now(self) -> float:
        return self.now_ms() / 1000.0


class Canvas:
    """The compositor of ``host`` in Kivy's offscreen window, driven frame by frame."""

    def __init__(self, host: Any):
        from kivy.clock import Clock
        from kivy.core.window import Window
        from kivy.uix.floatlayout import FloatLayout

        from svc_host.display.bus import DisplayBus
        from svc_host.display.compositor import Compositor

        self.host = host
        host.display_bus = DisplayBus()
        host.display_bus.bind(Clock.create_trigger(host.display_bus.drain, 0))
        self.root = FloatLayout(size=Window.size)
        Window.add_widget(self.root)
        self.compositor = Compositor(host)
        host.clock = FrameClock(self.compositor, host.clock.now_ms())
        self.compositor.attach(self.root, frames=False)
        self.settle()

    def layer(self, layer_id: str) -> Any:
        return self.compositor.entry(layer_id).layer

    def settle(self, limit: float = 30) -> None:
        """Run Kivy's clock (callbacks, change events, layout, drawing) until the loader is idle."""
        from kivy.clock import Clock
        from kivy.lang import Builder

        deadline = time.monotonic() + limit
        quiet = 0
        while quiet < 2:
            Clock.tick()  # what EventLoop.idle does but drawing the window: the test draws what it looks at
            Builder.sync()  # the canvas rules of kv (a RelativeLayout's translation follows its pos)
            Clock.tick_draw()
            Builder.sync()
            busy = self.compositor.in_flight or self.compositor._pending
            quiet = 0 if busy else quiet + 1
            if busy:
                time.sleep(0.002)
            assert time.monotonic() < deadline, "the loader did not settle"

    def frame(self, dt: float) -> None:
        self.compositor.frame(dt)
        self.settle()

    def pixels(self) -> bytes:
        """The window's picture now: RGBA rows bottom-up."""
        from kivy.core.window import Window
        from kivy.graphics import Fbo

        from svc_host.display.capture import draw_window

        fbo = Fbo(size=Window.size, with_stencilbuffer=True)
        draw_window(fbo)
        return fbo.pixels

    def widget_pixels(self, widget: Any, fbo: Any = None) -> tuple[Any, bytes]:
        """What ``widget`` draws now (RGBA rows bottom-up), drawn on its own into ``fbo``
        (made when None), as Kivy's ``export_as_image`` does, without the rest of the window."""
        from kivy.graphics import ClearBuffers, ClearColor, Fbo, Translate

        if fbo is None:
            fbo = Fbo(size=(int(widget.width), int(widget.height)), with_stencilbuffer=True)
            with fbo:
                ClearColor(0, 0, 0, 1)
                ClearBuffers()
                Translate(-widget.x, -widget.y, 0)
        parent = widget.parent.canvas
        index = parent.indexof(widget.canvas)
        parent.remove(widget.canvas)
        fbo.add(widget.canvas)
        try:
            fbo.draw()
        finally:
            fbo.remove(widget.canvas)
            parent.insert(index, widget.canvas)
        return fbo, fbo.pixels

    def png(self, path: str) -> None:
        """The window as a PNG at ``path``, after Kivy's own frames have laid it out."""
        from PIL import Image
        from kivy.base import EventLoop
        from kivy.core.window import Window

        for _ in range(2):
            EventLoop.idle()
        data = self.pixels()
        Image.frombuffer("RGBA", tuple(Window.size), data, "raw", "RGBA", 0, -1).convert("RGB").save(path)
