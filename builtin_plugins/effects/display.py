"""The decorative overlays' drawing (Kivy-only, imported when a canvas starts): transparent
layers over the slides. Config keys: those of the types in ``builtin_plugins/effects/types.json``;
``colors``, ``opacity``, ``density``, the speed multipliers and ``messages`` follow the
overlay conventions of :mod:`svc_host.kit.display` (docs/display.md, "Builtin renderers")."""
from __future__ import annotations

import math
import random
from typing import Any

from hookspecs.render import ROLE_CELEBRATION, RGBA, TITLE_BOX, RenderContext, parse_color, renderer
from svc_host.kit.display import (
    blob_images,
    colors,
    config_number,
    config_strings,
    config_text,
    density,
    opacity,
    speed,
)
from svc_host.kit.display import widgets as _w
from svc_host.kit.display.layout import BAND

CONFETTI: list[RGBA] = [(1, 0.3, 0.4, 1), (1, 0.8, 0.2, 1), (0.3, 0.8, 1, 1), (0.5, 1, 0.4, 1),
                        (0.8, 0.4, 1, 1)]
"""The effects' default palette (``colors`` unset)."""

SHAPE_KINDS = {"square": "rect", "circle": "circle", "heart": "heart", "star": "star",
               "snowflake": "snowflake", "leaf": "leaf", "rect": "rect", "mix": "mix"}


def _kinds(context: RenderContext, default: str) -> list[str]:
    """The piece kinds of ``shapes`` (``mix``: rectangles and circles), ``default`` when none is known."""
    shapes = [SHAPE_KINDS[s] for s in config_strings(context, "shapes") if s in SHAPE_KINDS] or [default]
    kinds = set()
    for shape in shapes:
        kinds.update(["rect", "circle"] if shape == "mix" else [shape])
    return sorted(kinds)


def shape_rain(context: RenderContext) -> Any:
    w = _w()
    palette = colors(context, CONFETTI)
    layer = w.rain_layer(context, density(context, 120), palette, _kinds(context, "heart"),
                         26 * config_number(context, "size", 1.0, 0.25, 4), speed(context, "fall_speed", 2.0))
    return w.with_messages(context, layer)  # the theme's celebration style, not a confetti colour


def birthday_confetti(context: RenderContext) -> Any:
    w = _w()
    palette = colors(context, CONFETTI)
    layer = w.rain_layer(context, density(context, 200), palette, _kinds(context, "mix"), 18,
                         speed(context, "fall_speed", 2.5))
    return w.with_messages(context, layer)  # the theme's celebration style, not a confetti colour


def floating_balloons(context: RenderContext) -> Any:
    w = _w()
    palette = colors(context, CONFETTI)
    layer = w.rain_layer(context, density(context, 18), palette, ["circle"], 90,
                         speed(context, "rise_speed", 1.2), direction=1.0)
    return w.with_messages(context, layer)  # the theme's celebration style, not a confetti colour


class _Bounce:
    """Moves the message's text (not its box: the box is the band, the text its texture centred in
    it) around the band, bouncing off its edges; a message that scrolls stays in the band."""

    def __init__(self, label: Any, width: float, height: float, speed: float, inset: float = 0.0):
        self.label, self.width, self.height, self.inset = label, width, height, inset
        self.vx, self.vy = speed, speed * 0.7
        self.text_pos: tuple[float, float] | None = None  # where the text is, in the layer

    def tick(self, dt: float) -> None:
        label = self.label
        label.texture_update()
        bw, bh = label.size
        if label.scrolls:  # too long for the band on one line at its minimum: it scrolls there
            label.pos, self.text_pos = ((self.width - bw) / 2, 0), None
            return
        tw, th = label.texture_size
        low, high = self.inset, self.width - self.inset
        x, y = self.text_pos or ((self.width - tw) / 2, (self.height - th) / 2)
        x, y = x + self.vx * dt, y + self.vy * dt
        if x < low or x + tw > high:
            self.vx = -self.vx
            x = min(max(low, x), max(low, high - tw))
        if y < 0 or y + th > self.height:
            self.vy = -self.vy
            y = min(max(0, y), max(0, self.height - th))
        self.text_pos = (x, y)
        label.pos = (x - (bw - tw) / 2, y - (bh - th) / 2)  # its texture is drawn centred in its box


def bouncing_message(context: RenderContext) -> Any:
    """The phrase bounces inside the celebration band (``hookspecs.render.BAND`` at the bottom),
    never over the slide's text. It is one line by the text rule: at its size when that fits the
    band, else as large as fits down to the body's minimum; a phrase longer than the band at the
    minimum does not bounce but scrolls through the band (:class:`~svc_host.kit.display.scrolling.ScrollBox`),
    whole, never cut."""
    w = _w()
    width, height = context.size
    band = min(height, context.type_height or height) * BAND  # the layout's band (a portrait one too)
    layer = w.Slide()
    layer.opacity = opacity(context)
    messages = config_strings(context, "messages") or ["Hello!"]
    themed, outline, halo = w.celebration_style(context)
    color = parse_color(config_text(context, "color"), themed)
    font = min(context.type_px("title") * config_number(context, "font_scale", 1.0, 0.25, 4), band * 0.62)
    inset = width * TITLE_BOX[0]  # it bounces inside the slides' title inset, never at the screen's edge
    label = w.BounceBox(minimum=min(font, w.minimum_px(context, "body")), max_lines=1, text=messages[0],
                        font_size=font, color=color, bold=True, halign="center", valign="middle",
                        size_hint=(None, None), size=(width - 2 * inset, band), pos=(inset, 0),
                        outline_width=outline, outline_color=halo)
    label.role, label.moves = ROLE_CELEBRATION, True  # it bounces in the band, on its own course
    layer.add_widget(label)
    layer.celebration = label
    layer.animate(_Bounce(label, width, band, speed(context, "speed", 0.15) * height, inset))
    layer.animate(w.Messages(label, messages, config_number(context, "message_interval_sec", 8, 1, 3600)))
    layer.animate(label)
    return layer


def _prepare_images(context: RenderContext) -> Any:
    """The ``image_blob_keys`` blobs (at most 8)."""
    images = blob_images(context, config_strings(context, "image_blob_keys"))
    return {"images": images} if images else None


class _Sprites:
    def __init__(self, rects: list, width: float, height: float, speed: float):
        self.rects, self.width, self.height, self.speed, self.t = rects, width, height, speed, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        for i, rect in enumerate(self.rects):
            x, y = rect.pos
            y -= self.speed * dt * (0.7 + 0.1 * (i % 5))
            x += math.sin(self.t + i) * 15 * dt
            if y < -rect.size[1]:
                y = self.height + random.random() * self.height * 0.2
                x = random.random() * (self.width - rect.size[0])
            rect.pos = (x, y)


@renderer(prepare=_prepare_images)
def falling_images(context: RenderContext) -> Any:
    from kivy.graphics import Color, Rectangle

    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = opacity(context)
    textures = [t for t in (w.texture_from_bytes(d) for d in context.data["images"]) if t is not None]
    if not textures:
        raise ValueError("no decodable image")
    rects = []
    side = height * 0.14 * config_number(context, "size", 1.0, 0.25, 4)
    with layer.canvas:
        Color(1, 1, 1, 1)
        for i in range(density(context, 14)):
            texture = textures[i % len(textures)]
            ratio = texture.width / max(1, texture.height)
            rects.append(Rectangle(texture=texture, size=(side * ratio, side),
                                   pos=(random.random() * width, random.random() * height)))
    layer.animate(_Sprites(rects, width, height, height * speed(context, "fall_speed", 1.5) / 10))
    return layer


class _Columns:
    def __init__(self, labels: list, height: float, speed: float, characters: str):
        self.labels, self.height, self.speed, self.characters = labels, height, speed, characters

    def tick(self, dt: float) -> None:
        for i, label in enumerate(self.labels):
            label.y -= self.speed * dt * (0.6 + 0.15 * (i % 4))
            if label.top < 0:
                label.y = self.height
                label.text = "\n".join(random.choice(self.characters) for _ in range(14))


def matrix_rain(context: RenderContext) -> Any:
    from kivy.uix.label import Label

    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = opacity(context)
    color = parse_color(config_text(context, "color"), (0.1, 1.0, 0.3, 1))
    columns = density(context, 28)
    font = context.font(30)
    characters = config_text(context, "characters") or "01$#@%&*+="
    labels = []
    for i in range(columns):
        text = "\n".join(random.choice(characters) for _ in range(14))
        label = Label(text=text, font_size=font, color=color, size_hint=(None, None), halign="center")
        label.texture_update()
        label.size = label.texture_size
        label.pos = (i * width / columns, random.random() * height)
        labels.append(label)
        layer.add_widget(label)
    layer.animate(_Columns(labels, height, height * speed(context, "speed", 3) / 10, characters))
    return layer


class _Pulse:
    def __init__(self, colors: list, period: float, base_alpha: float):
        self.colors, self.period, self.base, self.t = colors, period, base_alpha, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        level = 0.35 + 0.65 * (0.5 + 0.5 * math.sin(self.t * 2 * math.pi / self.period))
        for color, alpha in self.colors:
            color.a = alpha * level * self.base


def edge_glow(context: RenderContext) -> Any:
    from kivy.graphics import Color, Rectangle

    w = _w()
    width, height = context.size
    layer = w.Slide()
    rgba = parse_color(config_text(context, "color"), (1.0, 0.1, 0.1, 1))
    band = config_number(context, "thickness", 0.06, 0.01, 0.5) * min(width, height)
    steps = 8
    fades = []
    with layer.canvas:
        for i in range(steps):
            inset = band * i / steps
            alpha = (1 - i / steps) * 0.9
            fades.append((Color(rgba[0], rgba[1], rgba[2], alpha), alpha))
            thick = band / steps
            Rectangle(pos=(inset, inset), size=(width - 2 * inset, thick))
            Rectangle(pos=(inset, height - inset - thick), size=(width - 2 * inset, thick))
            Rectangle(pos=(inset, inset), size=(thick, height - 2 * inset))
            Rectangle(pos=(width - inset - thick, inset), size=(thick, height - 2 * inset))
    layer.animate(_Pulse(fades, config_number(context, "pulse_seconds", 2, 0.2, 30), opacity(context)))
    return w.with_messages(context, layer)


def cloud_drift(context: RenderContext) -> Any:
    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = opacity(context) * 0.85
    tint = parse_color(config_text(context, "tint"), (1, 1, 1, 1))
    color = (tint[0], tint[1], tint[2], 0.8)
    shapes = w.Shapes(size_hint=(None, None), size=(width, height), pos=(0, 0))
    scale = height / 1080
    drift = speed(context, "speed", 1.0) * 40 * scale
    for _ in range(density(context, 6)):
        cx, cy = random.random() * width, height * random.uniform(0.55, 0.92)
        for j in range(4):  # a cloud is a few overlapping puffs moving together
            r = random.uniform(60, 120) * scale
            shapes.add_shape("circle", color, cx + j * 70 * scale, cy + random.uniform(-25, 25) * scale,
                             r * 2, r * 1.3, drift, 0.0, 0.0)
    layer.add_widget(shapes)

    class Drift:
        def tick(self, dt: float) -> None:
            for item in shapes.items:
                item["x"] += item["vx"] * dt
                if item["x"] > width + 50:
                    item["x"] = -item["w"] - 300 * scale
                shapes.place(item)

    layer.animate(Drift())
    return layer
