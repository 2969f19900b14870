"""One renderer drawn by the real Kivy canvas, offscreen, in a subprocess.

:func:`render_frame` runs ``python -m svc_display.testing.canvas JOB`` with
``SDL_VIDEODRIVER=offscreen``: the child builds a host on the same data dir (and
database) with the same plugins, starts Kivy the way ``svc-display serve`` does
(``svc_host.display.start_kivy``), resolves the type's renderer through the host's
registry (so a bad ``"module:attr"`` names its plugin), builds the
:class:`hookspecs.render.RenderContext`, runs ``prepare`` inside a ``db_session`` and
the factory on the UI thread, lets Kivy lay out and draw a few frames (calling the
widget's ``tick``), then writes the widget as a PNG (Kivy's ``export_to_png``) and calls
``dispose``. A subprocess, because Kivy creates one window per process and never lets go
of it; and the test process stays free of Kivy.

A ticker type draws nothing: its frame carries the ``items`` its ``build_items`` makes (what
the marquee shows) and its ``refresh_seconds``, and no image.
"""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import types
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping

KINDS = ("screen", "overlay", "ticker")
DEFAULT_SIZE = (640, 360)


class RenderError(RuntimeError):
    """The frame could not be drawn; the message says why (and names the plugin at fault)."""


@dataclass
class Frame:
    """What one type drew: a PNG (screen and overlay types) or texts (ticker types).

    ``image`` is the PNG as an RGB ``PIL.Image`` (transparent parts over black);
    ``pixels`` its raw RGB bytes, rows top to bottom; ``pixel(x, y)`` one pixel from the
    top-left corner; ``fraction(rgb)`` the share of pixels within ``tolerance`` of a colour.
    An overlay type with a ``zone`` (a panel) is drawn at its place in the frame, as the
    display's overlays layer puts it: ``zone`` names it and ``panel`` is its ``(x, y, width,
    height)`` in pixels from the top-left corner; a ``fullscreen`` one covers the frame
    (``panel`` None).
    """

    kind: str
    type_id: str
    size: tuple[int, int]
    png: Path | None = None
    items: list[str] = field(default_factory=list)
    refresh_seconds: float | None = None
    panel: tuple[int, int, int, int] | None = None
    zone: str = "fullscreen"

    @cached_property
    def image(self) -> Any:
        from PIL import Image

        if self.png is None:
            raise RenderError(f"a {self.kind} frame has no image (ticker types make texts: see .items)")
        with Image.open(self.png) as source:
            rgba = source.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")

    @property
    def pixels(self) -> bytes:
        return self.image.tobytes()

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        return self.image.getpixel((x, y))

    def fraction(self, rgb: tuple[int, int, int], tolerance: int = 60) -> float:
        """Share of pixels whose summed RGB distance to ``rgb`` is at most ``tolerance``."""
        data = self.pixels
        red, green, blue = rgb
        hits = sum(1 for i in range(0, len(data), 3)
                   if abs(data[i] - red) + abs(data[i + 1] - green) + abs(data[i + 2] - blue) <= tolerance)
        return hits / (len(data) // 3)


def plugin_reference(plugin: Any) -> str | None:
    """``"module"`` or ``"module:name"`` naming ``plugin`` for another process; None when it
    cannot be named (a class or object made inside a function)."""
    if isinstance(plugin, types.ModuleType):
        return plugin.__name__
    if inspect.isclass(plugin) or inspect.isfunction(plugin):
        return None if "<locals>" in plugin.__qualname__ else f"{plugin.__module__}:{plugin.__qualname__}"
    module = sys.modules.get(type(plugin).__module__)
    for name, value in vars(module).items() if module is not None else ():
        if value is plugin:
            return f"{module.__name__}:{name}"
    return None


def render_frame(env: Mapping[str, str], kind: str, type_id: str, config: Mapping[str, Any] | None = None, *,
                 plugins: Iterable[tuple[str, str]] = (), row: Mapping[str, Any] | None = None,
                 size: tuple[int, int] = DEFAULT_SIZE, frames: int = 3,
                 context: Mapping[str, Any] | None = None, out: Path, timeout: float = 120) -> Frame:
    """Draw ``type_id``'s renderer offscreen for a host of ``env`` plus ``plugins`` (``(name,
    reference)`` pairs, see :func:`plugin_reference`) and return the :class:`Frame`.

    ``config`` is the row's ``config_json`` (the type's ``example_config`` when None);
    ``row`` adds other row fields; ``context`` sets :class:`RenderContext` fields
    (``text_scale``, ``timezone``, ``time_format``, ``date_order``, ``temperature_unit``)
    and ``theme`` (a theme id the themes service knows). ``frames`` is how many frames are
    drawn (and ``tick`` calls made, 1/30 s each) before the picture is taken. The PNG and
    the job go to the folder ``out``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{kind}-{type_id}-{len(list(out.glob('*.json')))}"
    job = {"env": dict(env), "plugins": [list(p) for p in plugins], "kind": kind, "type_id": type_id,
           "config": None if config is None else dict(config), "row": dict(row or {}), "size": list(size),
           "frames": max(1, int(frames)), "context": dict(context or {}), "png": str(stem) + ".png"}
    Path(str(stem) + ".json").write_text(json.dumps(job))
    child_env = {**os.environ, **env, "SDL_VIDEODRIVER": "offscreen", "SVC_DISPLAY_HEADLESS": "",
                 "SVC_DISPLAY_WINDOW_SIZE": f"{size[0]}x{size[1]}",
                 # the child imports what this process imports (test modules named by reference too)
                 "PYTHONPATH": os.pathsep.join([*filter(None, sys.path), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run([sys.executable, "-m", "svc_display.testing.canvas", str(stem) + ".json"],
                              env=child_env, capture_output=True, text=True, timeout=timeout, cwd=str(out))
    except subprocess.TimeoutExpired as exc:
        raise RenderError(f"the {kind} renderer {type_id!r} did not finish within {timeout:.0f}s") from exc
    lines = done.stdout.strip().splitlines()
    answer = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    if done.returncode != 0 or "error" in answer or not answer:
        reason = answer.get("error") or f"the renderer process exited with {done.returncode}"
        raise RenderError(f"{reason}\n--- renderer process output ---\n{done.stderr[-4000:]}")
    return Frame(kind, type_id, tuple(size), Path(answer["png"]) if answer.get("png") else None,
                 list(answer.get("items") or []), answer.get("refresh_seconds"),
                 tuple(answer["panel"]) if answer.get("panel") else None, answer.get("zone", "fullscreen"))


# -- the child process ---------------------------------------------------------------------------

def _draw(host: Any, job: dict[str, Any]) -> dict[str, Any]:
    from pony import orm

    from hookspecs.render import RenderContext, default_theme, theme_from_preview
    from hookspecs.services import THEMES, service
    from svc_host.display import MODE_OFFSCREEN, start_kivy

    kind, type_id = job["kind"], job["type_id"]
    registry = getattr(host.registries, f"{kind}_types")
    definition = registry.get(type_id)
    if definition is None:
        known = ", ".join(sorted(registry.types)) or "none"
        raise RenderError(f"no {kind} type {type_id!r}; the plugins provide: {known}")
    owner = registry.owner.get(type_id, "?")
    config = job["config"] if job["config"] is not None else dict(definition.example_config)
    row = {"id": f"frame-{type_id}", f"{kind}_type": type_id, **job["row"], "config_json": config}
    if kind == "ticker":  # a ticker type draws nothing: its frame is the texts the marquee shows
        with orm.db_session:
            items = definition.build_items(host, types.SimpleNamespace(**row), host.clock.now_ms())
        return {"items": [str(item) for item in items or [] if str(item).strip()],
                "refresh_seconds": definition.refresh_seconds}
    start_kivy(host, MODE_OFFSCREEN)
    factory = registry.renderer(type_id)  # a reference that does not resolve names the plugin
    if factory is None:
        raise RenderError(f"{kind} type {type_id!r} of plugin {owner!r} has no renderer")
    options = dict(job["context"])
    theme_id = options.pop("theme", None)
    theme = default_theme()
    if theme_id is not None:
        themes = service(host, THEMES)
        preview = themes.preview(theme_id) if themes is not None else None
        if preview is None:
            raise RenderError(f"theme {theme_id!r} is not known to the themes service")
        theme = theme_from_preview(theme_id, preview)
    context = RenderContext(host=host, kind=kind, type_id=type_id, row=row, theme=theme,
                            size=tuple(job["size"]), **options)
    prepare = getattr(factory, "prepare", None)
    with orm.db_session:
        data = prepare(context) if prepare is not None else {}
    if data is None:
        raise RenderError(f"{kind} type {type_id!r}: prepare returned None (no content: skipped)")
    widget = factory(context.with_data(data))
    zone = definition.zone_for(config) if kind == "overlay" else "fullscreen"
    rect = None
    if zone != "fullscreen":  # a panel: in its zone, as the overlays layer places it
        from hookspecs.render import Layout

        width, height = job["size"]
        rects, _occupied, _messages = Layout.of(width, height).arrange([(zone, tuple(widget.size_hint), False)])
        rect = rects[0]
    answer = {"png": _snapshot(widget, job, rect)}
    if rect is not None:  # from the top left, like Frame.pixel
        answer["panel"] = [round(rect.x), round(job["size"][1] - rect.top), round(rect.width), round(rect.height)]
        answer["zone"] = zone
    return answer


def _snapshot(widget: Any, job: dict[str, Any], rect: Any = None) -> str:
    """The widget drawn over the whole frame, or (an overlay panel) at ``rect`` of a frame that is
    transparent around it."""
    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.uix.widget import Widget

    shown = widget
    widget.size_hint = (None, None)
    if rect is None:
        widget.size, widget.pos = tuple(job["size"]), (0, 0)
    else:
        shown = Widget(size_hint=(None, None), size=tuple(job["size"]), pos=(0, 0))
        widget.pos_hint = {}
        widget.size, widget.pos = (rect.width, rect.height), (rect.x, rect.y)
        shown.add_widget(widget)
    Window.add_widget(shown)
    tick = getattr(widget, "tick", None)
    for _ in range(job["frames"]):
        EventLoop.idle()  # one frame: clock (layout, label textures), then draw
        if tick is not None:
            tick(1 / 30)
    EventLoop.idle()
    shown.export_to_png(job["png"])
    dispose = getattr(widget, "dispose", None)
    if dispose is not None:
        dispose()
    Window.remove_widget(shown)
    return job["png"]


def main(argv: list[str] | None = None) -> int:
    import logging
    import pkgutil

    from svc_host.config import load_settings
    from svc_host.host import build_host

    job = json.loads(Path((argv or sys.argv[1:])[0]).read_text())
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        plugins = [(name, pkgutil.resolve_name(reference)) for name, reference in job["plugins"]]
        host = build_host(load_settings(job["env"]), extra_plugins=plugins, with_routes=False)
        try:
            answer = _draw(host, job)
        finally:
            host.close()
    except Exception as exc:  # noqa: BLE001  reported to the test process as one line
        answer = {"error": f"{type(exc).__name__}: {exc}"}
        logging.getLogger("svc_display.testing").exception("frame of %s %r", job["kind"], job["type_id"])
    print(json.dumps(answer))
    return 1 if "error" in answer else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
