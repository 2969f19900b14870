"""``svc-display gallery DIR``: every screen and overlay type in every builtin theme, as PNG files.

The gallery builds a host on a throwaway data dir (SQLite, no routes, no collectors), asks every
plugin for sample content (the ``display_samples`` hook), starts Kivy offscreen and draws each
registered screen type, and each overlay type over a sample slide, with its type's
``example_config``, once per builtin theme. It writes:

- ``<kind>-<type>-<theme>.png`` for each picture (``--size``, default 1920x1080);
- ``index.html``: a table of the pictures, a row per type and a column per theme;
- ``gallery.json``: per picture its type, theme, file and the text boxes drawn (the window
  rectangle of each label's text, top-left origin, its colour and size), for tests that measure
  the contrast of what was drawn, and the reason for any picture that could not be drawn.

Feature-free like the rest of the display package: it knows the types only through the
registries, the themes through the themes service and the content through the hook.
"""
from __future__ import annotations

import dataclasses
import html
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

log = logging.getLogger("svc_host.display.gallery")

DEFAULT_SIZE = (1920, 1080)
BASE_SLIDE = ("message", {"title": "Welcome", "body": "Lunch is served in the atrium at noon.\n"
                                                        "Visitors please sign in at the front desk."})
"""The slide the overlays are drawn over: the message type with a themed welcome."""
SKIPPED = {("overlay", "plugin_web"): "draws a live web page through a headless browser"}
"""Types the gallery does not draw, with the reason the index gives."""
SETTLE_FRAMES = 4
TICKS, TICK_SECONDS = 60, 0.5
VIDEO_WAIT_SECONDS = 8.0
SAMPLE_CONTROLLER_URL = "https://controller.example.org"


@dataclasses.dataclass
class Picture:
    kind: str
    type_id: str
    theme: str
    file: str = ""
    texts: list = dataclasses.field(default_factory=list)
    error: str = ""


def environment(data_dir: Path, plugins_dir: Path | None = None) -> dict[str, str]:
    """The gallery host's settings: a data dir of its own, SQLite, the folder plugins of
    ``plugins_dir`` (else the caller's ``SVC_DISPLAY_PLUGINS_DIR``), nothing else from the
    caller's environment but the plugins it disables and its log level."""
    env = {"SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "",
           "SVC_DISPLAY_CONTROLLER_PUBLIC_URL": SAMPLE_CONTROLLER_URL}
    for key in ("SVC_DISPLAY_DISABLE_PLUGINS", "SVC_DISPLAY_PLUGINS_DIR", "SVC_DISPLAY_LOG_LEVEL"):
        if os.environ.get(key):
            env[key] = os.environ[key]
    if plugins_dir is not None:
        env["SVC_DISPLAY_PLUGINS_DIR"] = str(plugins_dir)
    return env


def build_sample_host(data_dir: Path, extra_plugins: tuple = (), plugins_dir: Path | None = None) -> Any:
    """A host on ``data_dir`` (with ``extra_plugins`` and the folder plugins of ``plugins_dir``)
    filled with every plugin's ``display_samples``."""
    from svc_host.config import load_settings
    from svc_host.host import build_host

    host = build_host(load_settings(environment(data_dir, plugins_dir)), extra_plugins=extra_plugins,
                      with_routes=False)
    write_samples(host)
    return host


def write_samples(host: Any, only: Any = None) -> None:
    """Every plugin's ``display_samples`` (or those of the plugins named in ``only``) stored in
    ``host``'s database and blobs."""
    from pony import orm

    with orm.db_session:
        for name in host.plugins.implementers("display_samples"):
            if only is None or name in only:
                host.plugins.call_each("display_samples", only=[name], host=host)


def _rgba_hex(color: Any) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in tuple(color)[:4])


def _font_file(name: str) -> str:
    """The file name of the font a label draws with (a name registered with Kivy resolved)."""
    from kivy.core.text import LabelBase

    registered = LabelBase._fonts.get(name)  # noqa: SLF001  Kivy keeps no other registry
    return Path(str(registered[0] if registered else name)).name


def text_boxes(widget: Any, height: int) -> list[dict]:
    """Every label under ``widget`` showing text: where its text is drawn (window pixels, top-left
    origin: ``[x, y, width, height]``), its colour, font size, whether it has an outline, its
    opacity (its own times its parents'), its ``role``, font file and icon name."""
    from kivy.uix.label import Label

    boxes = []
    for child in widget.walk(restrict=True):
        if not isinstance(child, Label) or not child.text.strip() or child.texture is None:
            continue
        tw, th = child.texture_size
        if tw <= 0 or th <= 0 or child.opacity <= 0:
            continue
        # Kivy's label draws its texture centred in the widget
        x, y = child.to_window(int(child.center_x - tw / 2), int(child.center_y - th / 2))
        opacity, parent = child.opacity, child.parent
        while parent is not None and parent is not widget.parent:
            opacity, parent = opacity * parent.opacity, parent.parent
        boxes.append({"text": child.text[:200], "box": [round(x), round(height - y - th), round(tw), round(th)],
                      "color": _rgba_hex(child.color), "font_px": round(float(child.font_size), 1),
                      "bold": bool(child.bold), "outlined": bool(child.outline_width),
                      "opacity": round(opacity, 3), "role": getattr(child, "role", ""),
                      "font": _font_file(child.font_name), "icon": getattr(child, "icon_name", "")})
    return boxes


class Renderer:
    """Draws the pictures on the UI thread: :meth:`steps` yields how many frames to wait."""

    def __init__(self, host: Any, out_dir: Path, size: tuple[int, int], themes: list[str],
                 kinds: tuple[str, ...] = ("screen", "overlay"), types: set[str] | None = None):
        self.host, self.out_dir, self.size, self.themes = host, out_dir, size, themes
        self.kinds, self.types = kinds, types
        self.pictures: list[Picture] = []
        self.root: Any = None

    def jobs(self) -> list[Picture]:
        registries = {"screen": self.host.registries.screen_types, "overlay": self.host.registries.overlay_types}
        jobs = []
        for kind in self.kinds:
            for type_def in sorted(registries[kind], key=lambda t: t.id):
                if self.types and type_def.id not in self.types:
                    continue
                for theme in self.themes:
                    picture = Picture(kind, type_def.id, theme)
                    picture.error = SKIPPED.get((kind, type_def.id), "")
                    jobs.append(picture)
        return jobs

    def preferences(self, theme_id: str) -> Any:
        from hookspecs.render import theme_from_preview
        from hookspecs.services import THEMES, service
        from svc_host.kit.services import preferences

        themes = service(self.host, THEMES)
        preview = themes.preview(theme_id) if themes is not None else None
        return dataclasses.replace(preferences(self.host), theme=theme_from_preview(theme_id, preview))

    def build(self, prefs: Any, kind: str, type_id: str, config: dict, size: tuple[int, int] | None = None) -> Any:
        """The type's widget for a row with ``config``, drawn at ``size`` (the window's by default) with
        the window's type scale (raises when it has no content)."""
        from pony import orm

        registry = self.host.registries.screen_types if kind == "screen" else self.host.registries.overlay_types
        factory = registry.renderer(type_id)
        if factory is None:
            raise ValueError("the type has no renderer")
        row = {"id": f"gallery_{type_id}", f"{kind}_type": type_id, "enabled": True, "dwell_seconds": 20,
               "frequency_weight": 1, "config_json": dict(config)}
        context = prefs.context(self.host, kind, type_id, row, size or self.size, float(self.size[1]),
                                portrait=self.size[1] > self.size[0])
        step = getattr(factory, "prepare", None)
        data: Any = {}
        if step is not None:
            with orm.db_session:
                data = step(context)
            if data is None:
                raise ValueError("no content: its prepare step found nothing to show")
        return factory(context.with_data(data))

    def place(self, widget: Any, rect: Any = None) -> None:
        widget.size_hint, widget.pos_hint = (None, None), {}
        widget.pos, widget.size = (rect.pos, rect.size) if rect is not None else ((0, 0), self.size)
        self.root.add_widget(widget)

    def overlay_over_slide(self, prefs: Any, type_def: Any) -> list[Any]:
        """The overlay of ``type_def`` in its zone and the sample slide in the area it leaves free,
        as the canvas lays them out (:func:`svc_host.kit.display.layout.arrange`), both placed."""
        from svc_host.kit.display.backdrop import Backdrop
        from svc_host.kit.display.layout import arrange, layout_of, overlay_bands, place_celebration, with_occupied

        config = dict(type_def.example_config)
        overlay = self.build(prefs, "overlay", type_def.id, config)
        layout = layout_of(*self.size)
        rects, occupied, messages = arrange(layout, [(type_def.zone_for(config), tuple(overlay.size_hint),
                                                      getattr(overlay, "celebration", None) is not None)])
        free = with_occupied(layout, [*occupied, *overlay_bands(overlay, rects[0])]).free
        slide = self.build(prefs, "screen", BASE_SLIDE[0], BASE_SLIDE[1], (int(free.width), int(free.height)))
        backdrop = Backdrop(list(prefs.theme.background))  # the compositor's, around the free area
        self.place(backdrop)
        self.place(slide, free)
        self.place(overlay, rects[0])
        if messages[0] is not None:
            place_celebration(overlay, rects[0], messages[0])
        return [backdrop, slide, overlay]

    def steps(self) -> Iterator[int]:
        for picture in self.jobs():
            if picture.error:
                self.pictures.append(picture)
                continue
            prefs = self.preferences(picture.theme)
            shown: list[Any] = []
            try:
                if picture.kind == "overlay":
                    shown.extend(self.overlay_over_slide(prefs, self.host.registries.overlay_types.get(picture.type_id)))
                else:
                    type_def = self.host.registries.screen_types.get(picture.type_id)
                    shown.append(self.build(prefs, "screen", picture.type_id, dict(type_def.example_config)))
                    self.place(shown[-1])
                yield SETTLE_FRAMES
                for widget in shown:  # later than any reveal delay (the punchline, the answer),
                    tick = getattr(widget, "tick", None)  # in steps, as frames would
                    for _ in range(TICKS) if tick is not None else ():
                        tick(TICK_SECONDS)
                yield SETTLE_FRAMES
                deadline = time.monotonic() + VIDEO_WAIT_SECONDS
                while self._waiting_for_video(shown[-1]) and time.monotonic() < deadline:
                    yield 1
                yield 1
                name = f"{picture.kind}-{picture.type_id}-{picture.theme}.png"
                self.capture(self.out_dir / name)
                picture.file = name
                picture.texts = text_boxes(shown[-1], self.size[1])
            except Exception as exc:  # noqa: BLE001  a type that fails is named in the index
                log.warning("gallery: %s %s in %s: %s: %s", picture.kind, picture.type_id, picture.theme,
                            type(exc).__name__, exc)
                picture.error = f"{type(exc).__name__}: {exc}"
            finally:
                for widget in shown:
                    if widget.parent is not None:
                        widget.parent.remove_widget(widget)
                    dispose = getattr(widget, "dispose", None)
                    if dispose is not None:
                        dispose()
            self.pictures.append(picture)

    @staticmethod
    def _waiting_for_video(widget: Any) -> bool:
        from svc_host.kit.display.pictures import VideoFill

        return any(isinstance(w, VideoFill) and w.texture is None and w.player is not None for w in widget.walk())

    def capture(self, path: Path) -> None:
        """The window as drawn now, into a PNG at ``path``."""
        from kivy.core.window import Window
        from kivy.graphics import Fbo
        from PIL import Image

        from svc_host.display.capture import draw_window

        width, height = (int(v) for v in Window.size)
        fbo = Fbo(size=(width, height), with_stencilbuffer=True)
        draw_window(fbo)
        image = Image.frombytes("RGBA", (width, height), fbo.pixels).convert("RGB")
        image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)  # GL rows run bottom-up
        image.save(path, "PNG", compress_level=6)


def write_index(out_dir: Path, pictures: list[Picture], themes: list[str], size: tuple[int, int]) -> None:
    rows: dict[tuple[str, str], dict[str, Picture]] = {}
    for picture in pictures:
        rows.setdefault((picture.kind, picture.type_id), {})[picture.theme] = picture
    head = "".join(f"<th>{html.escape(theme)}</th>" for theme in themes)
    body = []
    for (kind, type_id), by_theme in rows.items():
        cells = []
        for theme in themes:
            picture = by_theme.get(theme)
            if picture is None:
                cells.append("<td></td>")
            elif picture.file:
                name = html.escape(picture.file)
                cells.append(f'<td><a href="{name}"><img src="{name}" width="320" loading="lazy" '
                             f'alt="{html.escape(kind)} {html.escape(type_id)} in {html.escape(theme)}"></a></td>')
            else:
                cells.append(f'<td class="missing">not drawn: {html.escape(picture.error)}</td>')
        body.append(f"<tr><th>{html.escape(kind)}<br><code>{html.escape(type_id)}</code></th>{''.join(cells)}</tr>")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-display gallery</title>
<style>body{{font-family:sans-serif;background:#222;color:#eee}}td,th{{padding:4px;vertical-align:top}}
.missing{{color:#f99;max-width:320px}}a{{color:#9cf}}</style></head><body>
<h1>svc-display gallery</h1>
<p>Every screen type and every overlay type (over a welcome slide) with its example config and sample
content, in every builtin theme, at {size[0]}x{size[1]}. Click a picture for full size.</p>
<table><tr><th>type</th>{head}</tr>
{chr(10).join(body)}
</table></body></html>
"""
    (out_dir / "index.html").write_text(page, encoding="utf-8")


def run(out_dir: Path, size: tuple[int, int] = DEFAULT_SIZE, themes: list[str] | None = None,
        types: set[str] | None = None, kinds: tuple[str, ...] = ("screen", "overlay"),
        plugins_dir: Path | None = None) -> list[Picture]:
    """Draw the gallery into ``out_dir`` (created), with the folder plugins of ``plugins_dir``;
    returns the pictures. Runs Kivy on this thread (the main thread), offscreen, once per process."""
    from svc_host.display.runtime import MODE_OFFSCREEN, start_kivy

    out_dir.mkdir(parents=True, exist_ok=True)
    data_dir = Path(tempfile.mkdtemp(prefix="svc-display-gallery-"))
    host = build_sample_host(data_dir, plugins_dir=plugins_dir)
    try:
        from hookspecs.services import THEMES, service
        from svc_host.registries import resolve_renderers

        known = service(host, THEMES)
        all_themes = known.builtin_ids() if known is not None else ["navy_coral"]
        chosen = [t for t in all_themes if not themes or t in themes]
        host.settings = dataclasses.replace(host.settings, window_size=f"{size[0]}x{size[1]}", max_fps=0)
        start_kivy(host, MODE_OFFSCREEN)
        resolve_renderers(host)
        renderer = Renderer(host, out_dir, size, chosen, kinds, types)
        _drive(renderer)
        write_index(out_dir, renderer.pictures, chosen, size)
        manifest = {"size": list(size), "themes": chosen,
                    "pictures": [dataclasses.asdict(p) for p in renderer.pictures]}
        (out_dir / "gallery.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        return renderer.pictures
    finally:
        host.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def _drive(renderer: Renderer) -> None:
    """Run a Kivy app whose only job is to walk ``renderer.steps()``, one frame per wait."""
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.uix.floatlayout import FloatLayout

    steps = renderer.steps()
    state = {"wait": 0}

    class GalleryApp(App):
        title = "svc-display gallery"

        def build(self) -> Any:
            renderer.root = FloatLayout()
            Clock.schedule_interval(self.step, 0)
            return renderer.root

        def step(self, _dt: float) -> None:
            if state["wait"] > 0:
                state["wait"] -= 1
                return
            try:
                state["wait"] = next(steps)
            except StopIteration:
                self.stop()
            except Exception:  # noqa: BLE001  the gallery stops, the command reports it
                log.exception("gallery: stopped")
                self.stop()
                raise

    GalleryApp().run()
