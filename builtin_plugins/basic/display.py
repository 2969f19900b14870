"""The basic types' drawing (Kivy-only, imported when a canvas starts): the message, QR code and
controller invite slides, the static image and QR code overlays. Config keys: those of the
types in ``builtin_plugins/basic/types.json``."""
from __future__ import annotations

from typing import Any

from svc_host.kit.contrast import qr_colours
from hookspecs.render import RenderContext, parse_color, renderer
from svc_host.kit.display import config_flag, config_number, config_text, opacity, position
from svc_host.kit.display import widgets as _w


def _background(context: RenderContext) -> list | None:
    value = context.config.get("backgroundColor")
    return [parse_color(value)] if isinstance(value, str) else None


def message(context: RenderContext) -> Any:
    text_color = context.config.get("textColor")
    return _w().text_slide(context, config_text(context, "title"), [config_text(context, "body")],
                           body_size=72, background=_background(context),
                           text_color=parse_color(text_color) if isinstance(text_color, str) else None,
                           halign=config_text(context, "textAlign", "left"))


def _qr_slide(context: RenderContext, payload: str, title: str, caption: str,
              fg: Any = (0, 0, 0, 1), bg: Any = (1, 1, 1, 1)) -> Any:
    """The heading and caption beside the code (below it on a slide taller than wide), the code as
    large as its half of the slide holds; the texts shrink together down to their minimums, the
    caption ending early last."""
    w = _w()
    slide = w.themed_slide(context)
    text = context.theme.text
    heading = w.entry(context, title, text, step="title", bold=True)
    heading.main.role = "title"
    width, height = context.size
    tall = w.stacked(context)  # a portrait screen or a slide higher than wide: the code under its heading
    w.body_column(context, slide, [heading, w.entry(context, caption, context.theme.accents[0])],
                  (0.08, 0.05, 0.84, 0.33) if tall else (0.06, 0.1, 0.45, 0.8), keep=2)
    fg, bg = qr_colours(fg, bg)  # dark modules on a light ground, whatever the config asks
    side = min(width * 0.84, height * 0.55) if tall else min(width * 0.4, height * 0.8)  # a square, px
    hint = (side / width, side / height)
    where = {"center_x": 0.5, "y": 0.05} if tall else {"right": 0.95, "center_y": 0.5}
    slide.add_widget(w.Backdrop([bg], size_hint=hint, pos_hint=where))
    inner = {"center_x": 0.5, "y": 0.05 + hint[1] * 0.025} if tall else {"right": 0.95 - hint[0] * 0.025,
                                                                         "center_y": 0.5}
    slide.add_widget(w.ImageFill(w.qr_texture(payload, fg, bg), size_hint=(hint[0] * 0.95, hint[1] * 0.95),
                                 pos_hint=inner))
    slide.says = "qr"  # one voice per fact: the QR panel yields while the slide has its own code,
    slide.told_apart = payload  # unless both are captioned codes of different payloads
    return slide


def qr_code(context: RenderContext) -> Any:
    payload = config_text(context, "payload")
    if not payload:
        raise ValueError("qr_code needs config_json.payload")
    fg = parse_color(config_text(context, "foreground"), (0, 0, 0, 1))
    bg = parse_color(config_text(context, "background"), (1, 1, 1, 1))
    return _qr_slide(context, payload, config_text(context, "caption", "Scan me"), payload, fg, bg)


def _prepare_invite(context: RenderContext) -> Any:
    url = config_text(context, "urlOverride") or (context.host.settings.plugin_values("basic").controller_public_url or "")
    return {"url": url} if url else None


@renderer(prepare=_prepare_invite)
def controller_invite(context: RenderContext) -> Any:
    url = context.data["url"]
    caption = f"Open {url} on your phone" if config_flag(context, "showUrl", True) else "Scan with your phone"
    return _qr_slide(context, url, config_text(context, "headline", "Control this display"), caption)


def _prepare_static(context: RenderContext) -> Any:
    data = context.blob_bytes(config_text(context, "image_blob_key"))
    return {"image": data} if data else None


@renderer(prepare=_prepare_static)
def static_image(context: RenderContext) -> Any:
    w = _w()
    texture = w.decoded_texture(context.data["image"], "the static_image blob")
    layer = w.Slide()
    layer.opacity = opacity(context)
    layer.add_widget(w.ImageFill(texture, mode=config_text(context, "fit", "contain"), size_hint=(1, 1),
                                 pos_hint={"x": 0, "y": 0}))
    return layer


def qr_code_overlay(context: RenderContext) -> Any:
    """``payload`` as a QR code of height ``size`` (default 0.28) in ``position``, with ``caption``."""
    w = _w()
    payload = config_text(context, "payload")
    if not payload:
        raise ValueError("qr_code overlay needs config_json.payload")
    # fractions of the overlays layer's reference (the landscape content area, turned on a
    # portrait screen): the code keeps its landscape size in portrait instead of a thin strip
    width, height = context.reference or context.size
    size = config_number(context, "size", 0.28, 0.05, 0.5)
    caption = config_text(context, "caption")
    box_h = size + (0.06 if caption else 0.0)
    box_w = size * 1.07 * height / max(1, width)
    box = w.Slide(size_hint=(box_w, box_h), pos_hint=position(context, "bottom_right"))  # the panel is the root
    box.opacity = opacity(context)
    box.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    box.add_widget(w.ImageFill(w.qr_texture(payload), size_hint=(0.94, size * 0.94 / box_h),
                               pos_hint={"center_x": 0.5, "top": 0.97}))
    if caption:
        box.add_widget(w.label(caption, context.font(26), (0, 0, 0, 1), halign="center",
                               size_hint=(0.96, 0.055 / box_h),
                               pos_hint={"center_x": 0.5, "y": 0.005 / box_h}))
    box.says = "qr"
    box.told_apart = payload if caption else None  # captioned: it may stand beside another captioned code
    return box
