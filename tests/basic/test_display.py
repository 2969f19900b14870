"""The basic types' drawing (``builtin_plugins/basic/display.py``), one renderer at a time on the
real canvas offscreen (``svc_display_frame``)."""
from __future__ import annotations

RED, GREEN = (255, 0, 0), (0, 255, 0)


def test_a_qr_code_slide_draws_its_code_in_the_colours_it_asks_for(svc_display_frame):
    """``foreground``/``background`` colour the code (the slide once drew it in the theme's text colour)."""
    frame = svc_display_frame(None, "screen", "qr_code", {"payload": "https://example.org/menu",
                                                          "foreground": "#ff0000", "background": "#00ff00"})
    assert frame.fraction(RED) > 0.03  # the code's dark modules
    assert frame.fraction(GREEN) > 0.05  # its light modules and the panel behind it


def test_the_message_and_qr_code_overlay_draw(svc_display_frame):
    message = svc_display_frame(None, "screen", "message", {"body": "Hello", "backgroundColor": "#00ff00"})
    assert message.fraction(GREEN) > 0.6
    overlay = svc_display_frame(None, "overlay", "qr_code", {"payload": "https://example.org", "size": 0.5})
    assert overlay.fraction((255, 255, 255)) > 0.05  # the white panel, over black where nothing is drawn
