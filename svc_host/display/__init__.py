"""The display: the Kivy canvas as a compositor of the layers plugins contribute.

Feature-free on purpose: it knows no screen, overlay, alert or ticker by name.

- :mod:`.runtime`: the mode (headless, window, offscreen), Kivy on the main thread and the
  HTTP server next to it (:func:`run`);
- :mod:`.bus`: :class:`DisplayBus` (``host.display_bus``), commands from any thread to the
  UI thread;
- :mod:`.compositor` (Kivy-only, imported when a canvas starts): loads the layers of
  ``register_display_layers``, runs their load (loader thread) / apply / tick steps,
  contains a failing layer, hands each the rectangles it may draw in, and reacts to the
  host's change events;
- :mod:`.capture`: :class:`FrameCapture`, the live-preview frames;
- :mod:`.scenes`, :mod:`.gallery`, :mod:`.truth`: the scenes the gallery draws and what the
  screen shows.

The renderer kit the display modules of plugins build with is part of the public host kit:
:mod:`svc_host.kit.display` (docs/display.md, "The renderer kit"); it is not imported here.
"""
from svc_host.display.bus import DisplayBus
from svc_host.display.capture import FrameCapture
from svc_host.display.runtime import (
    DEFAULT_OFFSCREEN_SIZE,
    MODE_HEADLESS,
    MODE_OFFSCREEN,
    MODE_WINDOW,
    CanvasUnavailable,
    DisplayRuntime,
    choose_mode,
    parse_size,
    run,
    start_kivy,
)

__all__ = ["DisplayBus", "FrameCapture", "DisplayRuntime", "CanvasUnavailable", "choose_mode", "parse_size",
           "run", "start_kivy", "MODE_HEADLESS", "MODE_OFFSCREEN", "MODE_WINDOW", "DEFAULT_OFFSCREEN_SIZE"]
