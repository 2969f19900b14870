"""The Kivy part of the renderer kit in one namespace: what :func:`svc_host.kit.display.widgets`
returns (a display module reaches it there on first use, so its ``prepare`` steps never import
Kivy). Each name is defined in the module of its rule; this file only gathers them."""
from __future__ import annotations

from svc_host.kit.display.backdrop import Backdrop, gradient_texture
from svc_host.kit.display.colour import GREEN, RED, on_background, on_panel, panel_backgrounds
from svc_host.kit.display.column import Column, Entry, body_column, entry, shortened, text_slide
from svc_host.kit.display.icons import icon, register_symbols
from svc_host.kit.display.layout import stacked
from svc_host.kit.display.motion import (Messages, Rain, Shapes, celebration_style, glyph_texture, message_label,
                                         rain_layer, with_messages)
from svc_host.kit.display.panels import add_backdrop, boxed_layer, panel
from svc_host.kit.display.pictures import (ImageFill, VideoFill, decoded_texture, qr_texture, texture_from_bytes,
                                           texture_from_pil, video_playback_available)
from svc_host.kit.display.scrolling import (MAX_SCROLL_STEP, SCROLL_EMS, SCROLL_PAUSE, BounceBox, FitLabel, ScrollBox,
                                            Scrolling, ScrollText, fit_label, scroll_box, text_box)
from svc_host.kit.display.slide import Drawing, Slide, add_title, box_hints, themed_slide
from svc_host.kit.display.text import (FONT_OPTIONS, SameSize, TextBox, default_minimum, fit_text, label, minimum_px,
                                       screen_short_side, text_extent, tidy)

__all__ = ["Backdrop", "gradient_texture", "GREEN", "RED", "on_background", "on_panel", "panel_backgrounds", "Column",
           "Entry", "body_column", "entry", "shortened", "text_slide", "icon", "register_symbols", "Messages", "Rain",
           "Shapes", "celebration_style", "glyph_texture", "message_label", "rain_layer", "with_messages",
           "add_backdrop", "boxed_layer", "panel", "ImageFill", "VideoFill", "decoded_texture", "qr_texture", "texture_from_bytes", "texture_from_pil",
           "video_playback_available", "MAX_SCROLL_STEP", "SCROLL_EMS", "SCROLL_PAUSE", "BounceBox", "FitLabel",
           "ScrollBox", "Scrolling", "ScrollText", "fit_label", "scroll_box", "text_box", "Drawing", "Slide",
           "add_title", "box_hints", "themed_slide", "FONT_OPTIONS", "SameSize", "TextBox", "default_minimum",
           "fit_text", "label", "minimum_px", "screen_short_side", "text_extent", "tidy", "stacked"]
