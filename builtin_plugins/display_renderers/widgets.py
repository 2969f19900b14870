"""Kivy building blocks shared by the builtin renderers (imported only on the UI side)."""
from __future__ import annotations

import io
from typing import Any, Sequence

from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.floatlayout import FloatLayout  # noqa: F401
from kivy.uix.relativelayout import RelativeLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from builtin_plugins.display_renderers.base import RenderContext

RGBA = tuple[float, float, float, float]


def gradient_texture(stops: Sequence[RGBA]) -> Texture:
    """A vertical gradient (first stop at the top) as a small linear-filtered texture."""
    stops = list(stops) or [(0, 0, 0, 1)]
    if len(stops) == 1:
        stops = stops * 2
    height = 64
    buf = bytearray()
    for y in range(height):  # texture row 0 is the bottom
        t = 1 - y / (height - 1)
        pos = t * (len(stops) - 1)
        i = min(int(pos), len(stops) - 2)
        f = pos - i
        a, b = stops[i], stops[i + 1]
        buf += bytes(int(255 * (a[k] + (b[k] - a[k]) * f)) for k in range(4))
    texture = Texture.create(size=(1, height), colorfmt="rgba")
    texture.blit_buffer(bytes(buf), colorfmt="rgba", bufferfmt="ubyte")
    texture.mag_filter = "linear"
    texture.min_filter = "linear"
    return texture


def texture_from_bytes(data: bytes | None) -> Texture | None:
    """Decode image bytes (any Pillow format) into a texture; ``None`` when undecodable."""
    if not data:
        return None
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        image = image.convert("RGBA").transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    except Exception:
        return None
    return texture_from_pil(image, flipped=True)


def texture_from_pil(image: Any, flipped: bool = False) -> Texture:
    from PIL import Image

    image = image.convert("RGBA")
    if not flipped:
        image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    texture = Texture.create(size=image.size, colorfmt="rgba")
    texture.blit_buffer(image.tobytes(), colorfmt="rgba", bufferfmt="ubyte")
    return texture


class Backdrop(Widget):
    """Fills its box with a colour or a vertical gradient of colours."""

    def __init__(self, colors: Sequence[RGBA], **kwargs: Any):
        super().__init__(**kwargs)
        with self.canvas:
            if len(colors) == 1:
                Color(*colors[0])
                self._rect = Rectangle(pos=self.pos, size=self.size)
            else:
                Color(1, 1, 1, 1)
                self._rect = Rectangle(pos=self.pos, size=self.size, texture=gradient_texture(colors))
        self.bind(pos=self._sync, size=self._sync)

    def _sync(self, *_args: Any) -> None:
        self._rect.pos = self.pos
        self._rect.size = self.size


class ImageFill(Widget):
    """A texture drawn to fit (``contain``) or to fill (``cover``) its box."""

    def __init__(self, texture: Texture | None, mode: str = "contain", **kwargs: Any):
        super().__init__(**kwargs)
        self.texture = texture
        self.mode = mode
        with self.canvas:
            Color(1, 1, 1, 1)
            self._rect = Rectangle(texture=texture)
        self.bind(pos=self._sync, size=self._sync)
        self._sync()

    def set_texture(self, texture: Texture) -> None:
        if texture is not self.texture:
            self.texture = self._rect.texture = texture
            self._sync()

    def _sync(self, *_args: Any) -> None:
        if self.texture is None:
            return
        tw, th = self.texture.size
        w, h = self.size
        if tw <= 0 or th <= 0 or w <= 0 or h <= 0:
            return
        scale = (max if self.mode == "cover" else min)(w / tw, h / th)
        dw, dh = tw * scale, th * scale
        if self.mode == "cover":
            # crop through texture coordinates so nothing spills outside the box
            u, v = w / dw, h / dh
            u0, v0 = (1 - u) / 2, (1 - v) / 2
            self._rect.tex_coords = (u0, v0, u0 + u, v0, u0 + u, v0 + v, u0, v0 + v)
            self._rect.pos, self._rect.size = self.pos, self.size
        else:
            self._rect.pos = (self.x + (w - dw) / 2, self.y + (h - dh) / 2)
            self._rect.size = (dw, dh)


def video_playback_available() -> bool:
    """Whether Kivy found a real video provider (ffpyplayer here), not its null one."""
    try:
        from kivy.core.video import Video as CoreVideo
    except Exception:
        return False
    return CoreVideo is not None and CoreVideo.__name__ != "VideoNull"


class VideoFill(ImageFill):
    """A video file played into an :class:`ImageFill` (``contain``) through Kivy's core
    video provider. It loops while shown, pauses on its last frame after ``max_seconds``
    and releases the decoder in :meth:`dispose`."""

    def __init__(self, path: str, muted: bool = True, max_seconds: float = 3600.0, **kwargs: Any):
        super().__init__(None, mode="contain", **kwargs)
        from kivy.core.video import Video as CoreVideo

        self.played = 0.0
        self.max_seconds = max_seconds
        self.player = CoreVideo(filename=path, eos="loop")
        self.player.volume = 0.0 if muted else 1.0
        self.player.bind(on_frame=self._on_frame)
        self.player.play()

    def _on_frame(self, *_args: Any) -> None:
        texture = self.player.texture
        if texture is not None:
            self.set_texture(texture)
            self.canvas.ask_update()

    def tick(self, dt: float) -> None:
        if self.player is None:
            return
        self.played += dt
        if self.played >= self.max_seconds and self.player.state == "playing":
            self.player.pause()

    def dispose(self) -> None:
        player, self.player = self.player, None
        if player is not None:
            player.unbind(on_frame=self._on_frame)
            player.stop()
            player.unload()


def label(text: str, font_size: float, color: RGBA, bold: bool = False, halign: str = "left",
          valign: str = "middle", **kwargs: Any) -> Label:
    """A label that wraps inside its box.

    The texture is only as tall as the text (``text_size=(width, None)``): a box-sized,
    mostly transparent texture would cost a full blend of the box on llvmpipe every
    frame. ``valign="top"`` keeps the text at the top of its box; otherwise it is centred.
    """
    widget = Label(text=text, font_size=font_size, color=color, bold=bold, halign=halign, valign="middle",
                   markup=False, shorten=False, **kwargs)
    widget.bind(width=lambda w, width: setattr(w, "text_size", (width, None)))
    if valign == "top":
        # as tall as its text, anchored by its pos_hint "top": the text starts at the top
        widget.size_hint_y = None
        widget.bind(texture_size=lambda w, size: setattr(w, "height", size[1]))
    return widget


class Slide(RelativeLayout):
    """A slide or overlay root: children and canvas use coordinates relative to its corner.

    ``tick(dt)`` forwards to the helpers registered with :meth:`animate`.
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.animated: list[Any] = []
        self.disposers: list[Any] = []

    def animate(self, widget: Any) -> Any:
        self.animated.append(widget)
        return widget

    def on_dispose(self, callback: Any) -> None:
        """Run ``callback`` when the director removes this slide or overlay."""
        self.disposers.append(callback)

    def dispose(self) -> None:
        callbacks, self.disposers = self.disposers, []
        for callback in callbacks:
            callback()

    def tick(self, dt: float) -> None:
        for widget in self.animated:
            widget.tick(dt)


def themed_slide(context: RenderContext, background: Sequence[RGBA] | None = None) -> Slide:
    slide = Slide()
    slide.add_widget(Backdrop(list(background or context.theme.background), size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    return slide


def text_slide(context: RenderContext, title: str, lines: Sequence[str], subtitle: str = "",
               accent: RGBA | None = None, body_size: float = 56, background: Sequence[RGBA] | None = None,
               text_color: RGBA | None = None, halign: str = "left") -> Slide:
    """The common slide: a title band and wrapped body text in theme colours."""
    theme = context.theme
    slide = themed_slide(context, background)
    accent = accent or theme.accents[0]
    fg = text_color or theme.text
    slide.add_widget(Backdrop([accent], size_hint=(0.012, 0.16), pos_hint={"x": 0.05, "top": 0.92}))
    slide.add_widget(label(title, context.font(80), fg, bold=True, halign=halign, size_hint=(0.86, 0.16),
                           pos_hint={"x": 0.08, "top": 0.92}))
    top = 0.74
    if subtitle:
        slide.add_widget(label(subtitle, context.font(40), accent, size_hint=(0.86, 0.08),
                               pos_hint={"x": 0.08, "top": top}))
        top -= 0.09
    body = "\n".join(line for line in lines if line)
    slide.add_widget(label(body, context.font(body_size), fg, valign="top", halign=halign,
                           size_hint=(0.84, top - 0.06),
                           pos_hint={"x": 0.08, "top": top}))
    return slide


class Shapes(Widget):
    """Many moving shapes drawn as one instruction group (rain, confetti, balloons, clouds)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.items: list[dict] = []

    def add_shape(self, kind: str, color: RGBA, x: float, y: float, w: float, h: float, vx: float, vy: float,
                  spin: float = 0.0, texture: Texture | None = None) -> dict:
        with self.canvas:
            color_instruction = Color(*color)
            if texture is not None:
                shape = Rectangle(pos=(x, y), size=(w, h), texture=texture)
            elif kind == "circle":
                shape = Ellipse(pos=(x, y), size=(w, h))
            elif kind == "line":
                shape = Line(points=[x, y, x + w, y + h], width=max(1.0, w / 8))
            else:
                shape = Rectangle(pos=(x, y), size=(w, h))
        item = {"kind": kind, "color": color_instruction, "shape": shape, "x": x, "y": y, "w": w, "h": h,
                "vx": vx, "vy": vy, "spin": spin}
        self.items.append(item)
        return item

    @staticmethod
    def place(item: dict) -> None:
        if item["kind"] == "line":
            item["shape"].points = [item["x"], item["y"], item["x"] + item["w"], item["y"] + item["h"]]
        else:
            item["shape"].pos = (item["x"], item["y"])


class _Hands:
    def __init__(self, context: RenderContext, lines: list, center: tuple, radius: float, zone: str | None):
        self.context, self.lines, self.center, self.radius, self.zone = context, lines, center, radius, zone
        self.tick(0)

    def tick(self, _dt: float) -> None:
        import math

        now = self.context.now(self.zone)
        seconds = now.second + now.microsecond / 1e6
        minutes = now.minute + seconds / 60
        hours = now.hour % 12 + minutes / 60
        cx, cy = self.center
        for line, fraction, length in zip(self.lines, (hours / 12, minutes / 60, seconds / 60), (0.5, 0.78, 0.88)):
            angle = math.pi / 2 - 2 * math.pi * fraction
            line.points = [cx, cy, cx + math.cos(angle) * self.radius * length,
                           cy + math.sin(angle) * self.radius * length]


def analog_face(widget: Widget, context: RenderContext, center: tuple[float, float], radius: float, color: RGBA,
                zone: str | None, show_seconds: bool) -> Any:
    """Draws an analog clock on ``widget.canvas``; returns the animator for ``tick``."""
    import math

    cx, cy = center
    bg = context.theme.primary_bg
    with widget.canvas:
        Color(bg[0], bg[1], bg[2], 0.85)
        Ellipse(pos=(cx - radius, cy - radius), size=(radius * 2, radius * 2))
        Color(*color)
        Line(circle=(cx, cy, radius), width=max(1.5, radius * 0.03))
        for i in range(12):
            a = 2 * math.pi * i / 12
            Line(points=[cx + math.cos(a) * radius * 0.85, cy + math.sin(a) * radius * 0.85,
                         cx + math.cos(a) * radius * 0.95, cy + math.sin(a) * radius * 0.95], width=2)
        hands = [Line(points=[cx, cy, cx, cy], width=max(2, radius * 0.05)),
                 Line(points=[cx, cy, cx, cy], width=max(1.5, radius * 0.03))]
        if show_seconds:
            Color(*context.theme.accents[0])
            hands.append(Line(points=[cx, cy, cx, cy], width=max(1, radius * 0.015)))
    return _Hands(context, hands, center, radius, zone)


def glyph_texture(kind: str, px: int = 64) -> Texture:
    """A white shape (heart, star, snowflake, leaf) on transparency, tinted by the drawing Color."""
    import math

    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    white = (255, 255, 255, 255)
    c, r = px / 2, px / 2 - 2
    if kind == "heart":
        draw.ellipse((2, 6, c + 2, c + 6), fill=white)
        draw.ellipse((c - 2, 6, px - 2, c + 6), fill=white)
        draw.polygon([(4, c - 2), (px - 4, c - 2), (c, px - 2)], fill=white)
    elif kind == "star":
        points = [(c + (r if i % 2 == 0 else r * 0.45) * math.sin(i * math.pi / 5),
                   c - (r if i % 2 == 0 else r * 0.45) * math.cos(i * math.pi / 5)) for i in range(10)]
        draw.polygon(points, fill=white)
    elif kind == "snowflake":
        for i in range(6):
            a = i * math.pi / 3
            draw.line([(c, c), (c + r * math.cos(a), c + r * math.sin(a))], fill=white, width=max(2, px // 12))
    else:  # leaf
        draw.ellipse((px * 0.15, 2, px * 0.85, px - 2), fill=white)
        draw.line([(c, px - 2), (c, 6)], fill=(0, 0, 0, 0), width=max(1, px // 20))
    return texture_from_pil(image)
