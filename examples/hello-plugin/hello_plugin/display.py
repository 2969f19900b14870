"""hello's drawing, imported only when a canvas runs (its types name it as ``"module:attr"``)."""
from kivy.graphics import Color, Line
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from hookspecs.render import parse_color, renderer
from hello_plugin import greetings


def newest(context):  # runs first, on the loader thread inside a db_session: read the database here
    return {"text": context.config.get("text") or (greetings(context.host, limit=1) or ["hello"])[0]}


@renderer(prepare=newest)
def card(context):  # runs on the UI thread: build the widget from context.data, no database here
    color = parse_color(context.config.get("color"), context.theme.primary_fg)
    return Label(text=context.data["text"], color=color, font_size=context.font(96), bold=True)


class Glow(Widget):
    """A frame around the screen in the theme's accent colour, fading in and out."""

    def __init__(self, context):
        super().__init__()
        with self.canvas:
            Color(*context.theme.accents[0])
            self.line = Line(width=context.config.get("width", 12))
        self.age = 0.0

    def tick(self, dt):  # called every frame while shown: animate here, and follow the layer's size
        self.age += dt
        self.opacity = 0.4 + 0.6 * abs(self.age % 2 - 1)
        self.line.rectangle = (*self.pos, *self.size)
