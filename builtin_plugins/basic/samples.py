"""Sample pictures for ``svc-display gallery`` (the ``display_samples`` hook): the frame the
``static_image`` overlay's example names (a border on transparency)."""
from __future__ import annotations

import io
from typing import Any


def frame_png(size: tuple[int, int] = (1920, 1080), border: int = 28) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    width, height = size
    draw.rectangle([0, 0, width - 1, height - 1], outline=(255, 200, 90, 255), width=border)
    draw.rectangle([border * 2, border * 2, width - border * 2, height - border * 2], outline=(255, 255, 255, 200),
                   width=max(2, border // 6))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def write(host: Any) -> None:
    host.blobs.put("overlays/frame.png", frame_png(), "image/png")
