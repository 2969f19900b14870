"""The plugin types' drawing (Kivy-only, imported when a canvas starts): the ``plugin_template``
slide and overlay and the ``plugin_web`` overlay (pictures of a page, :mod:`.web_snapshot`).
Config keys: those of the types in :mod:`builtin_plugins.folder_plugins`."""
from __future__ import annotations

from typing import Any

from builtin_plugins.folder_plugins.web_snapshot import PeriodicSnapshot, shown_url
from builtin_plugins.folder_plugins.web_snapshot import log as web_log
from hookspecs.render import RenderContext, renderer
from svc_host.display.kit import config_number, config_strings, config_text, panel_hint, position
from svc_host.display.kit import widgets as _w


def template_lines(data: Any) -> tuple[str, list[str]]:
    """(title, lines) of a plugin template's ``data``: ``title`` (or ``headline``) and
    ``body``/``text``/``lines`` when present, else every scalar as ``key: value``."""
    data = data if isinstance(data, dict) else {}
    scalar = (str, int, float)
    title = next((str(data[k]) for k in ("title", "headline") if isinstance(data.get(k), scalar)), "")
    lines = [str(data[k]) for k in ("body", "text") if isinstance(data.get(k), scalar)]
    if isinstance(data.get("lines"), list):
        lines += [str(line) for line in data["lines"] if isinstance(line, scalar)]
    if not lines:
        lines = [f"{k}: {v}" for k, v in data.items()
                 if k not in ("title", "headline") and isinstance(v, scalar) and not isinstance(v, bool)]
    return title, lines[:20]


def _prepare_template(context: RenderContext) -> Any:
    return {"background": context.blob_bytes(config_text(context, "backgroundBlobKey") or None)}


@renderer(prepare=_prepare_template)
def plugin_template(context: RenderContext) -> Any:
    """The template's ``data`` as a text slide over ``backgroundBlobKey`` (when it decodes).
    A plugin that wants its own drawing registers its own screen type."""
    w = _w()
    title, lines = template_lines(context.config.get("data"))
    slide = w.text_slide(context, title or context.row.get("name") or config_text(context, "template"), lines)
    texture = w.texture_from_bytes((context.data or {}).get("background"))
    if texture is not None:
        slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(1, 1), pos_hint={"x": 0, "y": 0}),
                         index=len(slide.children) - 1)
    return slide


def plugin_template_overlay(context: RenderContext) -> Any:
    """A celebration layer: confetti in the theme accents with the template ``data`` title
    (see :func:`template_lines`) and ``messages`` cycled over it."""
    w = _w()
    accents = list(context.theme.accents)
    layer = w.rain_layer(context, 80, accents, ["rect", "circle"], 20, 2.0)
    title, _lines = template_lines(context.config.get("data"))
    messages = ([title] if title else []) + config_strings(context, "messages")
    return w.with_messages(context, layer, accents[0], 90, messages=messages, interval=6)


def _web_box(context: RenderContext) -> tuple[tuple[float, float], dict]:
    """``plugin_web``'s box: the whole screen for ``position: fullscreen``, else a panel of
    height ``size`` (default 0.2) with the screen's aspect ratio in ``position``."""
    if config_text(context, "position") == "fullscreen":
        return (1.0, 1.0), {"x": 0, "y": 0}
    size = config_number(context, "size", 0.2, 0.05, 1)
    return panel_hint((size, size)), position(context)


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
    plugin and the page. Snapshots come from a :class:`.web_snapshot.PeriodicSnapshot` on its
    own thread: the first at once, then every ``refresh_seconds`` (0 = only the first), so a
    slow page never holds up the display's loader thread."""

    def __init__(self, context: RenderContext, box: Any, url: str):
        w = _w()
        self.box, self.url, self.image = box, url, None
        w.add_backdrop(context, box)
        box.add_widget(w.label(f"{config_text(context, 'plugin_id')}\n{url}", context.font(32),
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
    :data:`.web_snapshot.MIN_REFRESH_SECONDS`). Without a browser, or while the
    page cannot be captured, a panel names the plugin and the page."""
    size_hint, pos_hint = _web_box(context)
    layer, box = _w().boxed_layer(context, size_hint, pos_hint, backdrop=False)
    view = _WebView(context, box, context.data["url"])
    layer.animate(view)
    layer.on_dispose(view.dispose)
    return layer
