"""The media types' drawing (Kivy-only, imported when a canvas starts): the ``photo`` and ``video``
slides and the ``photo_slideshow`` overlay. Content: the newest unsuppressed ``Photo`` /
``Video`` rows of the category ``data_key`` or ``category`` names, picked at random. Config
keys: those of ``builtin_plugins/media/types.json``."""
from __future__ import annotations

import math
from typing import Any

from hookspecs.render import TITLE_BOX, RenderContext, renderer
from svc_host.kit.display import blob_images, config_flag, config_number, config_text, newest_shuffled
from svc_host.kit.display import widgets as _w


PROVIDER_NAMES = {"pexels": "Pexels", "unsplash": "Unsplash", "nasa_apod": "NASA"}
"""The services whose name a credit carries (as their guidelines ask: "Photo by X on Unsplash").
Any other provenance (the operator's own upload, the cloud feed) is no one a viewer should read
about: a raw id such as ``manual_entry`` never reaches the screen."""


def credit_line(photographer: str | None, provider: str | None) -> str:
    """What a picture's credit says: ``Ana Lima on Pexels``, ``Ana Lima``, ``via NASA`` or ``""``."""
    who, service = (photographer or "").strip(), PROVIDER_NAMES.get(provider or "", "")
    if who and service:
        return f"{who} on {service}"
    return who or (f"via {service}" if service else "")


def _prepare_photo(context: RenderContext) -> Any:
    for row in newest_shuffled(context, context.host.db.Photo)[:5]:
        data = context.blob_bytes(row.media_blob_key)
        if data:
            attribution = config_flag(context, "showAttribution", True)
            return {"image": data, "caption": row.alt_text if attribution else "",
                    "credit": credit_line(row.photographer_name, row.data_provider) if attribution else ""}
    return None


class _KenBurns:
    """A slow zoom: the picture grows by 12 % over 20 seconds inside its box (cropped to it, never
    past the slide's area), then holds."""

    def __init__(self, image: Any):
        self.image, self.t = image, 0.0

    def tick(self, dt: float) -> None:
        self.t = min(20.0, self.t + dt)
        self.image.set_zoom(1 + 0.12 * self.t / 20.0)


def _caption(context: RenderContext, slide: Any, text: str, height: float) -> None:
    """``text`` in white on a dark band along the bottom of ``slide`` (nothing when empty): at 70 %
    black the band keeps white text above 4.5:1 even over a white picture. The band is full-bleed,
    its text in the slides' title inset (the title-safe area at the screen's edge)."""
    if text:
        w = _w()
        inset = TITLE_BOX[0]
        slide.add_widget(w.Backdrop([(0, 0, 0, 0.7)], size_hint=(1, height), pos_hint={"x": 0, "y": 0}))
        slide.add_widget(w.label(text, context.type_px("caption"), (1, 1, 1, 1), size_hint=(1 - 2 * inset, height),
                                 pos_hint={"x": inset, "y": 0}))


@renderer(prepare=_prepare_photo)
def photo(context: RenderContext) -> Any:
    w = _w()
    texture = w.decoded_texture(context.data["image"], "the photo blob")
    slide = w.themed_slide(context, [(0, 0, 0, 1)])
    image = w.ImageFill(texture, mode=config_text(context, "fit", "cover"), size_hint=(1, 1),
                        pos_hint={"center_x": 0.5, "center_y": 0.5})
    slide.add_widget(image)
    if config_flag(context, "kenBurns", False):
        slide.animate(_KenBurns(image))
    caption = " \u2014 ".join(p for p in (context.data["caption"], context.data["credit"]) if p)
    _caption(context, slide, caption, 0.09)
    return slide


def _prepare_video(context: RenderContext) -> Any:
    """The newest videos of the category, shuffled; the first whose blob file exists."""
    attribution = config_flag(context, "showAttribution", True)
    max_seconds = config_number(context, "maxDurationSeconds", 3600, 1, 3600)
    for row in newest_shuffled(context, context.host.db.Video)[:5]:
        blob = context.host.blobs.get(row.media_blob_key) if row.media_blob_key else None
        if blob is None or not blob.path.is_file():
            continue
        duration = min(float(row.duration_seconds), max_seconds) if row.duration_seconds else max_seconds
        return {"path": str(blob.path), "title": row.alt_text or "Video",
                "credit": credit_line(row.photographer_name, row.data_provider) if attribution else "",
                "duration": duration, "max_seconds": max_seconds,
                "muted": config_flag(context, "muted", True)}
    return None


class _PlayPulse:
    def __init__(self, color_instruction: Any):
        self.color, self.t = color_instruction, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        self.color.a = 0.6 + 0.4 * math.sin(self.t * 3)


def _poster(context: RenderContext) -> Any:
    """Without a video provider: a poster naming the video, with a pulsing play mark."""
    from kivy.graphics import Color, Triangle

    data = context.data
    facts = (f"{int(data['duration'])} s", "muted" if data["muted"] else "")
    slide = _w().text_slide(context, data["title"],
                            [f"{data['credit']}".strip(), " \u00b7 ".join(p for p in facts if p)])
    width, height = context.size
    with slide.canvas:  # in the lower right, under the text; centred under it on a portrait screen
        color = Color(*context.theme.accents[1])
        r = min(width, height) * 0.12
        cx, cy = (width * 0.5, height * 0.22) if _w().stacked(context) else (width * 0.8, height * 0.3)
        Triangle(points=[cx - r * 0.6, cy - r, cx - r * 0.6, cy + r, cx + r, cy])
    slide.animate(_PlayPulse(color))
    return slide


@renderer(prepare=_prepare_video)
def video(context: RenderContext) -> Any:
    """The video itself (Kivy's ffpyplayer provider), muted unless ``muted`` is false,
    looping while the slide is shown and stopped after ``maxDurationSeconds``; a poster
    when no video provider is installed."""
    w = _w()
    data = context.data
    if not w.video_playback_available():
        return _poster(context)
    slide = w.themed_slide(context, [(0, 0, 0, 1)])
    player = w.VideoFill(data["path"], muted=data["muted"], max_seconds=data["max_seconds"],
                         size_hint=(1, 1), pos_hint={"x": 0, "y": 0})
    slide.add_widget(player)
    slide.animate(player)
    slide.on_dispose(player.dispose)
    _caption(context, slide, data["credit"], 0.07)
    return slide


def _prepare_slideshow(context: RenderContext) -> Any:
    """The catalog photos of ``category`` (at most 8)."""
    category = config_text(context, "category")
    query = context.host.db.Photo.select(lambda p: not p.suppressed)
    if category:
        query = query.filter(lambda p: p.category_id == category)
    images = blob_images(context, [p.media_blob_key for p in query.limit(8)])
    return {"images": images} if images else None


class _Slideshow:
    def __init__(self, image: Any, textures: list, interval: float):
        self.image, self.textures, self.interval, self.t, self.i = image, textures, interval, 0.0, 0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.interval and len(self.textures) > 1:
            self.t = 0.0
            self.i = (self.i + 1) % len(self.textures)
            self.image.set_texture(self.textures[self.i])


@renderer(prepare=_prepare_slideshow)
def photo_slideshow(context: RenderContext) -> Any:
    w = _w()
    textures = [t for t in (w.texture_from_bytes(d) for d in context.data["images"]) if t is not None]
    if not textures:
        raise ValueError("no decodable image")
    size = config_number(context, "size", 0.34, 0.05, 1)
    layer, box = w.panel(context, (size * 0.88, size), "bottom_right")
    image = w.ImageFill(textures[0], mode="cover", size_hint=(0.96, 0.94),
                        pos_hint={"center_x": 0.5, "center_y": 0.5})
    box.add_widget(image)
    layer.animate(_Slideshow(image, textures, config_number(context, "interval_sec", 6, 1, 3600)))
    return layer
