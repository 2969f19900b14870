"""Decoration behind content: decoration (confetti, rain, frames: ``Layer.decoration``) never
draws where a viewer reads.

Before a frame is drawn after a content change (and on the two frames after it: a nested layout
settles a frame late) the compositor measures every **content box** of every mounted layer
(:func:`content_boxes`) and masks each decoration widget with a stencil (:class:`DecorationMask`)
of its area less those boxes (:func:`uncovered`). docs/display.md, "Composition: the rule"."""
from __future__ import annotations

import math
from typing import Any, Iterable

from hookspecs.render import Rect

CONTENT_WIDGETS = ("Label", "Image", "ImageFill", "Drawing")
"""The widget classes (by name, any subclass) whose box is content decoration never draws in."""


def content_boxes(root: Any) -> list[Rect]:
    """The window rectangles of ``root``'s content: labels with text, images (a QR code is one),
    drawings, widgets with a ``role`` (a slide's title, primary text, a celebration message) and
    widgets marked ``reserve`` (an overlay panel: the whole box). Invisible widgets are left out."""
    boxes: list[Rect] = []

    def visit(widget: Any) -> None:
        if widget.opacity <= 0 or widget.width <= 0 or widget.height <= 0 or getattr(widget, "moves", False):
            return  # a message that moves itself (the bouncing one) is over the decoration anyway
        kinds = {kind.__name__ for kind in type(widget).__mro__}
        reserved = getattr(widget, "reserve", False)
        if reserved or getattr(widget, "role", None) or (
                kinds.intersection(CONTENT_WIDGETS) and (getattr(widget, "text", None) != "" or "Label" not in kinds)):
            x, y = widget.to_window(widget.x, widget.y)
            boxes.append(Rect(float(x), float(y), float(widget.width), float(widget.height)))
            if reserved:
                return
        for child in widget.children:
            visit(child)

    for child in root.children:
        visit(child)
    return boxes


class DecorationMask:
    """A stencil around a decoration widget's drawing: nothing of it lands inside the boxes given
    (:meth:`update`). The stencil is Kivy's own (push, mask, use, unuse, mask again, pop), so a
    decoration that draws through a stencil itself (a wide translucent ``Line``) nests in it; its
    mask is the widget's area less the boxes, as rectangles that do not overlap (Kivy's rule)."""

    def __init__(self, widget: Any):
        from kivy.graphics import InstructionGroup, StencilPop, StencilPush, StencilUnUse, StencilUse

        self.widget = widget
        self.push, self.pop = InstructionGroup(), InstructionGroup()
        self.before_rects, self.after_rects = InstructionGroup(), InstructionGroup()
        self.push.add(StencilPush())
        self.push.add(self.before_rects)
        self.push.add(StencilUse())
        self.pop.add(StencilUnUse())
        self.pop.add(self.after_rects)
        self.pop.add(StencilPop())
        widget.canvas.before.add(self.push)
        widget.canvas.after.add(self.pop)
        self.drawn: list[tuple[float, float, float, float]] | None = None

    def update(self, boxes: list[Rect]) -> None:
        from kivy.graphics import Rectangle

        for piece in self.widget.walk(restrict=True):  # moving pieces keep off whole (kit.motion.Shapes)
            if hasattr(piece, "keep_off"):
                piece.keep_off(boxes)
        x, y = self.widget.to_window(self.widget.x, self.widget.y)
        area = Rect(float(x), float(y), float(self.widget.width), float(self.widget.height))
        rects = uncovered(area, boxes)
        if rects == self.drawn:
            return
        self.drawn = rects
        for group in (self.before_rects, self.after_rects):
            group.clear()
            for left, bottom, width, height in rects:
                group.add(Rectangle(pos=(left, bottom), size=(width, height)))


def uncovered(area: Rect, boxes: list[Rect]) -> list[tuple[float, float, float, float]]:
    """``area`` less ``boxes`` (each widened to whole pixels: a pixel a box touches is the content's)
    as rectangles ``(x, y, width, height)`` that do not overlap: vertical slabs between the boxes'
    edges, each less the boxes across it. Written here because Kivy's stencil only adds shapes."""
    whole = [(math.floor(b.x), math.floor(b.y), math.ceil(b.right), math.ceil(b.top)) for b in boxes]
    whole = [(max(area.x, x0), max(area.y, y0), min(area.right, x1), min(area.top, y1)) for x0, y0, x1, y1 in whole]
    whole = [b for b in whole if b[2] > b[0] and b[3] > b[1]]
    edges = sorted({area.x, area.right, *(b[0] for b in whole), *(b[2] for b in whole)})
    slabs: list[tuple[float, float, list[tuple[float, float]]]] = []  # (left, right, free y intervals)
    for left, right in zip(edges, edges[1:]):
        bottom, gaps = area.y, []
        for y0, y1 in sorted((b[1], b[3]) for b in whole if b[0] <= left and b[2] >= right):
            if y0 > bottom:
                gaps.append((bottom, y0))
            bottom = max(bottom, y1)
        if area.top > bottom:
            gaps.append((bottom, area.top))
        if slabs and slabs[-1][2] == gaps and slabs[-1][1] == left:  # the same gaps: one wider slab
            slabs[-1] = (slabs[-1][0], right, gaps)
        else:
            slabs.append((left, right, gaps))
    return [(left, y0, right - left, y1 - y0) for left, right, gaps in slabs for y0, y1 in gaps]


class DecorationMasks:
    """The stencil of each decorated layer (by layer id), made the first time it decorates."""

    def __init__(self) -> None:
        self.masks: dict[str, DecorationMask] = {}

    def update(self, entries: Iterable[Any]) -> None:
        """Mask the decoration of the live ``entries`` (``LayerEntry``) off every content box."""
        entries = list(entries)
        decorated = [entry for entry in entries if entry.decorated and entry.layer.decoration.children]
        if not decorated:  # nothing decorates: no boxes to measure (an empty decoration draws nothing)
            return
        boxes = boxes_of(entries)
        for entry in decorated:
            mask = self.masks.get(entry.spec.id)
            if mask is None:
                mask = self.masks[entry.spec.id] = DecorationMask(entry.layer.decoration)
            mask.update(boxes)


def boxes_of(entries: Iterable[Any]) -> list[Rect]:
    """The window rectangles decoration never draws in: every text, image, drawing, QR code and
    marked panel (``reserve``) of every mounted layer's widget (see :func:`content_boxes`)."""
    boxes: list[Rect] = []
    for entry in entries:
        if entry.mounted:
            boxes.extend(content_boxes(entry.layer.widget))
    return boxes
