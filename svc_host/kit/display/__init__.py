"""The renderer kit: what the display modules of any plugin (builtin or third party) build with,
next to the contract in :mod:`hookspecs.render`. One module per rule, read top-down from the
compositor (z-order, masking: :mod:`svc_host.display.compositor`):

- :mod:`~svc_host.kit.display.layout` (no Kivy) the layout rule: the screen divided by the
  layers' claims, the overlay zones, the free area the slides go in, the celebration band;
- :mod:`~svc_host.kit.display.text` the text rule (wrap at words, shrink to a minimum) and
  :mod:`~svc_host.kit.display.scrolling` its last step (scroll, never cut);
- :mod:`~svc_host.kit.display.slide` a slide's root and title band,
  :mod:`~svc_host.kit.display.column` its body (a column of items, what does not fit left out);
- :mod:`~svc_host.kit.display.pictures` textures, images, video, QR codes;
- :mod:`~svc_host.kit.display.panels` overlay panels; :mod:`~svc_host.kit.display.motion` moving
  pieces (confetti, rain, cycled captions); :mod:`~svc_host.kit.display.backdrop` the theme fill;
- :mod:`~svc_host.kit.display.colour` (no Kivy) colours made legible where they are drawn;
  :mod:`~svc_host.kit.display.icons` Material Symbols;
- :mod:`~svc_host.kit.display.config` (no Kivy) a row's config values and the overlay
  conventions; :mod:`~svc_host.kit.display.content` (no Kivy) titles, category labels, rows and
  blobs for ``prepare`` steps.

This package is the renderer kit's public surface: the no-Kivy names below, and :func:`widgets`,
the Kivy part (:mod:`svc_host.kit.display.ui`) imported on first use, so a display module's
``prepare`` steps run (and are tested) in a process that never imports Kivy.
"""
from __future__ import annotations

from types import ModuleType

from svc_host.kit.display.config import (POSITIONS, colors, config_flag, config_list, config_number, config_strings,
                                         config_text, data_key, density, opacity, panel_fraction, panel_hint, position,
                                         speed)
from svc_host.kit.display.content import blob_images, category_label, clip_text, newest_shuffled, slide_title
from svc_host.kit.display.icons import FONTS, SYMBOLS_FONT, SYMBOLS_FONT_NAME, has_icon, icon_text
from svc_host.kit.display.layout import drop_widget, layer_box, overlay_bands, place_celebration


def widgets() -> ModuleType:
    """The Kivy part of the kit (:mod:`svc_host.kit.display.ui`), imported on first use (UI thread only)."""
    from svc_host.kit.display import ui

    return ui


__all__ = ["POSITIONS", "colors", "config_flag", "config_list", "config_number", "config_strings", "config_text",
           "data_key", "density", "opacity", "panel_fraction", "panel_hint", "position", "speed", "blob_images",
           "category_label", "clip_text", "newest_shuffled", "slide_title", "FONTS", "SYMBOLS_FONT",
           "SYMBOLS_FONT_NAME", "has_icon", "icon_text", "drop_widget", "layer_box", "overlay_bands", "place_celebration",
           "widgets"]
