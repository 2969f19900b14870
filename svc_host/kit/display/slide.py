"""A slide or overlay root (Kivy): :class:`Slide` (``tick``/``dispose`` forwarding),
:func:`themed_slide` (on the theme's backdrop), :class:`Drawing` (canvas instructions that follow
their box), :func:`box_hints` and :func:`add_title` (the title band of the builtin slides)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kivy.uix.label import Label
from kivy.uix.relativelayout import RelativeLayout
from kivy.uix.widget import Widget

from hookspecs.render import ROLE_TITLE, TITLE_BOX, RenderContext
from svc_host.kit.display.backdrop import Backdrop
from svc_host.kit.display.scrolling import ScrollBox
from svc_host.kit.display.text import minimum_px

RGBA = tuple[float, float, float, float]


class Slide(RelativeLayout):
    """A slide or overlay root: children and canvas use coordinates relative to its corner.

    ``tick(dt)`` forwards to the helpers registered with :meth:`animate`.
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.animated: list[Any] = []
        self.disposers: list[Any] = []

    def animate(self, widget: Any) -> Any:
        self.animated.append(widget)
        return widget

    def on_dispose(self, callback: Any) -> None:
        """Run ``callback`` when its layer removes this slide or overlay."""
        self.disposers.append(callback)

    def dispose(self) -> None:
        callbacks, self.disposers = self.disposers, []
        for callback in callbacks:
            callback()

    def tick(self, dt: float) -> None:
        for widget in self.animated:
            widget.tick(dt)


def themed_slide(context: RenderContext, background: Sequence[RGBA] | None = None) -> Slide:
    """A slide root on its background (the theme's gradient, or ``background``). The backdrop it
    adds is ``slide.background`` (its colours ``slide.background.colors``): the slides layer lifts it
    out and hands it to the compositor, which paints it beneath the decoration layer, so effects fall
    behind the slide's content (docs/display.md, "Composition: the rule"). The theme's gradient is
    the part of the compositor's own behind the slide (:class:`Backdrop` ``screen``): no seam where
    they meet."""
    slide = Slide()
    backdrop = Backdrop(list(background or context.theme.background), screen=background is None,
                        size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    slide.add_widget(backdrop)
    slide.background = backdrop
    return slide


class Drawing(Widget):
    """Canvas instructions made from the widget's own box: ``draw(widget)`` runs inside ``with
    widget.canvas`` (its ``x``, ``y``, ``width``, ``height`` are where to draw) and runs again, on a
    cleared canvas, whenever the box moves or changes size. Pixel geometry drawn in one (a clock
    face, a mark) follows the area a layout gives it, as labels with size hints do, rather than
    the size its renderer was built at (``context.size``): a slide laid out in the free area left
    by overlays, a panel whose zone changed."""

    def __init__(self, draw: Callable[["Drawing"], None], **kwargs: Any):
        super().__init__(**kwargs)
        self.draw = draw
        self.bind(pos=self.redraw, size=self.redraw)
        self.redraw()

    def redraw(self, *_args: Any) -> None:
        self.canvas.clear()
        with self.canvas:
            self.draw(self)


def box_hints(box: Sequence[float]) -> dict[str, Any]:
    """``size_hint`` and ``pos_hint`` of ``box`` (``[x, y, width, height]``, fractions from the top left)."""
    x, y, width, height = box
    return {"size_hint": (width, height), "pos_hint": {"x": x, "top": 1 - y}}


def add_title(context: RenderContext, slide: Widget, title: str, accent: RGBA | None = None,
              color: RGBA | None = None, halign: str = "left", box: Sequence[float] = TITLE_BOX,
              size: float | None = None) -> Label:
    """The title of the builtin slides: a bold label (``role = "title"``, the type scale's ``title``
    unless ``size`` px) in ``box`` with an accent bar at its left. Returns the label."""
    x, y, width, height = box
    if halign == "center":  # a centred title: its accent a short bar centred under it
        slide.add_widget(Backdrop([accent or context.theme.accents[0]], size_hint=(0.12, 0.008),
                                  pos_hint={"center_x": x + width / 2, "top": 1 - y - height - 0.006}))
    else:  # beside its first letter
        slide.add_widget(Backdrop([accent or context.theme.accents[0]], size_hint=(0.012, height),
                                  pos_hint={"x": max(0.0, x - 0.03), "top": 1 - y}))
    widget = ScrollBox(minimum=minimum_px(context, "title"), text=title,
                       font_size=context.font(size) if size else context.type_px("title"),
                       color=color or context.theme.text, bold=True, halign=halign, valign="middle", **box_hints(box))
    widget.role = ROLE_TITLE  # wrapped at words in its band, shrunk to the title's minimum, else scrolled
    slide.add_widget(widget)
    if hasattr(slide, "animate"):
        slide.animate(widget)
    return widget


def nothing_card(context: Any, lines: list[str]) -> Any:
    """The card the slides layer shows in the slides' place when none of the program's slides can
    be shown (docs/display.md, "Skip, don't blank"): the theme's background, a title saying so and
    ``lines``, one per reason (``Stage.nothing_to_show``), each shrunk to its box as the first-start
    card's. UI thread."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.widget import Widget

    from svc_host.kit.display.colour import on_background
    from svc_host.kit.display.scrolling import fit_label

    theme = context.theme
    slide = themed_slide(context)
    slide.size_hint, slide.pos_hint = (1, 1), {"x": 0, "y": 0}
    unit = max(1.0, min(context.size)) / 1080.0
    column = BoxLayout(orientation="vertical", padding=(unit * 80, unit * 60), spacing=unit * 16,
                       size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    title = fit_label("Nothing to show right now", max(8.0, unit * 96), theme.text, bold=True, halign="left",
                        size_hint_y=1.6)
    title.role = "title"
    column.add_widget(title)
    muted = on_background(context, (0.75, 0.78, 0.85, 1))
    for line in lines[:6]:
        label = fit_label(line, max(6.0, unit * 44), muted, halign="left", size_hint_y=0.8, samples=lines)
        label.role = "primary"
        column.add_widget(label)
    column.add_widget(fit_label("The operator sees the same on GET /v1/display/screen and the Program page.",
                                  max(6.0, unit * 32), muted, halign="left", size_hint_y=0.6))
    column.add_widget(Widget(size_hint_y=max(0.2, 4 - len(lines))))
    slide.add_widget(column)
    return slide
