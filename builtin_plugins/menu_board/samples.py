"""Samples for ``svc-display gallery`` (the ``display_samples`` hook): the photo the type's example
names (a cup of coffee on a table, drawn), and a collected board."""
from __future__ import annotations

import io
from typing import Any

BOARD = [("Lunch", "Soup of the day", "5.50", "vegan"), ("Lunch", "Quiche with salad", "8.90", "new"),
         ("Lunch", "Club sandwich", "9.40", "")]


def photo_png(size: tuple[int, int] = (900, 700)) -> bytes:
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", size, (92, 64, 44))
    draw = ImageDraw.Draw(image)
    for y in range(height):  # warm light from the top
        shade = int(40 * (1 - y / height))
        draw.line([(0, y), (width, y)], fill=(92 + shade, 64 + shade, 44 + shade // 2))
    cx, cy, r = width // 2, height // 2 + 20, min(size) // 3
    draw.ellipse([cx - r - 60, cy - r // 2 - 40 + r, cx + r + 60, cy + r // 2 + 40 + r], fill=(235, 232, 226))
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(245, 243, 238))
    draw.ellipse([cx - r + 26, cy - r + 26, cx + r - 26, cy + r - 26], fill=(150, 96, 58))
    draw.ellipse([cx - r // 2, cy - r // 3, cx + r // 2, cy + r // 3], fill=(236, 214, 186))
    draw.ellipse([cx + r - 10, cy - r // 3, cx + r + 70, cy + r // 3], outline=(245, 243, 238), width=22)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def write(host: Any) -> None:
    host.blobs.put("samples/menu-photo.png", photo_png(), "image/png")
    for position, (section, name, price, note) in enumerate(BOARD):
        host.db.MenuBoardItem(id=f"lunch:{position}", board="lunch", position=position, section=section, name=name,
                              price=price, note=note, integration_type="menu_board_csv")
