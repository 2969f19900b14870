"""The ticker band's text textures, drawn off the frame.

A text of the band becomes a picture (white on transparent; the run tints it) in two steps: its
glyphs drawn into pixels (the costly part: FreeType through Pillow), then those pixels uploaded to a
GL texture (cheap, and only the UI thread may do it). The marquee's cycle and refresh jobs run the
first step on the loader thread (:meth:`TextTextures.drawer`), so a new cycle's items, or the time
tape's new second, cost the frame that shows them only the upload. A text not drawn ahead (the band's
font size changed, a theme change) is drawn on the UI thread, the same way.

Each thread draws with fonts of its own (``threading.local``): a FreeType face is not shared between
threads. The band's face is the one its labels used: Kivy's default family, bold.
"""
from __future__ import annotations

import math
import threading
from typing import Any, Callable, Iterable

Image = tuple[int, int, bytes]  # width, height and RGBA pixels, rows top first
READY_MOST = 2000
"""Texts drawn ahead and not taken yet (a cycle dropped as stale) are forgotten past this many."""

_local = threading.local()


def font_file() -> str:
    """The file of the face the band draws in (UI thread: Kivy resolves the family's bold face)."""
    from kivy.core.text import Label as CoreLabel

    label = CoreLabel(text=" ", bold=True)
    label.resolve_font_name()
    return str(label.options["font_name_r"])


def _font(path: str, px: int) -> Any:
    from PIL import ImageFont

    fonts = getattr(_local, "fonts", None)
    if fonts is None:
        fonts = _local.fonts = {}
    font = fonts.get((path, px))
    if font is None:
        font = fonts[(path, px)] = ImageFont.truetype(path, px)
    return font


def text_image(text: str, px: int, path: str) -> Image:
    """``text`` drawn white on transparent at ``px`` in the face of ``path``, one line as high as the
    face (ascent and descent, as a label's) and as wide as its advance or its ink. Any thread."""
    from PIL import Image as PILImage, ImageDraw

    font = _font(path, px)
    left, _top, right, _bottom = font.getbbox(text)
    shift = max(0, -left)  # a glyph reaching left of the origin (an italic, a J) is not cut
    ascent, descent = font.getmetrics()
    width = max(1, shift + max(right, math.ceil(font.getlength(text))))
    height = max(1, ascent + descent)
    image = PILImage.new("RGBA", (width, height), (255, 255, 255, 0))
    ImageDraw.Draw(image).text((shift, 0), text, font=font, fill=(255, 255, 255, 255))
    return width, height, image.tobytes()


def upload(image: Image) -> Any:
    """A GL texture of ``image`` (UI thread), drawn again from its pixels if the GL context is lost."""
    from kivy.graphics.texture import Texture

    width, height, pixels = image
    texture = Texture.create(size=(width, height), colorfmt="rgba")
    texture.blit_buffer(pixels, colorfmt="rgba", bufferfmt="ubyte")
    texture.flip_vertical()  # the pixels' rows are top first
    texture.add_reload_observer(lambda again: again.blit_buffer(pixels, colorfmt="rgba", bufferfmt="ubyte"))
    return texture


class TextTextures:
    """The band's texture of each text on screen or next (UI thread), and the images the loader
    thread drew ahead for them (:meth:`drawer`), keyed by text and font size."""

    def __init__(self) -> None:
        self._made: dict[str, Any] = {}
        self._ready: dict[tuple[str, int], Image] = {}
        self._lock = threading.Lock()
        self._path = ""

    def path(self) -> str:
        if not self._path:
            self._path = font_file()
        return self._path

    def drawer(self, px: float) -> Callable[[Iterable[str]], None]:
        """UI thread: a function for the loader thread that draws ``texts`` at ``px`` ahead."""
        path, size = self.path(), int(px)

        def draw(texts: Iterable[str]) -> None:
            for text in texts:
                with self._lock:
                    if (text, size) in self._ready:
                        continue
                try:
                    image = text_image(text, size, path)
                except Exception:  # noqa: BLE001  the UI thread draws it then, and says why
                    continue
                with self._lock:
                    if len(self._ready) >= READY_MOST:
                        self._ready.clear()
                    self._ready[(text, size)] = image

        return draw

    def texture(self, text: str, px: float) -> Any:
        """UI thread: ``text``'s texture at ``px``, made once (from the image drawn ahead, if any)."""
        texture = self._made.get(text)
        if texture is None:
            with self._lock:
                image = self._ready.pop((text, int(px)), None)
            texture = self._made[text] = upload(image or text_image(text, int(px), self.path()))
        return texture

    def reset(self) -> None:
        """A new font size or theme: every text made again."""
        self._made = {}

    def keep(self, alive: set[str]) -> None:
        """Only the textures of ``alive`` texts kept (a run left the band)."""
        self._made = {text: texture for text, texture in self._made.items() if text in alive}
