"""Sample pictures for ``svc-display gallery`` (the ``display_samples`` hook): the pumpkin the
``falling_images`` overlay's example names."""
from __future__ import annotations

import io
from typing import Any


def pumpkin_png(px: int = 128) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    for i, x in enumerate((0.08, 0.26, 0.44)):
        shade = (255, 140 - i * 10, 0, 255)
        draw.ellipse([px * x, px * 0.22, px * (x + 0.48), px * 0.92], fill=shade)
    draw.rectangle([px * 0.46, px * 0.08, px * 0.56, px * 0.26], fill=(60, 120, 40, 255))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def write(host: Any) -> None:
    host.blobs.put("overlays/pumpkin.png", pumpkin_png(), "image/png")
