"""The clock types' drawing (Kivy-only, imported when a canvas starts): the clock slide and the
digital and analog clock overlays. Config keys: those of the types in
``builtin_plugins/clock/types.json``; times and dates through the context's formatters (the display
preferences unless the row names a preset, an order or a zone)."""
from __future__ import annotations

import datetime as dt
import math
from typing import Any, Callable

from svc_host.kit.contrast import PANEL_ALPHA
from hookspecs.render import RGBA, RenderContext
from svc_host.kit.display import config_flag, config_number, config_text, opacity, panel_fraction, position
from svc_host.kit.display import widgets as _w
from svc_host.kit.formatting import formats


PANEL_ROOM = 2.1
"""An analog_clock overlay's panel is this many face radii wide and high (the face and a little room)."""


def slide_face(width: float, height: float) -> tuple[float, float, float]:
    """The clock slide's face in a ``width`` x ``height`` box: centre (from the box's corner) at
    50 % of the width and 52 % of the height, radius 30 % of the height but at most 45 % of the
    width (a narrow column or a portrait screen)."""
    return width / 2, height * 0.52, min(height * 0.30, width * 0.45)  # clear of the title and date bands


def panel_face(width: float, height: float) -> tuple[float, float, float]:
    """The analog_clock overlay's face: the middle of its panel, :data:`PANEL_ROOM` radii across."""
    return width / 2, height / 2, min(width, height) / PANEL_ROOM


class AnalogFace:
    """An analog clock drawn in ``widget`` (a kit ``Drawing``; ``hints`` its ``size_hint`` and
    ``pos_hint``): ``geometry(width, height)`` (:func:`slide_face`, :func:`panel_face`) places it
    in the widget's box, again whenever the box moves or changes size; ``tick`` moves the hands."""

    def __init__(self, context: RenderContext, color: RGBA, zone: str | None, show_seconds: bool,
                 geometry: Callable[[float, float], tuple[float, float, float]], **hints: Any):
        self.context, self.color, self.zone, self.show_seconds = context, color, zone, show_seconds
        self.geometry = geometry
        self.center, self.radius, self.hands = (0.0, 0.0), 0.0, []
        self.widget = _w().Drawing(self.draw, **hints)

    def draw(self, box: Any) -> None:
        """The face in ``box`` (inside ``with box.canvas``)."""
        from kivy.graphics import Color, Ellipse, Line

        cx, cy, radius = self.geometry(box.width, box.height)
        cx, cy = box.x + cx, box.y + cy
        self.center, self.radius = (cx, cy), radius
        context, bg = self.context, self.context.theme.primary_bg
        Color(bg[0], bg[1], bg[2], PANEL_ALPHA)
        Ellipse(pos=(cx - radius, cy - radius), size=(radius * 2, radius * 2))
        Color(*self.color)
        Line(circle=(cx, cy, radius), width=max(1.5, radius * 0.03))
        for i in range(12):
            a = 2 * math.pi * i / 12
            Line(points=[cx + math.cos(a) * radius * 0.85, cy + math.sin(a) * radius * 0.85,
                         cx + math.cos(a) * radius * 0.95, cy + math.sin(a) * radius * 0.95], width=2)
        self.hands = [Line(points=[cx, cy, cx, cy], width=max(2, radius * 0.05)),
                      Line(points=[cx, cy, cx, cy], width=max(1.5, radius * 0.03))]
        if self.show_seconds:
            Color(*context.theme.accents[0])
            self.hands.append(Line(points=[cx, cy, cx, cy], width=max(1, radius * 0.015)))
        self.tick(0)

    def tick(self, _dt: float) -> None:
        now = formats(self.context).now(self.zone)
        seconds = now.second + now.microsecond / 1e6
        minutes = now.minute + seconds / 60
        hours = now.hour % 12 + minutes / 60
        cx, cy = self.center
        fractions = (hours / 12, minutes / 60, seconds / 60)
        for line, fraction, length in zip(self.hands, fractions, (0.5, 0.78, 0.88)):
            angle = math.pi / 2 - 2 * math.pi * fraction
            line.points = [cx, cy, cx + math.cos(angle) * self.radius * length,
                           cy + math.sin(angle) * self.radius * length]


TEXT_WIDTH = 0.92
"""The clock slide's time and date are one line each, in a box this share of the slide's width
(centred): at their nominal sizes when they fit (a full-screen 16:9 slide), else smaller (the kit's
``fit_label``), so a narrow free area or a portrait screen never wraps them onto each other."""


def time_samples(context: RenderContext) -> list[str]:
    """The clock slide's widest times in its format: every hour at 58:58 (one- and two-digit
    hours, AM and PM), what its time label is sized for."""
    preset = config_text(context, "timeFormatPreset") or None
    base = dt.datetime(2000, 1, 1, 0, 58, 58)
    return [formats(context).format_preset(base.replace(hour=hour), preset, seconds=True) for hour in range(24)]


def date_samples(context: RenderContext, year: int) -> list[str]:
    """The clock slide's long dates of a week of each month of ``year`` (every weekday and month
    name, two-digit days), what its date label is sized for."""
    order = config_text(context, "dateOrder") or None
    return [formats(context).long_date(dt.date(year, month, day), order)
            for month in range(1, 13) for day in range(22, 29)]


class _ClockFace:
    def __init__(self, context: RenderContext, time_label: Any, date_label: Any):
        self.context, self.time_label, self.date_label = context, time_label, date_label
        self.shown = ""
        self.tick(0)

    def tick(self, _dt: float) -> None:
        context = self.context
        zone = config_text(context, "timeZone") or None
        now = formats(context).now(zone)
        text = formats(context).format_preset(now, config_text(context, "timeFormatPreset") or None, seconds=True)
        if text != self.shown:
            self.shown = text
            if self.time_label is not None:
                self.time_label.text = text
            if self.date_label is not None:
                order = config_text(context, "dateOrder") or None
                self.date_label.text = formats(context).long_date(now.date(), order)


def clock(context: RenderContext) -> Any:
    """``style`` ``digital`` (default) or ``analog``; ``showDate`` (default true)."""
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    zone = config_text(context, "timeZone") or None
    show_date = config_flag(context, "showDate", True)
    analog = config_text(context, "style") == "analog"
    if analog:  # in the slide's own box (it follows the area the slide is laid out in), under the labels
        face = AnalogFace(context, fg, zone, True, slide_face, size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
        slide.add_widget(face.widget)
        slide.animate(face)
    date_label = None
    if show_date:
        samples = date_samples(context, formats(context).now(zone).year)
        date_label = w.fit_label("", context.font(72), context.theme.accents[0], samples=samples,
                                 size_hint=(TEXT_WIDTH, 0.12),
                                 pos_hint={"center_x": 0.5, "y": 0.04 if analog else 0.24})
        slide.add_widget(date_label)
        slide.animate(date_label)  # scrolls on its line when even its minimum does not fit
    title = config_text(context, "label")
    if title:
        heading = w.label(title, context.type_px("title"), fg, bold=True, halign="center", size_hint=(1, 0.12),
                          pos_hint={"x": 0, "top": 0.96})
        heading.role = "title"
        slide.add_widget(heading)
    time_label = None
    if not analog:
        time_label = w.fit_label("", context.font(260), fg, bold=True, samples=time_samples(context),
                                 size_hint=(TEXT_WIDTH, 0.4),
                                 pos_hint={"center_x": 0.5, "center_y": 0.55 if show_date else 0.5})
        time_label.role = "primary"
        slide.add_widget(time_label)
        slide.animate(time_label)
    slide.animate(_ClockFace(context, time_label, date_label))
    slide.says = "time"  # one voice per fact: the clock panel yields over it (docs/display.md)
    return slide


class _DigitalTime:
    """The digital_clock overlay's time (and date) labels, set each tick."""

    def __init__(self, context: RenderContext, time_label: Any, date_label: Any):
        self.context, self.time_label, self.date_label, self.shown = context, time_label, date_label, None
        self.tick(0)

    def tick(self, _dt: float) -> None:
        context = self.context
        now = formats(context).now(config_text(context, "time_zone") or None)
        text = formats(context).format_preset(now, config_text(context, "time_format_preset") or None)
        # the text rule: a date that does not fit its part of the panel even at its minimum (a small
        # scale, a panel its zone clamps) is not shown rather than drawn over its box
        date = formats(context).short_date(now.date(), config_text(context, "date_order") or None) \
            if self.date_label is not None and self.date_label.fits else ""
        if (text, date) != self.shown:
            self.shown = (text, date)
            self.time_label.text = text
            if self.date_label is not None:
                self.date_label.text = date


def digital_clock(context: RenderContext) -> Any:
    """The time (and the date under it, ``show_date``) in a panel sized from the screen's short side
    (as large on a portrait screen as on a landscape one, not a fifth of its width), each one line
    shrunk to its part of the panel (sized for the format's widest times), down to its minimum."""
    w = _w()
    show_date = config_flag(context, "show_date", False)
    # the screen's short side above the ticker, as the type scale's (an alert takes room, not size; an
    # overlay waiting for room under a full-screen alert is given none)
    short = min(max(1.0, context.size[0]), max(1.0, context.type_height or context.size[1])) / 1080.0
    split = 0.62 if show_date else 1.0
    # never below the text rule's minimum, whatever the scale (a quarter scale drew the date at 5 px), and
    # the panel never lower than its time's line at that minimum (a smaller scale stops there)
    time_min, date_min = w.minimum_px(context, "body"), w.minimum_px(context, "caption")
    height = (216 if show_date else 140) * short
    least = w.text_extent({"bold": True}, "0", time_min)[1] / (height * split * 0.9)
    scale = max(least, config_number(context, "scale", 1.0, 0.25, 4))
    layer, box = w.panel(context, panel_fraction(context, 422 * short, height), scale=scale)
    preset = config_text(context, "time_format_preset") or None
    base = dt.datetime(2000, 1, 1, 0, 58, 58)
    samples = [formats(context).format_preset(base.replace(hour=hour), preset) for hour in range(24)]
    time_label = w.fit_label("", max(time_min, context.font(80 if not show_date else 64) * min(scale, 4)),
                             context.theme.text, bold=True, samples=samples, minimum=time_min,
                             size_hint=(0.92, split * 0.9), pos_hint={"center_x": 0.5, "top": 1 - (1 - split * 0.9) / 2
                                                                      if not show_date else 0.97})
    box.add_widget(time_label)
    layer.animate(time_label)  # scrolls on its line when even its minimum does not fit (a narrow panel)
    date_label = None
    if show_date:
        date_samples = [formats(context).short_date(dt.date(2027, month, 28), config_text(context, "date_order") or None)
                        for month in range(1, 13)]
        date_label = w.fit_label("", max(date_min, context.font(40) * min(scale, 4)), context.theme.text,
                                 samples=date_samples, minimum=date_min, size_hint=(0.92, 0.3),
                                 pos_hint={"center_x": 0.5, "y": 0.05})
        box.add_widget(date_label)
    layer.animate(_DigitalTime(context, time_label, date_label))
    layer.says = "time"
    return layer


def analog_clock(context: RenderContext) -> Any:
    # a panel's hint is a fraction of the overlays layer's reference (on a portrait screen the
    # landscape content area turned), so the face keeps its landscape size there
    width, height = context.reference or context.size
    # the panel: ``size`` of the height across the face and a little room, in its zone (the overlays
    # layer places it); the face fills the panel it is given (clamped to the area, or the area changed)
    side = height * config_number(context, "size", 0.32, 0.05, 1) / 2 * PANEL_ROOM
    layer = _w().Slide(size_hint=(side / max(1, width), side / max(1, height)), pos_hint=position(context))
    layer.opacity = opacity(context)
    face = AnalogFace(context, context.theme.text, config_text(context, "time_zone") or None,
                      config_flag(context, "show_seconds", True), panel_face,
                      size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    layer.add_widget(face.widget)
    layer.animate(face)
    layer.says = "time"
    return layer
