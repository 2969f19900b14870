"""The basic types' drawing (``builtin_plugins/basic/display.py``), one renderer at a time on the
real canvas offscreen (``svc_display_frame``)."""
from __future__ import annotations

GREEN = (0, 255, 0)
DARK_RED, PALE_GREEN = (128, 0, 0), (200, 255, 200)


def test_a_qr_code_slide_draws_its_code_in_the_colours_it_asks_for(svc_display_frame):
    """``foreground``/``background`` colour the code (the slide once drew it in the theme's text
    colour) when they read as a code: dark modules on a light ground (dark red on pale green is
    about 9:1; a pair that does not read is drawn black on white, tests/display/test_canvas.py)."""
    frame = svc_display_frame(None, "screen", "qr_code", {"payload": "https://example.org/menu",
                                                          "foreground": "#800000", "background": "#c8ffc8"})
    assert frame.fraction(DARK_RED) > 0.03  # the code's dark modules
    assert frame.fraction(PALE_GREEN) > 0.05  # its light modules and the panel behind it


def test_the_message_and_qr_code_overlay_draw(svc_display_frame):
    message = svc_display_frame(None, "screen", "message", {"body": "Hello", "backgroundColor": "#00ff00"})
    assert message.fraction(GREEN) > 0.6
    overlay = svc_display_frame(None, "overlay", "qr_code", {"payload": "https://example.org", "size": 0.5})
    assert overlay.fraction((255, 255, 255)) > 0.05  # the white panel, over black where nothing is drawn
