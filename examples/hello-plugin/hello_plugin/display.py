"""hello's drawing, imported only when a canvas runs (its types name it as ``"module:attr"``)."""
from hookspecs.render import parse_color, renderer
from hello_plugin import greetings
from svc_host.kit import display as kit


def newest(context):  # runs first, on the loader thread inside a db_session: read the database here
    return {"text": context.config.get("text") or (greetings(context.host, limit=1) or ["hello"])[0]}


@renderer(prepare=newest)
def card(context):  # runs on the UI thread: build the widget from context.data, no database here
    color = parse_color(context.config.get("color"), context.theme.primary_fg)
    return kit.widgets().fit_label(context.data["text"], context.font(96), color, bold=True)


@renderer(prepare=newest)
def note(context):  # an overlay panel: the display puts it in its zone and lays the slides out beside it
    w = kit.widgets()
    layer, box = w.panel(context, (0.3, 0.16), "bottom_right")  # a translucent box, 30% x 16% of the area
    box.add_widget(w.fit_label(context.data["text"], context.font(40), context.theme.primary_fg))
    return layer
