"""Renderers of the builtin overlay types. Interface: :mod:`.base`.

Overlays are transparent layers over the slides (never over the ticker). Config keys:
exactly those of ``builtin_plugins/overlays/types.py`` (snake_case, spec 2.3). Shared
meanings: ``colors`` (hex strings), ``opacity`` (0-1, default 1), ``density`` (0.1-5, a
multiplier of each type's default piece count), ``fall_speed``/``rise_speed``/``speed``
(0.1-5, multipliers of the default speed), ``size``/``scale``/``font_scale`` (multipliers;
``size`` of a panel is its height as a fraction of the screen), ``messages`` with
``message_interval_sec`` (cycled in a large label), ``position`` (a corner or ``center``).
"""
from __future__ import annotations

import math
import random
from typing import Any

from builtin_plugins.display_renderers.base import (
    RenderContext,
    config_flag,
    config_number,
    config_strings,
    config_text,
    renderer,
)
from builtin_plugins.display_renderers.theme import parse_color, parse_colors
from builtin_plugins.display_renderers.web_snapshot import PeriodicSnapshot, shown_url
from builtin_plugins.display_renderers.web_snapshot import log as web_log

CONFETTI = [(1, 0.3, 0.4, 1), (1, 0.8, 0.2, 1), (0.3, 0.8, 1, 1), (0.5, 1, 0.4, 1), (0.8, 0.4, 1, 1)]
POSITIONS = {
    "top_right": {"right": 0.98, "top": 0.97}, "top_left": {"x": 0.02, "top": 0.97},
    "bottom_right": {"right": 0.98, "y": 0.03}, "bottom_left": {"x": 0.02, "y": 0.03},
    "center": {"center_x": 0.5, "center_y": 0.5},
}


def _w():
    from builtin_plugins.display_renderers import widgets

    return widgets


def _pos(context: RenderContext, default: str = "top_right") -> dict:
    return dict(POSITIONS.get(config_text(context, "position", default), POSITIONS[default]))


def _opacity(context: RenderContext) -> float:
    return config_number(context, "opacity", 1.0, 0.05, 1.0)


def _colors(context: RenderContext, default: list) -> list:
    return parse_colors(context.config.get("colors"), default)


def _count(context: RenderContext, base: float) -> int:
    """``base`` pieces times the ``density`` multiplier (0.1-5, default 1)."""
    return max(1, round(base * config_number(context, "density", 1.0, 0.1, 5)))


def _speed(context: RenderContext, key: str, base: float) -> float:
    """``base`` times the speed multiplier ``key`` (0.1-5, default 1)."""
    return base * config_number(context, key, 1.0, 0.1, 5)


def _with_messages(context: RenderContext, layer: Any, color: Any, size: float = 110) -> Any:
    """Adds the ``messages`` label (cycled every ``message_interval_sec``) when there are any."""
    messages = config_strings(context, "messages")
    if messages:
        label = _message_label(context, color, size)
        layer.add_widget(label)
        layer.animate(_Messages(label, messages, config_number(context, "message_interval_sec", 6, 1, 3600)))
    return layer


class _Messages:
    """Cycles ``messages`` in a label every ``message_interval_sec``."""

    def __init__(self, label: Any, messages: list[str], interval: float):
        self.label, self.messages, self.interval, self.t, self.i = label, messages, interval, 0.0, 0
        label.text = messages[0] if messages else ""

    def tick(self, dt: float) -> None:
        if len(self.messages) < 2:
            return
        self.t += dt
        if self.t >= self.interval:
            self.t = 0.0
            self.i = (self.i + 1) % len(self.messages)
            self.label.text = self.messages[self.i]


class _Rain:
    """Shapes falling from the top, wrapping around, with a little sideways sway."""

    def __init__(self, shapes: Any, width: float, height: float, direction: float = -1.0, sway: float = 20.0):
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


def _rain_layer(context: RenderContext, count: int, colors: list, kinds: list[str], size_px: float,
                speed: float, direction: float = -1.0, drift: float = 0.0) -> Any:
    """``kinds``: ``rect``, ``circle`` or a :func:`widgets.glyph_texture` shape name."""
    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = _opacity(context)
    shapes = w.Shapes(size_hint=(None, None), size=(width, height), pos=(0, 0))
    scale = height / 1080.0
    textures = {k: w.glyph_texture(k) for k in kinds if k not in ("rect", "circle")}
    for _ in range(count):
        kind = random.choice(kinds)
        s = size_px * scale * random.uniform(0.6, 1.4)
        vy = direction * height * speed / 10.0 * random.uniform(0.7, 1.3)
        shapes.add_shape(kind, random.choice(colors), random.random() * width, random.random() * height,
                         s, s * (1.0 if kind != "rect" else random.uniform(0.4, 1.0)),
                         drift * scale * random.uniform(0.5, 1.5), vy, random.random() * 6.28, textures.get(kind))
    layer.add_widget(shapes)
    layer.animate(_Rain(shapes, width, height, direction))
    return layer


SHAPE_KINDS = {"square": "rect", "circle": "circle", "heart": "heart", "star": "star", "snowflake": "snowflake",
               "leaf": "leaf", "rect": "rect", "mix": "mix"}


def _kinds(context: RenderContext, default: str) -> list[str]:
    shapes = [SHAPE_KINDS[s] for s in config_strings(context, "shapes") if s in SHAPE_KINDS] or [default]
    kinds = set()
    for shape in shapes:
        kinds.update(["rect", "circle"] if shape == "mix" else [shape])
    return sorted(kinds)


def shape_rain(context: RenderContext) -> Any:
    colors = _colors(context, CONFETTI)
    layer = _rain_layer(context, _count(context, 120), colors, _kinds(context, "heart"),
                        26 * config_number(context, "size", 1.0, 0.25, 4), _speed(context, "fall_speed", 2.0))
    return _with_messages(context, layer, colors[0])


def _message_label(context: RenderContext, color: Any, size: float = 110) -> Any:
    w = _w()
    return w.label("", context.font(size), color, bold=True, halign="center", size_hint=(0.9, 0.3),
                   pos_hint={"center_x": 0.5, "center_y": 0.55}, outline_width=max(1, int(context.font(4))),
                   outline_color=(0, 0, 0, 1))


def birthday_confetti(context: RenderContext) -> Any:
    colors = _colors(context, CONFETTI)
    layer = _rain_layer(context, _count(context, 200), colors, _kinds(context, "mix"), 18,
                        _speed(context, "fall_speed", 2.5))
    return _with_messages(context, layer, colors[0])


class _Bounce:
    def __init__(self, label: Any, width: float, height: float, speed: float):
        self.label, self.width, self.height = label, width, height
        self.vx, self.vy = speed, speed * 0.7

    def tick(self, dt: float) -> None:
        label = self.label
        label.texture_update()
        tw, th = label.texture_size
        x, y = label.x + self.vx * dt, label.y + self.vy * dt
        if x < 0 or x + tw > self.width:
            self.vx = -self.vx
            x = min(max(0, x), max(0, self.width - tw))
        if y < 0 or y + th > self.height:
            self.vy = -self.vy
            y = min(max(0, y), max(0, self.height - th))
        label.size = (tw, th)
        label.pos = (x, y)


def bouncing_message(context: RenderContext) -> Any:
    from kivy.uix.label import Label

    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = _opacity(context)
    messages = config_strings(context, "messages") or ["Hello!"]
    color = parse_color(config_text(context, "color"), context.theme.accents[0])
    font = context.font(90) * config_number(context, "font_scale", 1.0, 0.25, 4)
    label = Label(text=messages[0], font_size=font, color=color, bold=True, size_hint=(None, None),
                  pos=(width * 0.2, height * 0.5), outline_width=max(1, int(context.font(3))),
                  outline_color=(0, 0, 0, 1))
    layer.add_widget(label)
    layer.animate(_Bounce(label, width, height, _speed(context, "speed", 0.15) * height))
    layer.animate(_Messages(label, messages, config_number(context, "message_interval_sec", 8, 1, 3600)))
    return layer


def _prepare_images(context: RenderContext) -> Any:
    """falling_images: the ``image_blob_keys`` blobs; photo_slideshow: catalog photos of ``category``."""
    keys = config_strings(context, "image_blob_keys")
    if not keys and context.type_id == "photo_slideshow" and hasattr(context.host.db, "Photo"):
        category = config_text(context, "category")
        query = context.host.db.Photo.select(lambda p: not p.suppressed)
        if category:
            query = query.filter(lambda p: p.category_id == category)
        keys = [p.media_blob_key for p in query.limit(8)]
    images = [data for data in (context.blob_bytes(k) for k in keys[:8]) if data]
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
    layer.opacity = _opacity(context)
    textures = [t for t in (w.texture_from_bytes(d) for d in context.data["images"]) if t is not None]
    if not textures:
        raise ValueError("no decodable image")
    rects = []
    side = height * 0.14 * config_number(context, "size", 1.0, 0.25, 4)
    with layer.canvas:
        Color(1, 1, 1, 1)
        for i in range(_count(context, 14)):
            texture = textures[i % len(textures)]
            ratio = texture.width / max(1, texture.height)
            rects.append(Rectangle(texture=texture, size=(side * ratio, side),
                                   pos=(random.random() * width, random.random() * height)))
    layer.animate(_Sprites(rects, width, height, height * _speed(context, "fall_speed", 1.5) / 10))
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
    layer.opacity = _opacity(context)
    color = parse_color(config_text(context, "color"), (0.1, 1.0, 0.3, 1))
    columns = _count(context, 28)
    labels = []
    font = context.font(30)
    characters = config_text(context, "characters") or "01$#@%&*+="
    for i in range(columns):
        text = "\n".join(random.choice(characters) for _ in range(14))
        label = Label(text=text, font_size=font, color=color, size_hint=(None, None), halign="center")
        label.texture_update()
        label.size = label.texture_size
        label.pos = (i * width / columns, random.random() * height)
        labels.append(label)
        layer.add_widget(label)
    layer.animate(_Columns(labels, height, height * _speed(context, "speed", 3) / 10, characters))
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
    colors = []
    with layer.canvas:
        for i in range(steps):
            inset = band * i / steps
            alpha = (1 - i / steps) * 0.9
            color = Color(rgba[0], rgba[1], rgba[2], alpha)
            colors.append((color, alpha))
            thick = band / steps
            Rectangle(pos=(inset, inset), size=(width - 2 * inset, thick))
            Rectangle(pos=(inset, height - inset - thick), size=(width - 2 * inset, thick))
            Rectangle(pos=(inset, inset), size=(thick, height - 2 * inset))
            Rectangle(pos=(width - inset - thick, inset), size=(thick, height - 2 * inset))
    layer.animate(_Pulse(colors, config_number(context, "pulse_seconds", 2, 0.2, 30), _opacity(context)))
    return _with_messages(context, layer, rgba)


def floating_balloons(context: RenderContext) -> Any:
    colors = _colors(context, CONFETTI)
    layer = _rain_layer(context, _count(context, 18), colors, ["circle"], 90, _speed(context, "rise_speed", 1.2),
                        direction=1.0)
    return _with_messages(context, layer, colors[0])


def cloud_drift(context: RenderContext) -> Any:
    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = _opacity(context) * 0.85
    tint = parse_color(config_text(context, "tint"), (1, 1, 1, 1))
    colors = [(tint[0], tint[1], tint[2], 0.8)]
    shapes = w.Shapes(size_hint=(None, None), size=(width, height), pos=(0, 0))
    scale = height / 1080
    speed = _speed(context, "speed", 1.0) * 40 * scale
    for i in range(_count(context, 6)):
        cx, cy = random.random() * width, height * random.uniform(0.55, 0.92)
        color = colors[i % len(colors)]
        for j in range(4):  # a cloud is a few overlapping puffs moving together
            r = random.uniform(60, 120) * scale
            shapes.add_shape("circle", color, cx + j * 70 * scale, cy + random.uniform(-25, 25) * scale,
                             r * 2, r * 1.3, speed, 0.0, 0.0)
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


def _prepare_static(context: RenderContext) -> Any:
    data = context.blob_bytes(config_text(context, "image_blob_key"))
    return {"image": data} if data else None


@renderer(prepare=_prepare_static)
def static_image(context: RenderContext) -> Any:
    w = _w()
    texture = w.texture_from_bytes(context.data["image"])
    if texture is None:
        raise ValueError("static_image blob is not a decodable image")
    layer = w.Slide()
    layer.opacity = _opacity(context)
    layer.add_widget(w.ImageFill(texture, mode=config_text(context, "fit", "contain"), size_hint=(1, 1),
                                 pos_hint={"x": 0, "y": 0}))
    return layer


def _panel_hint(size_hint: tuple[float, float], scale: float = 1.0) -> tuple[float, float]:
    """``size_hint`` times ``scale``, shrunk (keeping its shape) to fit the screen with a margin."""
    factor = min(scale, 0.96 / size_hint[0], 0.94 / size_hint[1])
    return size_hint[0] * factor, size_hint[1] * factor


def _boxed_layer(context: RenderContext, size_hint: tuple[float, float], pos_hint: dict,
                 backdrop: bool = True) -> tuple:
    """An overlay layer (``opacity``) holding one box, with a translucent theme backdrop
    unless ``backdrop`` is false. Returns ``(layer, box)``."""
    w = _w()
    layer = w.Slide()
    layer.opacity = _opacity(context)
    box = w.Slide(size_hint=size_hint, pos_hint=pos_hint)
    if backdrop:
        _add_backdrop(context, box)
    layer.add_widget(box)
    return layer, box


def _add_backdrop(context: RenderContext, box: Any) -> None:
    bg = context.theme.primary_bg
    box.add_widget(_w().Backdrop([(bg[0], bg[1], bg[2], 0.85)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))


def _panel(context: RenderContext, size_hint: tuple[float, float], default_pos: str = "top_right",
           scale: float = 1.0) -> tuple:
    """A translucent box in the configured corner, ``size_hint`` times ``scale`` (capped at the screen)."""
    return _boxed_layer(context, _panel_hint(size_hint, scale), _pos(context, default_pos))


class _DigitalTime:
    def __init__(self, context: RenderContext, label: Any):
        self.context, self.label, self.shown = context, label, None
        self.tick(0)

    def tick(self, _dt: float) -> None:
        context = self.context
        now = context.now(config_text(context, "time_zone") or None)
        text = context.format_preset(now, config_text(context, "time_format_preset") or None)
        if config_flag(context, "show_date", False):
            text += "\n" + context.format_date(now, config_text(context, "date_order") or None)
        if text != self.shown:
            self.shown = self.label.text = text


def digital_clock(context: RenderContext) -> Any:
    w = _w()
    scale = config_number(context, "scale", 1.0, 0.25, 4)
    show_date = config_flag(context, "show_date", False)
    layer, box = _panel(context, (0.22, 0.2 if show_date else 0.13), scale=scale)
    label = w.label("", context.font(80 if not show_date else 64) * min(scale, 4), context.theme.text, bold=True,
                    halign="center", size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    box.add_widget(label)
    layer.animate(_DigitalTime(context, label))
    return layer


def analog_clock(context: RenderContext) -> Any:
    w = _w()
    width, height = context.size
    layer = w.Slide()
    layer.opacity = _opacity(context)
    radius = height * config_number(context, "size", 0.32, 0.05, 1) / 2
    anchor = _pos(context)
    cx = width * anchor.get("right", anchor.get("x", anchor.get("center_x", 0.5)))
    cx += -radius * 1.1 if "right" in anchor else (radius * 1.1 if "x" in anchor else 0)
    cy = height * anchor.get("top", anchor.get("y", anchor.get("center_y", 0.5)))
    cy += -radius * 1.1 if "top" in anchor else (radius * 1.1 if "y" in anchor else 0)
    layer.animate(w.analog_face(layer, context, (cx, cy), radius, context.theme.text,
                                config_text(context, "time_zone") or None, config_flag(context, "show_seconds", True)))
    return layer


def _prepare_month(context: RenderContext) -> Any:
    from builtin_plugins.display_renderers import screens

    return screens._prepare_month(context, "category_ids")


@renderer(prepare=_prepare_month)
def calendar_month(context: RenderContext) -> Any:
    from builtin_plugins.display_renderers.screens import month_grid

    scale = config_number(context, "scale", 1.0, 0.25, 4)
    layer, box = _panel(context, (0.3, 0.42), scale=scale)
    grid = month_grid(context, context.data, 30 * min(scale, 2.2), config_text(context, "week_starts_on", "monday"))
    grid.size_hint = (0.94, 0.94)
    grid.pos_hint = {"center_x": 0.5, "center_y": 0.5}
    box.add_widget(grid)
    return layer


def _prepare_upcoming(context: RenderContext) -> Any:
    from builtin_plugins.display_renderers import screens

    return screens._prepare_agenda(context, ("days_ahead", "max_events", "category_ids", "show_location"))


@renderer(prepare=_prepare_upcoming)
def calendar_upcoming(context: RenderContext) -> Any:
    from builtin_plugins.display_renderers.screens import _event_line

    w = _w()
    layer, box = _panel(context, (0.4, 0.4))
    text = "\n".join(_event_line(context, e) for e in context.data)
    box.add_widget(w.label(text, context.font(30), context.theme.text, valign="top", size_hint=(0.92, 0.9),
                           pos_hint={"center_x": 0.5, "center_y": 0.5}))
    return layer


def _prepare_quote(context: RenderContext) -> Any:
    symbol = config_text(context, "symbol")
    if not symbol:
        return None
    rows = [r for r in context.host.db.StockQuote.select()
            if r.symbol.upper() == symbol.upper() or r.symbol_id == symbol]
    if not rows:
        return None
    r = rows[0]
    return {"symbol": r.symbol, "name": r.display_name, "price": r.price, "change": r.change or 0.0,
            "currency": r.currency}


@renderer(prepare=_prepare_quote)
def stock_quote(context: RenderContext) -> Any:
    w = _w()
    q = context.data
    layer, box = _panel(context, (0.26, 0.16))
    show_change = config_flag(context, "show_change", True)
    color = context.theme.text if not show_change else (0.2, 0.8, 0.4, 1) if q["change"] >= 0 else (0.9, 0.25, 0.25, 1)
    change = f"\n{q['change']:+.2f}" if show_change else ""
    box.add_widget(w.label(f"{q['symbol']}  {q['price']:.2f} {q['currency']}{change}",
                           context.font(46), color, bold=True, halign="center", size_hint=(1, 1),
                           pos_hint={"x": 0, "y": 0}))
    return layer


def _prepare_slideshow(context: RenderContext) -> Any:
    return _prepare_images(context)


class _Slideshow:
    def __init__(self, image: Any, textures: list, interval: float):
        self.image, self.textures, self.interval, self.t, self.i = image, textures, interval, 0.0, 0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.interval and len(self.textures) > 1:
            self.t = 0.0
            self.i = (self.i + 1) % len(self.textures)
            self.image.texture = self.textures[self.i]
            self.image._rect.texture = self.textures[self.i]
            self.image._sync()


@renderer(prepare=_prepare_slideshow)
def photo_slideshow(context: RenderContext) -> Any:
    w = _w()
    textures = [t for t in (w.texture_from_bytes(d) for d in context.data["images"]) if t is not None]
    if not textures:
        raise ValueError("no decodable image")
    size = config_number(context, "size", 0.34, 0.05, 1)
    layer, box = _panel(context, (size * 0.88, size), "bottom_right")
    image = w.ImageFill(textures[0], mode="cover", size_hint=(0.96, 0.94), pos_hint={"center_x": 0.5,
                                                                                    "center_y": 0.5})
    box.add_widget(image)
    layer.animate(_Slideshow(image, textures, config_number(context, "interval_sec", 6, 1, 3600)))
    return layer


def qr_code(context: RenderContext) -> Any:
    """``payload`` as a QR code of height ``size`` (default 0.28) in ``position``, with ``caption``."""
    from builtin_plugins.display_renderers.screens import qr_texture

    w = _w()
    payload = config_text(context, "payload")
    if not payload:
        raise ValueError("qr_code overlay needs config_json.payload")
    width, height = context.size
    size = config_number(context, "size", 0.28, 0.05, 0.5)
    caption = config_text(context, "caption")
    box_h = size + (0.06 if caption else 0.0)
    box_w = size * 1.07 * height / max(1, width)
    layer = w.Slide()
    layer.opacity = _opacity(context)
    box = w.Slide(size_hint=(box_w, box_h), pos_hint=_pos(context, "bottom_right"))
    box.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    box.add_widget(w.ImageFill(qr_texture(payload), size_hint=(0.94, size * 0.94 / box_h),
                               pos_hint={"center_x": 0.5, "top": 0.97}))
    if caption:
        box.add_widget(w.label(caption, context.font(26), (0, 0, 0, 1), halign="center",
                               size_hint=(0.96, 0.055 / box_h), pos_hint={"center_x": 0.5, "y": 0.005 / box_h}))
    layer.add_widget(box)
    return layer


def plugin_template(context: RenderContext) -> Any:
    """A celebration layer: confetti in the theme accents with the template ``data`` title
    (see :func:`screens.template_lines`) and ``messages`` cycled over it."""
    from builtin_plugins.display_renderers.screens import template_lines

    colors = list(context.theme.accents)
    layer = _rain_layer(context, 80, colors, ["rect", "circle"], 20, 2.0)
    title, _lines = template_lines(context.config.get("data"))
    messages = ([title] if title else []) + config_strings(context, "messages")
    if messages:
        label = _message_label(context, colors[0], 90)
        layer.add_widget(label)
        layer.animate(_Messages(label, messages, 6))
    return layer


def _web_box(context: RenderContext) -> tuple[tuple[float, float], dict]:
    """``plugin_web``'s box: the whole screen for ``position: fullscreen``, else a panel of
    height ``size`` (default 0.2) with the screen's aspect ratio in ``position``."""
    if config_text(context, "position") == "fullscreen":
        return (1.0, 1.0), {"x": 0, "y": 0}
    size = config_number(context, "size", 0.2, 0.05, 1)
    return _panel_hint((size, size)), _pos(context)


def _web_pixels(context: RenderContext) -> tuple[int, int]:
    """The box in pixels: the size of the page's snapshot."""
    (sw, sh), _ = _web_box(context)
    width, height = context.size
    return max(1, round(width * sw)), max(1, round(height * sh))


def _prepare_web(context: RenderContext) -> Any:
    url = config_text(context, "url")
    if not url:
        raise ValueError("plugin_web needs config_json.url")
    return {"url": url}


class _WebView:
    """The page's snapshot filling the box, or (until a snapshot comes) a panel naming the
    plugin and the page. Snapshots come from a
    :class:`~builtin_plugins.display_renderers.web_snapshot.PeriodicSnapshot` on its own
    thread: the first at once, then every ``refresh_seconds`` (0 = only the first), so a
    slow page never holds up the display's loader thread."""

    def __init__(self, context: RenderContext, box: Any, url: str):
        self.box, self.url, self.image = box, url, None
        _add_backdrop(context, box)
        box.add_widget(_w().label(f"{config_text(context, 'plugin_id')}\n{url}", context.font(32),
                                  context.theme.text, halign="center", size_hint=(0.94, 0.9),
                                  pos_hint={"center_x": 0.5, "center_y": 0.5}))
        period = config_number(context, "refresh_seconds", 0, 0, 86400)
        self.refresh = PeriodicSnapshot(url, _web_pixels(context), period if period > 0 else None,
                                        immediately=True)

    def show(self, data: bytes) -> bool:
        """Put the snapshot ``data`` on screen (UI thread); whether it decoded."""
        w = _w()
        texture = w.texture_from_bytes(data)
        if texture is None:
            web_log.warning("web snapshot of %s failed: the PNG did not decode", shown_url(self.url))
            return False
        if self.image is None:
            self.box.clear_widgets()  # the naming panel: the page covers the box
            self.image = w.ImageFill(texture, size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
            self.box.add_widget(self.image)
        else:
            self.image.set_texture(texture)
        return True

    def tick(self, dt: float) -> None:
        data = self.refresh.tick(dt)
        if data is not None:
            self.show(data)

    def dispose(self) -> None:
        self.refresh.dispose()


@renderer(prepare=_prepare_web)
def plugin_web(context: RenderContext) -> Any:
    """The page at ``url`` as a snapshot taken by a headless browser (see
    :mod:`.web_snapshot`), view-only, in the box of :func:`_web_box`; re-taken every
    ``refresh_seconds`` (0 = never; never more often than every
    :data:`~.web_snapshot.MIN_REFRESH_SECONDS`). Without a browser, or while the
    page cannot be captured, a panel names the plugin and the page."""
    size_hint, pos_hint = _web_box(context)
    layer, box = _boxed_layer(context, size_hint, pos_hint, backdrop=False)
    view = _WebView(context, box, context.data["url"])
    layer.animate(view)
    layer.on_dispose(view.dispose)
    return layer


RENDERERS = {
    "shape_rain": shape_rain,
    "birthday_confetti": birthday_confetti,
    "bouncing_message": bouncing_message,
    "falling_images": falling_images,
    "matrix_rain": matrix_rain,
    "edge_glow": edge_glow,
    "floating_balloons": floating_balloons,
    "cloud_drift": cloud_drift,
    "static_image": static_image,
    "digital_clock": digital_clock,
    "analog_clock": analog_clock,
    "calendar_month": calendar_month,
    "calendar_upcoming": calendar_upcoming,
    "stock_quote": stock_quote,
    "photo_slideshow": photo_slideshow,
    "qr_code": qr_code,
    "plugin_template": plugin_template,
    "plugin_web": plugin_web,
}
