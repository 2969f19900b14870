"""Moving pieces (Kivy): :class:`Shapes` (many pieces, one mesh a colour), :func:`glyph_texture`,
:func:`rain_layer` (confetti, hearts, balloons falling or rising) and the cycled captions of the
celebration band (:func:`with_messages`, :class:`Messages`)."""
from __future__ import annotations

import math
import random
from typing import Any, Sequence

from kivy.clock import Clock
from kivy.graphics import Color, Mesh
from kivy.graphics.texture import Texture
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from hookspecs.render import ROLE_CELEBRATION, RenderContext
from svc_host.kit.display.config import config_number, config_strings, opacity
from svc_host.kit.display.layout import BAND
from svc_host.kit.display.pictures import texture_from_pil
from svc_host.kit.display.scrolling import ScrollBox
from svc_host.kit.display.slide import Slide
from svc_host.kit.display.text import minimum_px

RGBA = tuple[float, float, float, float]


class _Batch:
    """The pieces of one colour and texture: one ``Mesh`` of quads (4 vertices ``x, y, u, v`` each)."""

    def __init__(self, mesh: Mesh, tex_coords: Sequence[float]):
        self.mesh, self.tex_coords = mesh, tuple(tex_coords)
        self.vertices: list[float] = []
        self.indices: list[int] = []


class Shapes(Widget):
    """Many moving shapes (rain, confetti, balloons, clouds), the pieces of one colour and texture
    drawn as one ``Mesh`` of textured quads: one draw call and one vertex upload per batch and
    frame, however many pieces (a circle is a disc texture, a line a thin quad). As one instruction
    each, 200 confetti pieces over a full-screen slide cost Mesa's llvmpipe about 2 GB of memory
    in flight and a third of the frame rate. ``place(item)`` after moving an item's ``x``/``y``;
    the batches are uploaded once before the next frame."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.items: list[dict] = []
        self._batches: dict[tuple, _Batch] = {}
        self._dirty: set[_Batch] = set()
        self._disc: Texture | None = None
        self._upload = Clock.create_trigger(self._flush, -1)  # before the next frame
        self._off: list[tuple[float, float, float, float]] = []  # (left, bottom, right, top) in its coordinates

    def keep_off(self, boxes: Sequence[Any]) -> None:
        """Draw no piece that touches any of ``boxes`` (window rectangles: the content over the
        decoration) until it has moved past: a piece is drawn whole or not at all, so the
        compositor's stencil never leaves a sliver of one along a text's edge (a stray underline)."""
        ox, oy = self.to_window(0, 0)
        off = [(b.x - ox, b.y - oy, b.x + b.width - ox, b.y + b.height - oy) for b in boxes]
        if off != self._off:
            self._off = off
            for item in self.items:
                self.place(item)

    def hidden(self, item: dict) -> bool:
        """Whether ``item`` touches a box it keeps off (:meth:`keep_off`)."""
        x, y, w, h = item["x"], item["y"], item["w"], item["h"]
        left, right, bottom, top = min(x, x + w), max(x, x + w), min(y, y + h), max(y, y + h)
        pad = max(abs(w), abs(h)) / 8 if item["kind"] == "line" else 0.0  # a line's width
        return any(left - pad < r and right + pad > l and bottom - pad < t and top + pad > b
                   for l, b, r, t in self._off)

    def add_shape(self, kind: str, color: RGBA, x: float, y: float, w: float, h: float, vx: float, vy: float,
                  spin: float = 0.0, texture: Texture | None = None) -> dict:
        if texture is None and kind == "circle":
            if self._disc is None:
                self._disc = glyph_texture("circle", 128)
            texture = self._disc
        key = (tuple(color), id(texture) if texture is not None else None)
        batch = self._batches.get(key)
        if batch is None:
            with self.canvas:
                Color(*color)
                mesh = Mesh(mode="triangles", texture=texture)
            batch = self._batches[key] = _Batch(mesh, texture.tex_coords if texture is not None
                                                else (0, 0, 1, 0, 1, 1, 0, 1))
        first = len(batch.vertices) // 4
        batch.vertices.extend([0.0] * 16)
        batch.indices.extend(first + i for i in (0, 1, 2, 2, 3, 0))
        batch.mesh.indices = batch.indices
        item = {"kind": kind, "x": x, "y": y, "w": w, "h": h, "vx": vx, "vy": vy, "spin": spin,
                "batch": batch, "slot": first * 4}
        self.items.append(item)
        self.place(item)
        return item

    def place(self, item: dict) -> None:
        x, y, w, h = item["x"], item["y"], item["w"], item["h"]
        if item["kind"] == "line":  # from (x, y) to (x + w, y + h), w / 8 wide
            length = math.hypot(w, h) or 1.0
            half = max(1.0, w / 8) / 2
            nx, ny = -h / length * half, w / length * half
            corners = ((x - nx, y - ny), (x + w - nx, y + h - ny), (x + w + nx, y + h + ny), (x + nx, y + ny))
        else:
            corners = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
        if self._off and self.hidden(item):  # drawn whole or not at all: a quad of no area
            corners = ((0.0, 0.0),) * 4
        batch, slot, uv = item["batch"], item["slot"], item["batch"].tex_coords
        batch.vertices[slot:slot + 16] = [corners[0][0], corners[0][1], uv[0], uv[1],
                                          corners[1][0], corners[1][1], uv[2], uv[3],
                                          corners[2][0], corners[2][1], uv[4], uv[5],
                                          corners[3][0], corners[3][1], uv[6], uv[7]]
        self._dirty.add(batch)
        self._upload()

    def _flush(self, *_args: Any) -> None:
        dirty, self._dirty = self._dirty, set()
        for batch in dirty:
            batch.mesh.vertices = batch.vertices


def glyph_texture(kind: str, px: int = 64) -> Texture:
    """A white shape (circle, heart, star, snowflake, leaf) on transparency, tinted by the drawing
    Color."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    white = (255, 255, 255, 255)
    c, r = px / 2, px / 2 - 2
    if kind == "circle":
        draw.ellipse((1, 1, px - 2, px - 2), fill=white)
    elif kind == "heart":
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
            end = (c + r * math.cos(a), c + r * math.sin(a))
            draw.line([(c, c), end], fill=white, width=max(2, px // 12))
    else:  # leaf
        draw.ellipse((px * 0.15, 2, px * 0.85, px - 2), fill=white)
        draw.line([(c, px - 2), (c, 6)], fill=(0, 0, 0, 0), width=max(1, px // 20))
    return texture_from_pil(image)


class Messages:
    """Cycles ``messages`` in a label every ``interval`` seconds (``tick``); a message that scrolls
    (:class:`ScrollBox`) stays until it has been scrolled through once."""

    def __init__(self, label: Any, messages: list[str], interval: float):
        self.label, self.messages, self.interval, self.t, self.i = label, messages, interval, 0.0, 0
        label.text = messages[0] if messages else ""

    def tick(self, dt: float) -> None:
        if len(self.messages) < 2:
            return
        self.t += dt
        if self.t >= self.interval and (not getattr(self.label, "scrolls", False) or self.label.passes > 0):
            self.t = 0.0
            self.i = (self.i + 1) % len(self.messages)
            self.label.text = self.messages[self.i]


def celebration_style(context: RenderContext) -> tuple[RGBA, float, RGBA]:
    """The celebration line's colour, outline width and outline colour in ``context``'s theme: the
    theme's first accent made legible on its background (:func:`~svc_host.kit.display.colour.on_background`)
    with a thin halo of the theme's own ground (about 1.5 px at 1080 lines), so it reads over
    confetti without a heavy black outline, in a light theme as in a dark one."""
    from svc_host.kit.contrast import BLACK, composite
    from svc_host.kit.display.colour import on_background

    theme = context.theme
    ground = composite(theme.background[0], BLACK)
    thin = max(1.0, round(context.font(150) / 100))  # 1.5 px at 1080 lines (font() never goes below 6)
    return on_background(context, theme.accents[0]), thin, \
        (ground[0], ground[1], ground[2], 0.85)


def message_label(context: RenderContext, color: RGBA | None = None, size: float | None = None) -> Label:
    """A large caption in the celebration band (:data:`hookspecs.render.BAND` high at the
    bottom of a full-screen overlay) by the text rule: whole, on one line or two (wrapped at words),
    as large as the band holds down to the body's minimum, and when even that does not fit, on one
    line scrolling through the band (:class:`ScrollBox`); never shortened (a long name in a
    birthday message was cut in its middle, ``Happy birthday,... of us at Aurora``). In the theme's
    :func:`celebration_style` (``color`` instead of its colour when given); the overlays layer puts
    it in the band inside the slides' title inset (:func:`svc_host.kit.display.layout.arrange`). Its
    size is the theme's ``headline`` step (or ``size`` px at 1080 lines), capped by the band."""
    themed, outline, halo = celebration_style(context)
    font = min(context.type_px("headline") if size is None else context.font(size), context.size[1] * BAND * 0.62)
    caption = ScrollBox(minimum=min(font, minimum_px(context, "body")), max_lines=2, text="", font_size=font,
                        color=color or themed, bold=True, halign="center", valign="middle", size_hint=(0.96, BAND),
                        pos_hint={"center_x": 0.5, "y": 0}, outline_width=outline, outline_color=halo)
    caption.role = ROLE_CELEBRATION
    return caption


def with_messages(context: RenderContext, layer: Slide, color: RGBA | None = None, size: float | None = None,
                  messages: list[str] | None = None, interval: float | None = None) -> Slide:
    """Adds the ``messages`` caption (or ``messages`` given), cycled every ``message_interval_sec``
    (or ``interval``), when there are any; in the theme's celebration style unless ``color`` is given."""
    messages = config_strings(context, "messages") if messages is None else messages
    if messages:
        caption = message_label(context, color, size)
        layer.add_widget(caption)
        layer.celebration = caption  # the overlays layer keeps the celebration band free of the slide
        every = config_number(context, "message_interval_sec", 6, 1, 3600) if interval is None else interval
        layer.animate(Messages(caption, messages, every))
        layer.animate(caption)  # scrolls a message too long for two lines at its minimum
    return layer


class Rain:
    """Shapes falling from the top (or rising, ``direction`` 1), wrapping around, swaying a little."""

    def __init__(self, shapes: Shapes, width: float, height: float, direction: float = -1.0,
                 sway: float = 20.0):
        self.shapes, self.width, self.height, self.direction, self.sway, self.t = \
            shapes, width, height, direction, sway, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        w, h = self.width, self.height
        for item in self.shapes.items:
            item["y"] += item["vy"] * dt
            item["x"] += item["vx"] * dt + math.sin(self.t * 2 + item["spin"]) * self.sway * dt
            if self.direction < 0 and item["y"] < -item["h"] * 2:
                item["y"] = h + random.random() * h * 0.1
                item["x"] = random.random() * w
            elif self.direction > 0 and item["y"] > h + item["h"]:
                item["y"] = -item["h"] - random.random() * h * 0.1
                item["x"] = random.random() * w
            if item["x"] < -item["w"] * 2:
                item["x"] = w
            elif item["x"] > w + item["w"]:
                item["x"] = -item["w"]
            self.shapes.place(item)


def rain_layer(context: RenderContext, count: int, colors: list, kinds: list[str], size_px: float,
               speed: float, direction: float = -1.0, drift: float = 0.0) -> Slide:
    """An overlay layer of ``count`` pieces falling (``direction`` -1) or rising (1) at ``speed``
    (tenths of the screen height per second); ``kinds``: ``rect``, ``circle`` or a
    :func:`glyph_texture` shape name; ``size_px`` at 1080 px height."""
    width, height = context.size
    layer = Slide()
    layer.opacity = opacity(context)
    shapes = Shapes(size_hint=(None, None), size=(width, height), pos=(0, 0))
    scale = height / 1080.0
    textures = {k: glyph_texture(k) for k in kinds if k not in ("rect", "circle")}
    for _ in range(count):
        kind = random.choice(kinds)
        s = size_px * scale * random.uniform(0.6, 1.4)
        vy = direction * height * speed / 10.0 * random.uniform(0.7, 1.3)
        shapes.add_shape(kind, random.choice(colors), random.random() * width, random.random() * height,
                         s, s * (1.0 if kind != "rect" else random.uniform(0.4, 1.0)),
                         drift * scale * random.uniform(0.5, 1.5), vy, random.random() * 6.28,
                         textures.get(kind))
    layer.add_widget(shapes)
    layer.animate(Rain(shapes, width, height, direction))
    return layer
