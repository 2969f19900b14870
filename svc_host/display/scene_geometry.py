"""What a scene shows, read off the driven canvas (:mod:`svc_host.display.scenes`): the
:class:`Scene` record of ``scenes.json`` and the walk that fills it (UI thread): every label and
image with its owner (the slide, an overlay, the alerts), the overlay panels, the alert cards,
the decorations and the ticker band, in window pixels with a top-left origin; with the judge,
whether the decorations drew over a label or an image (:func:`mark_decorated`)."""
from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class Scene:
    type_id: str
    theme: str
    size: list
    alert: bool = False
    file: str = ""
    error: str = ""
    slide: list = dataclasses.field(default_factory=list)
    labels: list = dataclasses.field(default_factory=list)
    images: list = dataclasses.field(default_factory=list)
    panels: list = dataclasses.field(default_factory=list)
    cards: list = dataclasses.field(default_factory=list)
    decorations: list = dataclasses.field(default_factory=list)
    decoration_drawn: bool | None = None  # with judge: whether hiding the decorations changed the frame
    ticker: list = dataclasses.field(default_factory=list)


def window_box(widget: Any, height: float, x: float | None = None, y: float | None = None,
               w: float | None = None, h: float | None = None) -> list[int]:
    """A rectangle of ``widget`` (its own by default; or ``x, y, w, h`` in its coordinates) in
    window pixels, top-left origin."""
    x = widget.x if x is None else x
    y = widget.y if y is None else y
    w = widget.width if w is None else w
    h = widget.height if h is None else h
    wx, wy = widget.to_window(x, y)
    return [round(wx), round(height - wy - h), round(w), round(h)]


def _visible(widget: Any) -> float:
    """``widget``'s opacity times its parents'."""
    opacity, node = 1.0, widget
    while node is not None and node.parent is not node:
        opacity *= float(node.opacity)
        node = node.parent
    return opacity


def drawn_lines(label: Any) -> list[str]:
    """The lines Kivy's core label drew ``label``'s text with (after ``texture_update``)."""
    label.texture_update()
    core = getattr(label, "_label", None)
    cached = getattr(core, "_cached_lines", None) or []
    return ["".join(word.text for word in line.words) for line in cached]


def label_entry(label: Any, owner: str, height: float, opacity: float) -> dict:
    """A label showing text: owner, role, text, boxes, font, drawn lines."""
    lines = drawn_lines(label)
    tw, th = label.texture_size
    window = getattr(label, "window", None)  # the kit's ScrollBox: the part of its text drawn
    drawn = window() if callable(window) else (label.center_x - tw / 2, label.center_y - th / 2, tw, th)
    return {"owner": owner, "role": getattr(label, "role", "") or "", "text": label.text,
            "box": window_box(label, height),
            "text_box": window_box(label, height, *drawn), "scrolls": bool(getattr(label, "scrolls", False)),
            "font_px": round(float(label.font_size), 1), "bold": bool(label.bold),
            "lines": lines, "shorten": bool(label.shorten), "opacity": round(opacity, 3),
            "moves": bool(getattr(label, "moves", False))}


def image_entry(image: Any, owner: str, height: float) -> dict:
    """An image widget's drawn texture (``ImageFill``: photos, QR codes, video frames): where it
    is drawn (clipped to its widget), and whether it is a QR code (drawn with the ``nearest``
    filter, :func:`~svc_host.kit.display.pictures.qr_texture`)."""
    rx, ry = image._rect.pos  # noqa: SLF001  where the texture is drawn
    rw, rh = image._rect.size  # noqa: SLF001
    x0, y0 = max(rx, image.x), max(ry, image.y)
    x1, y1 = min(rx + rw, image.right), min(ry + rh, image.top)
    return {"owner": owner, "box": window_box(image, height, x0, y0, max(0, x1 - x0), max(0, y1 - y0)),
            "qr": image.texture.mag_filter == "nearest"}


def is_decoration(widget: Any) -> bool:
    """Effect pieces (:class:`~svc_host.kit.display.motion.Shapes`: confetti, rain, balloons,
    clouds) and widgets marked ``decoration``."""
    from svc_host.kit.display.motion import Shapes

    return isinstance(widget, Shapes) or bool(getattr(widget, "decoration", False) is True)


def owners(canvas: Any) -> dict[int, str]:
    """The widgets whose texts and images the judges read, by ``id``: the slide on screen
    (``slide``), each overlay's widgets (``overlay:<id>``: its panel or effect, and whatever the
    layer keeps of it elsewhere, a celebration message lifted over the slides) and the alert
    cards (``alert``). The ticker's scrolling text is not among them."""
    compositor = canvas.compositor
    found: dict[int, str] = {}
    slides = compositor.entry("slides")
    current = slides.layer.current if slides is not None and not slides.failed else None
    if current is not None and current.get("widget") is not None:
        found[id(current["widget"])] = "slide"
    overlays = compositor.entry("overlays")
    for overlay_id, entry in (overlays.layer.overlays.items() if overlays is not None and not overlays.failed else ()):
        for value in entry.values():
            if hasattr(value, "walk") and hasattr(value, "canvas"):  # its widget, a lifted message's holder
                found[id(value)] = f"overlay:{overlay_id}"
    alerts = compositor.entry("alerts")
    if alerts is not None and not alerts.failed:
        found[id(alerts.layer.widget)] = "alert"
    return found


def _owner(widget: Any, known: dict[int, str]) -> str | None:
    node = widget
    while node is not None and node.parent is not node:
        if id(node) in known:
            return known[id(node)]
        node = node.parent
    return None


def measure(canvas: Any, scene: Scene) -> None:
    """What ``scene`` shows on ``canvas`` now, into its geometry fields: one walk of the window's
    widgets, each text and image attributed to the slide, an overlay or the alerts."""
    from kivy.uix.label import Label

    from svc_host.kit.display.pictures import ImageFill

    height = float(canvas.root.height)
    compositor = canvas.compositor
    known = owners(canvas)
    slides = compositor.entry("slides")
    current = slides.layer.current if slides is not None and not slides.failed else None
    if current is not None and current.get("widget") is not None:
        scene.slide = window_box(current["widget"], height)
    for widget in canvas.root.walk(restrict=True):
        if is_decoration(widget):
            scene.decorations.append({"owner": _owner(widget, known) or "", "box": window_box(widget, height)})
            continue
        owner = _owner(widget, known)
        if owner is None:
            continue
        opacity = _visible(widget)
        if opacity <= 0.01:
            continue
        if isinstance(widget, Label) and widget.text.strip():
            scene.labels.append(label_entry(widget, owner, height, opacity))
        elif isinstance(widget, ImageFill) and widget.texture is not None:
            scene.images.append(image_entry(widget, owner, height))
    overlays = compositor.entry("overlays")
    for overlay_id, entry in (overlays.layer.overlays.items() if overlays is not None and not overlays.failed else ()):
        widget = entry.get("widget")
        if widget is not None and entry["zone"] != "fullscreen":
            scene.panels.append({"id": overlay_id, "zone": entry["zone"], "box": window_box(widget, height)})
    alerts = compositor.entry("alerts")
    if alerts is not None and not alerts.failed:
        for stack in alerts.layer.widget.children:  # the cards: the children of the layer's stack
            for card in stack.children:
                if _visible(card) > 0.01:
                    scene.cards.append({"box": window_box(card, height)})
    ticker = compositor.entry("marquee")
    if ticker is not None and not ticker.failed and ticker.layer.widget.height > 0:
        scene.ticker = window_box(ticker.layer.widget, height)


def hidden_decorations(canvas: Any) -> list[tuple[Any, float]]:
    """Hide every decoration in the window (opacity 0), wherever its layer mounts it; returns
    what to restore."""
    hidden = []
    for widget in canvas.root.walk(restrict=True):
        if is_decoration(widget):
            hidden.append((widget, widget.opacity))
            widget.opacity = 0
    return hidden


def window_picture(canvas: Any) -> Any:
    """The window as drawn now: a Pillow RGB image, top row first."""
    from kivy.core.window import Window
    from PIL import Image

    return Image.frombuffer("RGBA", tuple(Window.size), canvas.pixels(), "raw", "RGBA", 0, -1).convert("RGB")


def mark_decorated(scene: Scene, drawn: Any, bare: Any) -> None:
    """Set ``decorated`` on each label and image of ``scene``: whether any pixel of its box differs
    between the frame ``drawn`` and the same frame drawn without the decorations (``bare``)."""
    from PIL import ImageChops

    width, height = drawn.size
    scene.decoration_drawn = ImageChops.difference(drawn, bare).getbbox() is not None
    for item in scene.labels + scene.images:
        x, y, w, h = item.get("text_box") or item["box"]
        box = (max(0, x), max(0, y), min(width, x + w), min(height, y + h))
        item["decorated"] = box[2] > box[0] and box[3] > box[1] and \
            ImageChops.difference(drawn.crop(box), bare.crop(box)).getbbox() is not None
