"""Sample media for the ``display_samples`` hook (no Kivy): pictures, icons and a short video made
on the spot, so ``svc-display gallery`` needs no file and no network.

- :func:`landscape_png`: a sky-to-ground picture with a sun and hills (photos, news pictures);
- :func:`icon_png`: a weather icon (``sun``, ``cloud``, ``rain``) on transparency;
- :func:`video_mp4`: a few seconds of a colour sweep, encoded by ffpyplayer's FFmpeg.
"""
from __future__ import annotations

import io
import math
import os
import tempfile

RGB = tuple[int, int, int]


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def landscape(size: tuple[int, int], sky: RGB, ground: RGB, sun: RGB | None = (255, 214, 102)):
    """A Pillow image: a vertical sky gradient, a sun and two hills."""
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    horizon = int(height * 0.62)
    for y in range(horizon):
        t = y / max(1, horizon - 1)
        top = tuple(int(c * 0.55) for c in sky)
        draw.line([(0, y), (width, y)], fill=tuple(int(top[i] + (sky[i] - top[i]) * t) for i in range(3)))
    draw.rectangle([0, horizon, width, height], fill=ground)
    if sun is not None:
        r = height * 0.09
        draw.ellipse([width * 0.72 - r, height * 0.25 - r, width * 0.72 + r, height * 0.25 + r], fill=sun)
    far = tuple(int(c * 0.8) for c in ground)
    draw.ellipse([-width * 0.2, horizon - height * 0.18, width * 0.6, horizon + height * 0.3], fill=far)
    draw.ellipse([width * 0.35, horizon - height * 0.1, width * 1.3, horizon + height * 0.4], fill=ground)
    return image


def landscape_png(size: tuple[int, int], sky: RGB, ground: RGB, sun: RGB | None = (255, 214, 102)) -> bytes:
    return _png(landscape(size, sky, ground, sun))


def icon_png(kind: str, px: int = 256) -> bytes:
    """A weather icon: ``sun``, ``cloud`` or ``rain`` (a cloud with drops), on transparency."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if kind == "sun":
        c, r = px / 2, px * 0.22
        for i in range(12):
            a = i * math.pi / 6
            draw.line([(c + math.cos(a) * r * 1.3, c + math.sin(a) * r * 1.3),
                       (c + math.cos(a) * r * 1.8, c + math.sin(a) * r * 1.8)], fill=(255, 200, 60, 255),
                      width=max(2, px // 28))
        draw.ellipse([c - r, c - r, c + r, c + r], fill=(255, 200, 60, 255))
        return _png(image)
    grey = (236, 240, 245, 255)
    draw.ellipse([px * 0.12, px * 0.38, px * 0.48, px * 0.7], fill=grey)
    draw.ellipse([px * 0.3, px * 0.22, px * 0.72, px * 0.64], fill=grey)
    draw.ellipse([px * 0.55, px * 0.38, px * 0.88, px * 0.7], fill=grey)
    draw.rectangle([px * 0.3, px * 0.5, px * 0.72, px * 0.7], fill=grey)
    if kind == "rain":
        for i in range(4):
            x = px * (0.28 + i * 0.14)
            draw.line([(x, px * 0.76), (x - px * 0.04, px * 0.9)], fill=(90, 170, 255, 255), width=max(2, px // 36))
    return _png(image)


def video_mp4(seconds: float = 3.0, size: tuple[int, int] = (320, 180), fps: int = 10) -> bytes:
    """A short MPEG-4 video: a landscape whose sun crosses the sky."""
    from ffpyplayer.pic import Image as Frame
    from ffpyplayer.writer import MediaWriter

    width, height = size
    frames = max(1, round(seconds * fps))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sample.mp4")  # the writer refuses an existing file
        writer = MediaWriter(path, [{"pix_fmt_in": "rgb24", "pix_fmt_out": "yuv420p", "width_in": width,
                                     "height_in": height, "codec": "mpeg4", "frame_rate": (fps, 1)}])
        for index in range(frames):
            t = index / max(1, frames - 1)
            picture = landscape(size, (int(80 + 60 * t), int(150 + 40 * t), 230), (60, 140, 70))
            frame = Frame(plane_buffers=[picture.tobytes()], pix_fmt="rgb24", size=size)
            writer.write_frame(img=frame, pts=index / fps, stream=0)
        writer.close()
        with open(path, "rb") as handle:
            return handle.read()
