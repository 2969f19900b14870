"""The plugin types' drawing (Kivy-only, imported when a canvas starts): the ``plugin_template``
slide and overlay (a plugin's template, :mod:`.templates`) and the ``plugin_web`` overlay
(pictures of a page, :mod:`.web_snapshot`). Config keys: those of the types in
``builtin_plugins/folder_plugins/types.json``."""
from __future__ import annotations

import logging
from typing import Any

from builtin_plugins.folder_plugins.templates import TemplateError, fill_blocks
from builtin_plugins.folder_plugins.web_snapshot import PeriodicSnapshot, shown_url
from builtin_plugins.folder_plugins.web_snapshot import log as web_log
from hookspecs.render import RGBA, ROLE_CELEBRATION, RenderContext, parse_color, renderer
from hookspecs.services import FOLDER_PLUGINS, service
from svc_host.kit.display import config_number, config_text, panel_hint, position
from svc_host.kit.display import widgets as _w
from svc_host.kit.display.layout import BAND

log = logging.getLogger("builtin_plugins.folder_plugins.templates")
_REPORTED: dict[tuple[str, Any], str] = {}
MARKERS = {"bullet": lambda i: "\u2022 ", "number": lambda i: f"{i + 1}. ",
           "letter": lambda i: f"{chr(65 + i % 26)}. ", "none": lambda i: ""}


def _prepare(context: RenderContext, plugin_key: str) -> dict[str, Any]:
    """Loader thread: the template the row names (through the ``FOLDER_PLUGINS`` service, as
    validated at startup), its blocks filled with the row's ``data`` and the bytes of their
    images; ``error`` instead of ``blocks`` when any of that fails."""
    prepared: dict[str, Any] = {"plugin": config_text(context, plugin_key),
                                "template": config_text(context, "template")}
    try:
        folders = service(context.host, FOLDER_PLUGINS)
        if folders is None:
            raise TemplateError("the folder_plugins plugin is not running")
        folder, template = folders.template(prepared["plugin"], prepared["template"])
        data = context.config.get("data")
        blocks = fill_blocks(template, data if isinstance(data, dict) else {})
        for index, block in enumerate(blocks):
            if "blob" in block:
                block["bytes"] = context.blob_bytes(block["blob"])
                if block["bytes"] is None:
                    raise TemplateError(f"block {index}: there is no blob {block['blob']!r}")
            elif "file" in block:
                try:
                    block["bytes"] = (folder / block["file"]).read_bytes()
                except OSError as exc:
                    raise TemplateError(f"block {index}: {block['file']!r} cannot be read: "
                                        f"{exc.strerror or exc}") from None
        prepared.update(blocks=blocks, background=template.get("background"))
    except TemplateError as exc:
        prepared["error"] = str(exc)
    return prepared


def _prepare_slide(context: RenderContext) -> dict[str, Any]:
    return {**_prepare(context, "pluginId"),
            "image": context.blob_bytes(config_text(context, "backgroundBlobKey") or None)}


def _prepare_overlay(context: RenderContext) -> dict[str, Any]:
    return _prepare(context, "plugin_id")


def colour(context: RenderContext, value: Any, default: RGBA) -> RGBA:
    """A template colour: a theme role (:data:`.templates.COLOR_ROLES`) or a hex value."""
    theme = context.theme
    roles = {"text": theme.text, "primary_bg": theme.primary_bg, "secondary_fg": theme.secondary_fg,
             "secondary_bg": theme.secondary_bg,
             **{f"accent{i + 1}": accent for i, accent in enumerate(theme.accents)}}
    return roles[value] if value in roles else parse_color(value, default)


def _draw(context: RenderContext, root: Any, blocks: list[dict[str, Any]]) -> None:
    """The filled blocks on ``root`` (a slide or an overlay layer), each in its box; an image that
    does not decode or a QR code that cannot hold its text raise :class:`TemplateError`."""
    w = _w()
    theme = context.theme
    for index, block in enumerate(blocks):
        kind, hints = block["type"], w.box_hints(block.get("box", (0, 0, 1, 1)))
        fg = colour(context, block.get("color"), theme.text)
        align = block.get("align", "left")
        if kind == "title":
            w.add_title(context, root, block["text"], theme.accents[0], fg, align, block["box"], block.get("size", 80))
        elif kind in ("text", "list"):
            text = block.get("text") or "\n".join(MARKERS[block.get("marker", "bullet")](i) + item
                                                  for i, item in enumerate(block["items"]))
            root.add_widget(w.label(text, context.font(block.get("size", 56)), fg, bold=block.get("bold", False),
                                    halign=align, valign=block.get("valign", "top"), **hints))
        elif kind == "image":
            texture = w.texture_from_bytes(block["bytes"])
            if texture is None:
                what = block.get("blob") or block["file"]
                raise TemplateError(f"block {index}: {what!r} is not a decodable image")
            root.add_widget(w.ImageFill(texture, mode=block.get("fit", "contain"), **hints))
        elif kind == "qr":
            try:
                texture = w.qr_texture(block["payload"], colour(context, block.get("color"), (0, 0, 0, 1)),
                                       colour(context, block.get("background"), (1, 1, 1, 1)))
            except Exception as exc:  # qrcode's DataOverflowError and kin: the text does not fit
                raise TemplateError(f"block {index}: no QR code for its payload ({type(exc).__name__})") from None
            root.add_widget(w.ImageFill(texture, **hints))
        elif kind == "rect":
            root.add_widget(w.Backdrop([fg], **hints))
        elif kind == "confetti":
            colors = [colour(context, c, theme.accents[0]) for c in block.get("colors", [])] or list(theme.accents)
            layer = w.rain_layer(context, block.get("count", 80), colors, block.get("shapes", ["rect", "circle"]),
                                 20, block.get("speed", 2.0))
            root.add_widget(layer)
            root.animate(layer)


def _failed(context: RenderContext, prepared: dict[str, Any], reason: str) -> None:
    """One log line per row and reason (the slide comes back every cycle: its line does not)."""
    key = (context.kind, context.row.get("id"))
    if _REPORTED.get(key) != reason:
        if len(_REPORTED) > 1000:
            _REPORTED.clear()
        _REPORTED[key] = reason
        log.warning("plugin_template %s %r: plugin %r, template %r: %s; showing the fallback panel",
                    context.kind, context.row.get("id"), prepared["plugin"], prepared["template"], reason)


def fallback_lines(prepared: dict[str, Any], reason: str) -> tuple[str, list[str]]:
    """What the fallback panel says: (title, lines) naming the plugin, the template and why."""
    return "Template not available", [f"Plugin: {prepared['plugin']}", f"Template: {prepared['template']}",
                                      reason]


@renderer(prepare=_prepare_slide)
def plugin_template(context: RenderContext) -> Any:
    """The template ``template`` of the folder plugin ``pluginId`` filled with ``data``, over the
    template's ``background`` (default the theme's) and the ``backgroundBlobKey`` image (when it
    decodes). A template or data error shows a panel naming the plugin and the template instead."""
    w = _w()
    prepared = context.data
    texture = w.texture_from_bytes(prepared.get("image"))
    try:
        if "error" in prepared:
            raise TemplateError(prepared["error"])
        background = prepared.get("background") or []
        background = background if isinstance(background, list) else [background]
        slide = w.themed_slide(context, [colour(context, c, context.theme.background[0])
                                         for c in background] or None)
        if texture is not None:
            slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
        _draw(context, slide, prepared["blocks"])
    except TemplateError as exc:
        _failed(context, prepared, str(exc))
        title, lines = fallback_lines(prepared, str(exc))
        slide = w.text_slide(context, title, lines, body_size=44)
        if texture is not None:
            slide.add_widget(w.ImageFill(texture, mode="cover", size_hint=(1, 1), pos_hint={"x": 0, "y": 0}),
                             index=len(slide.children) - 1)
    return slide


@renderer(prepare=_prepare_overlay)
def plugin_template_overlay(context: RenderContext) -> Any:
    """The template ``template`` of the folder plugin ``plugin_id`` filled with ``data`` over the
    slide (a template's ``background`` is for slides only), with ``messages`` cycled over it. Its
    blocks are placed in the whole content area as the template gives them. With a text, list,
    title, image or QR block it is content (``content``: drawn over the slides, its blocks where its
    author put them); with only boxes and confetti it is decoration, behind the slides' content. A
    template or data error shows a panel naming the plugin and the template instead, in the
    celebration band (``hookspecs.render.BAND``), off the slide's text."""
    w = _w()
    prepared = context.data
    layer = w.Slide()
    try:
        if "error" in prepared:
            raise TemplateError(prepared["error"])
        _draw(context, layer, prepared["blocks"])
    except TemplateError as exc:
        _failed(context, prepared, str(exc))
        title, lines = fallback_lines(prepared, str(exc))
        panel, box = w.boxed_layer(context, (0.96, BAND), {"center_x": 0.5, "y": 0})
        box.add_widget(w.label(" \u00b7 ".join([title, *lines]), context.font(26), context.theme.text,
                               halign="center", size_hint=(0.96, 0.9), pos_hint={"center_x": 0.5, "center_y": 0.5}))
        layer = w.Slide()
        layer.add_widget(panel)
        layer.celebration = panel  # the band says why, in place of the messages
        panel.role = ROLE_CELEBRATION
        return layer
    layer.bands = _bands(prepared["blocks"])
    # blocks a viewer reads or scans make it content, over the slides (the overlays layer mounts it
    # there); boxes and confetti alone are decoration, under the slides' content
    layer.content = any(block["type"] in CONTENT_BLOCKS for block in prepared["blocks"])
    return w.with_messages(context, layer, size=90)


CONTENT_BLOCKS = ("title", "text", "list", "image", "qr")
"""Template blocks that make an overlay template content (a panel over the slides, decoration kept
out of their boxes) rather than decoration (drawn under the slides' content, as confetti is)."""


DECORATION = ("confetti",)
"""Template blocks that may cross a slide's text (pieces falling over it); every other block is
text or a solid box that the slide must keep clear of."""


BAND_LIMIT = 0.4
"""The most of the screen's height a template overlay's band may take (from its top or bottom edge)."""


def _bands(blocks: list[dict[str, Any]]) -> list[tuple[str, float, float]]:
    """What an overlay template's solid blocks take of the screen, for the layout, as fractions
    from the top: the band from the screen's top to the lowest block when all lie in the top
    :data:`BAND_LIMIT` (``top_band``), or from the highest block to the bottom when all lie in the
    bottom one (``bottom_band``). The slide is laid out beside it (``kit.layout.with_occupied``), so a
    headline along an edge never covers the slide's text. Blocks across the middle of the screen
    (a badge in the centre) take no band: the template draws them over the slide, as its author
    placed them."""
    boxes = [block.get("box", (0, 0, 1, 1)) for block in blocks if block["type"] not in DECORATION]
    if not boxes:
        return []
    top, bottom = min(b[1] for b in boxes), max(b[1] + b[3] for b in boxes)
    if bottom <= BAND_LIMIT:
        return [("top_band", 0.0, bottom)]
    if top >= 1 - BAND_LIMIT:
        return [("bottom_band", top, 1.0)]
    return []


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
        browser = context.host.settings.plugin_values("folder_plugins").get("browser")
        self.refresh = PeriodicSnapshot(url, _web_pixels(context), period if period > 0 else None,
                                        immediately=True, browser=browser)

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
