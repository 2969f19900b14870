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

:func:`check_on_canvas` goes further: one row of the type on the display's own canvas (the real
compositor and its layers, frame time driven: :class:`svc_host.display.driven.Canvas`) for some
seconds of frames, and a :class:`CanvasCheck` saying whether its renderer raised (at build or at
a later frame), as the screen's report (``GET /v1/display/screen``) would tell the operator.
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


@dataclass
class CanvasCheck:
    """What the display's canvas made of one row (:func:`check_on_canvas`).

    ``raised``: its renderer raised (prepare, build, a later frame's ``tick``, a ticker type's
    ``build_items``); ``failures``: the screen report's ``failing`` items of the type (``kind``,
    ``type``, ``plugin``, ``message``, ``count``, ``since_ms``); ``shown``: it came on screen (a
    slide: it was the slide on screen); ``report``: ``GET /v1/display/screen``'s ``{state,
    current, skipped, failing}`` at the end (the canvas's report; the route adds ``sync``); ``log``: what the canvas logged (the traceback of the first failure among it)."""

    kind: str
    type_id: str
    raised: bool
    failures: list[dict]
    shown: bool
    report: dict
    log: str = ""

    def __str__(self) -> str:
        said = "; ".join(f"{f['message']} ({f['count']}x)" for f in self.failures) or "nothing raised"
        return f"{self.kind} {self.type_id!r} on the canvas: {said}"


def check_on_canvas(env: Mapping[str, str], kind: str, type_id: str, config: Mapping[str, Any] | None = None, *,
                    plugins: Iterable[tuple[str, str]] = (), row: Mapping[str, Any] | None = None,
                    seconds: float = 3.0, dt: float = 0.1, size: tuple[int, int] = DEFAULT_SIZE,
                    out: Path, timeout: float = 120) -> CanvasCheck:
    """Show one row of ``type_id`` on the display's real canvas (offscreen, frame time driven) for
    ``seconds`` of frames of ``dt`` in a subprocess, for a host of ``env`` plus ``plugins`` (as
    :func:`render_frame`), and say whether its renderer raised (:class:`CanvasCheck`)."""
    job, stem = _new_job(out, "check-", env, kind, type_id, config, plugins, row, size)
    job["check"] = {"seconds": float(seconds), "dt": float(dt)}
    answer, stderr = _child(job, stem, size, out, timeout)
    return CanvasCheck(kind, type_id, bool(answer["failures"]), answer["failures"], answer["shown"],
                       answer["report"], stderr)


def _new_job(out: Path, prefix: str, env: Mapping[str, str], kind: str, type_id: str,
             config: Mapping[str, Any] | None, plugins: Iterable[tuple[str, str]], row: Mapping[str, Any] | None,
             size: tuple[int, int]) -> tuple[dict[str, Any], Path]:
    """A child job's common part and the stem of its files in ``out``."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{prefix}{kind}-{type_id}-{len(list(out.glob('*.json')))}"
    return {"env": dict(env), "plugins": [list(p) for p in plugins], "kind": kind, "type_id": type_id,
            "config": None if config is None else dict(config), "row": dict(row or {}), "size": list(size)}, stem


def _child(job: dict[str, Any], stem: Path, size: tuple[int, int], out: Path, timeout: float) -> tuple[dict, str]:
    """Write the job to ``stem.json``, run the child process on it: its answer (an error raised as
    RenderError) and what it logged."""
    Path(str(stem) + ".json").write_text(json.dumps(job))
    child_env = {**os.environ, **job["env"], "SDL_VIDEODRIVER": "offscreen", "SVC_DISPLAY_HEADLESS": "",
                 # the child imports what this process imports (test modules named by reference too)
                 "PYTHONPATH": os.pathsep.join([*filter(None, sys.path), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run([sys.executable, "-m", "svc_display.testing.canvas", str(stem) + ".json"],
                              env=child_env, capture_output=True, text=True, timeout=timeout, cwd=str(out))
    except subprocess.TimeoutExpired as exc:
        raise RenderError(f"the {job['kind']} renderer {job['type_id']!r} did not finish within {timeout:.0f}s") from exc
    lines = done.stdout.strip().splitlines()
    answer = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    if done.returncode != 0 or "error" in answer or not answer:
        reason = answer.get("error") or f"the renderer process exited with {done.returncode}"
        raise RenderError(f"{reason}\n--- renderer process output ---\n{done.stderr[-4000:]}")
    return answer, done.stderr


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
    job, stem = _new_job(out, "", env, kind, type_id, config, plugins, row, size)
    job.update(frames=max(1, int(frames)), context=dict(context or {}), png=str(stem) + ".png")
    answer, _stderr = _child(job, stem, size, out, timeout)
    return Frame(kind, type_id, tuple(size), Path(answer["png"]) if answer.get("png") else None,
                 list(answer.get("items") or []), answer.get("refresh_seconds"),
                 tuple(answer["panel"]) if answer.get("panel") else None, answer.get("zone", "fullscreen"))


# -- the child process ---------------------------------------------------------------------------

def _job_type(host: Any, job: dict[str, Any]) -> tuple[Any, Any, dict]:
    """The job's type: its registry, its definition and the row's config (the type's example
    when the job gives none); RenderError naming the types the plugins provide when unknown."""
    kind, type_id = job["kind"], job["type_id"]
    registry = getattr(host.registries, f"{kind}_types")
    definition = registry.get(type_id)
    if definition is None:
        known = ", ".join(sorted(registry.types)) or "none"
        raise RenderError(f"no {kind} type {type_id!r}; the plugins provide: {known}")
    return registry, definition, job["config"] if job["config"] is not None else dict(definition.example_config)


def _draw(host: Any, job: dict[str, Any]) -> dict[str, Any]:
    from pony import orm

    from hookspecs.render import RenderContext, default_theme, theme_from_preview
    from hookspecs.services import THEMES, service
    from svc_host.display import MODE_OFFSCREEN, start_kivy

    kind, type_id = job["kind"], job["type_id"]
    registry, definition, config = _job_type(host, job)
    owner = registry.owner.get(type_id, "?")
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
        from svc_host.kit.display.layout import arrange, layout_of

        width, height = job["size"]
        rects, _occupied, _messages = arrange(layout_of(width, height), [(zone, tuple(widget.size_hint), False)])
        rect = rects[0]
    answer = {"png": _snapshot(widget, job, rect)}
    if rect is not None:  # from the top left, like Frame.pixel
        answer["panel"] = [round(rect.x), round(job["size"][1] - rect.top), round(rect.width), round(rect.height)]
        answer["zone"] = zone
    return answer


ROW_ENTITIES = {"screen": "Screen", "overlay": "OverlaySchedule", "ticker": "TickerTape"}


def _check(host: Any, job: dict[str, Any]) -> dict[str, Any]:
    """One row of the type stored, the display's canvas driven for the job's seconds, the report."""
    from pony import orm

    from svc_host.display import MODE_OFFSCREEN, start_kivy
    from svc_host.display.driven import Canvas

    kind, type_id = job["kind"], job["type_id"]
    _registry, _definition, config = _job_type(host, job)
    now = host.clock.now_ms()
    values = {"id": f"check-{type_id}", f"{kind}_type": type_id, "enabled": True, "config_json": config,
              "created_at_ms": now, "updated_at_ms": now}
    if kind == "overlay":  # all year
        values.update(start_month=1, start_day=1, end_month=12, end_day=31, repeat_annually=True)
    entity = getattr(host.db, ROW_ENTITIES[kind])
    values.update(job["row"])
    with orm.db_session:
        entity.select().delete(bulk=True)  # only this row on screen
        entity(**{key: value for key, value in values.items() if key in entity._adict_})
    start_kivy(host, MODE_OFFSCREEN)
    canvas = Canvas(host)
    shown, failures = False, {}
    try:
        for _ in range(max(1, round(job["check"]["seconds"] / job["check"]["dt"]))):
            canvas.frame(job["check"]["dt"])
            current = canvas.compositor.truth.current
            shown = shown or (current is not None and current["screen_id"] == values["id"])
            report = canvas.compositor.truth.snapshot()
            for item in report["failing"]:  # every failure seen, also one that later worked again
                if item["kind"] == kind and item["type"] == type_id:
                    failures[item["message"]] = item
    finally:
        canvas.compositor.detach()
    return {"failures": list(failures.values()), "shown": shown if kind == "screen" else not failures,
            "report": report}


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
        size = "x".join(str(side) for side in job["size"])  # the canvas's size is the host's setting
        host = build_host(load_settings({**job["env"], "SVC_DISPLAY_WINDOW_SIZE": size}), extra_plugins=plugins,
                          with_routes=False)
        try:
            answer = _check(host, job) if "check" in job else _draw(host, job)
        finally:
            host.close()
    except Exception as exc:  # noqa: BLE001  reported to the test process as one line
        answer = {"error": f"{type(exc).__name__}: {exc}"}
        logging.getLogger("svc_display.testing").exception("frame of %s %r", job["kind"], job["type_id"])
    print(json.dumps(answer))
    return 1 if "error" in answer else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
