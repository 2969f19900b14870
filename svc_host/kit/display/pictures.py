"""Pictures (Kivy): textures from image bytes or Pillow images, :class:`ImageFill` (contain/cover,
a slow zoom, never drawn outside its box), :class:`VideoFill` and :func:`qr_texture`."""
from __future__ import annotations

import io
from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.widget import Widget

from svc_host.kit.contrast import BLACK, WHITE, qr_colours


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


def decoded_texture(data: bytes | None, what: str) -> Texture:
    """:func:`texture_from_bytes`, raising ``ValueError`` naming ``what`` when the bytes do not decode
    (a renderer that raises is reported and its slide or overlay skipped)."""
    texture = texture_from_bytes(data)
    if texture is None:
        raise ValueError(f"{what} is not a decodable image")
    return texture


def texture_from_pil(image: Any, flipped: bool = False) -> Texture:
    from PIL import Image

    image = image.convert("RGBA")
    if not flipped:
        image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    texture = Texture.create(size=image.size, colorfmt="rgba")
    texture.blit_buffer(image.tobytes(), colorfmt="rgba", bufferfmt="ubyte")
    return texture


class ImageFill(Widget):
    """A texture drawn to fit (``contain``) or to fill (``cover``) its box, magnified ``zoom`` times
    about its centre (a slow zoom: :meth:`set_zoom`) and never drawn outside its box: what grows past
    it is cropped through the texture coordinates."""

    def __init__(self, texture: Texture | None, mode: str = "contain", **kwargs: Any):
        super().__init__(**kwargs)
        self.texture = texture
        self.mode = mode
        self.zoom = 1.0
        with self.canvas:
            Color(1, 1, 1, 1)
            self._rect = Rectangle(texture=texture)
        self.bind(pos=self._sync, size=self._sync)
        self._sync()

    def set_texture(self, texture: Texture) -> None:
        if texture is not self.texture:
            self.texture = self._rect.texture = texture
            self._sync()

    def set_zoom(self, zoom: float) -> None:
        if zoom != self.zoom:
            self.zoom = zoom
            self._sync()

    def _sync(self, *_args: Any) -> None:
        if self.texture is None:
            return
        tw, th = self.texture.size
        w, h = self.size
        if tw <= 0 or th <= 0 or w <= 0 or h <= 0:
            return
        scale = (max if self.mode == "cover" else min)(w / tw, h / th) * self.zoom
        dw, dh = tw * scale, th * scale
        x0, y0 = self.x + (w - dw) / 2, self.y + (h - dh) / 2
        # the part inside the box, cropped through texture coordinates so nothing spills outside it
        left, right = max(x0, self.x), min(x0 + dw, self.x + w)
        bottom, top = max(y0, self.y), min(y0 + dh, self.y + h)
        tc = self.texture.tex_coords  # the texture's own corners (a flipped or atlas texture's too)

        def uv(a: float, b: float) -> tuple[float, float]:
            return tc[0] + a * (tc[4] - tc[0]), tc[1] + b * (tc[5] - tc[1])

        a0, a1 = (left - x0) / dw, (right - x0) / dw
        b0, b1 = (bottom - y0) / dh, (top - y0) / dh
        self._rect.tex_coords = (*uv(a0, b0), *uv(a1, b0), *uv(a1, b1), *uv(a0, b1))
        self._rect.pos, self._rect.size = (left, bottom), (right - left, top - bottom)


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


def qr_texture(payload: str, fg: Any = BLACK, bg: Any = WHITE) -> Texture:
    """``payload`` as a QR code (qrcode, error correction M) with a quiet zone of 4 modules, in the
    colours of :func:`svc_host.kit.contrast.qr_colours` (dark modules on a light ground whatever is
    asked), drawn sharp."""
    import qrcode

    fg, bg = qr_colours(fg, bg)

    def rgb(color: Any) -> tuple[int, int, int]:
        return tuple(int(round(c * 255)) for c in color[:3])  # type: ignore[return-value]

    code = qrcode.QRCode(border=4, box_size=8, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(payload)
    code.make(fit=True)
    image = code.make_image(fill_color=rgb(fg), back_color=rgb(bg)).get_image()
    texture = texture_from_pil(image)
    texture.mag_filter = "nearest"
    return texture
